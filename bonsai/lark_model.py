"""The one adapter over lark's grammar internals: lark's rule and terminal trees into bonsai's EBNF model.

lark keeps every rule's EBNF tree in `Grammar.rule_defs` (before `compile` flattens repetitions
into helper rules) and every terminal's tree in `Grammar.term_defs`.  `ModelBuilder` walks those
trees into `bonsai.ebnf` (instantiating templates); terminal patterns are compiled by lark's own
transformers, so no second EBNF parser exists in bonsai.  Nothing else in bonsai imports lark's
internals (`lark.load_grammar`, `lark.grammar`, `lark.lexer`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lark import Tree
from lark.exceptions import GrammarError, LarkError
from lark.grammar import NonTerminal
from lark.grammar import Terminal as LarkTerminal
from lark.lexer import Pattern, PatternStr, Token
from lark.load_grammar import (
    PrepareLiterals,
    TerminalTreeToPattern,
    _literal_to_pattern,
    nr_deepcopy_tree,
)
from lark.load_grammar import (
    load_grammar as _lark_load_grammar,
)

from bonsai.ebnf import Alts, Ref, Repeat, Rule, Term, TerminalSpec

__all__ = ["ModelBuilder", "read_lark_grammar"]


def read_lark_grammar(text: str, source_path: str | None, import_paths: list[str]) -> Any:
    """lark's own grammar object for grammar `text` (raises LarkError, AssertionError or OSError when invalid)."""
    lark_grammar, _ = _lark_load_grammar(text, source_path or "<string>", import_paths, False)
    return lark_grammar


_PATTERN_TRANSFORMER = PrepareLiterals() * TerminalTreeToPattern()


class ModelBuilder:
    """Walks lark's `rule_defs`/`term_defs` trees into the bonsai model, instantiating templates.

    `is_ident(name, regex)` decides which regex terminals are identifiers (kind ``ident``); an anonymous
    one (a regex written in a rule) is asked with name None.
    """

    def __init__(self, lark_grammar: Any, is_ident: Callable[[str | None, str], bool]) -> None:
        self.g = lark_grammar
        self.is_ident = is_ident
        self.templates: dict[str, tuple[tuple[str, ...], Tree]] = {}
        self.rule_trees: dict[str, Tree] = {}
        self.priorities: dict[str, int] = {}
        self.rules: dict[str, Rule] = {}
        self.pending: list[tuple[str, Tree]] = []
        self.terminals: dict[str, TerminalSpec] = {}
        self.term_patterns: dict[str, Pattern | None] = {}
        self.anon_by_key: dict[tuple[str, str], TerminalSpec] = {}
        self.anon_patterns: list[tuple[TerminalSpec, Pattern]] = []

    def rename_anonymous(self, start: str) -> None:
        """Give anonymous literal terminals the names lark's compile gives them (e.g. LPAR, __ANON_0).

        Token names in generated trees then equal the token types lark's lexer produces, which an
        Indenter's paren types and any consumer of the tree rely on.
        """
        try:
            compiled, _rules, _ignore = self.g.compile([start], set())
        except (LarkError, AssertionError, KeyError):
            return  # names stay the literal text; generation does not depend on them
        by_pattern: dict[tuple[Any, ...], str] = {}
        for tdef in compiled:
            key = (tdef.pattern.type, tdef.pattern.value, tuple(sorted(tdef.pattern.flags)))
            by_pattern.setdefault(key, str(tdef.name))
        for spec, pattern in self.anon_patterns:
            name = by_pattern.get((pattern.type, pattern.value, tuple(sorted(pattern.flags))))
            if name is not None:
                spec.name = name
        renamed: dict[str, TerminalSpec] = {}
        for spec in self.terminals.values():
            renamed.setdefault(spec.name, spec)
        self.terminals = renamed

    def build(
        self,
    ) -> tuple[dict[str, Rule], dict[str, TerminalSpec], frozenset[str], frozenset[str], list, list[str]]:
        """Return (rules, terminals, keywords, case-insensitive keywords, ignore regexes, declared names)."""
        declared: list[str] = []
        for name, (tree, prio) in self.g.term_defs:
            name = str(name)
            self.priorities[name] = int(prio or 0)
            if tree is None:
                declared.append(name)
                self.term_patterns[name] = None
            else:
                self.term_patterns[name] = _PATTERN_TRANSFORMER.transform(nr_deepcopy_tree(tree))
        for name, params, tree, _opts in self.g.rule_defs:
            if params:
                self.templates[str(name)] = (tuple(str(p) for p in params), tree)
            else:
                self.rule_trees[str(name)] = tree
        for name, tree in self.rule_trees.items():
            self.pending.append((name, tree))
        while self.pending:
            name, tree = self.pending.pop()
            if name not in self.rules:
                self.rules[name] = Rule(name, Alts((), ()))  # placeholder: breaks recursion
                self.rules[name] = Rule(name, self._alts(tree))
        ordered = {n: self.rules[n] for n in self.rule_trees}
        ordered.update((n, r) for n, r in self.rules.items() if n not in ordered)
        keywords: set[str] = set()
        keywords_ci: set[str] = set()
        for name, pattern in self.term_patterns.items():
            if isinstance(pattern, PatternStr):
                (keywords_ci if "i" in pattern.flags else keywords).add(
                    pattern.value.lower() if "i" in pattern.flags else pattern.value
                )
            del name
        for spec in self.terminals.values():
            if spec.kind == "fixed":
                keywords.add(spec.text)
        for (kind, raw), _spec in self.anon_by_key.items():
            if kind == "STRING" and raw.endswith("i"):
                keywords_ci.add(_spec.text.lower())
        ignore_regexes = []
        for name in self.g.ignore:
            pattern = self.term_patterns.get(name)
            if pattern is not None:
                ignore_regexes.append(re.compile(pattern.to_regexp()))
        return ordered, self.terminals, frozenset(keywords), frozenset(keywords_ci), ignore_regexes, declared

    # --- rules -------------------------------------------------------------------------------

    def _alts(self, tree: Tree) -> Alts:
        assert tree.data == "expansions", tree.data
        seqs: list[tuple[Any, ...]] = []
        aliases: list[str | None] = []
        for child in tree.children:
            alias = None
            if child.data == "alias":
                child, alias_sym = child.children
                alias = str(alias_sym.name) if hasattr(alias_sym, "name") else None
            seqs.append(self._seq(child))
            aliases.append(alias)
        return Alts(tuple(seqs), tuple(aliases))

    def _seq(self, tree: Tree) -> tuple[Any, ...]:
        if tree.data != "expansion":
            return (self._item(tree),)
        return tuple(self._item(c) for c in tree.children)

    def _item(self, tree: Any) -> Any:
        data = tree.data
        if data == "value":
            return self._value(tree.children[0])
        if data == "expansions":
            return self._alts(tree)
        if data == "maybe":
            return Repeat(self._as_alts(tree.children[0]), 0, 1)
        if data == "expr":
            atom, op, *nums = tree.children
            body = self._as_alts(atom)
            if op == "*":
                return Repeat(body, 0, None)
            if op == "+":
                return Repeat(body, 1, None)
            if op == "?":
                return Repeat(body, 0, 1)
            lo = int(nums[0])
            hi = int(nums[1]) if len(nums) > 1 else lo
            if hi < lo:
                raise GrammarError(f"bad repetition range {lo}..{hi}")
            return Repeat(body, lo, hi)
        if data in ("literal", "range", "template_usage"):
            return self._value(tree)
        raise GrammarError(f"unsupported grammar construct {data!r}")

    def _as_alts(self, tree: Any) -> Alts:
        item = self._item(tree)
        if isinstance(item, Alts):
            return item
        return Alts(((item,),), (None,))

    def _value(self, v: Any) -> Any:
        if isinstance(v, NonTerminal):
            name = str(v.name)
            if name in self.templates:
                raise GrammarError(f"template {name} used without arguments")
            if name not in self.rules:
                self.pending.append((name, self._rule_tree(name)))
            return Ref(name)
        if isinstance(v, LarkTerminal):
            return Term(self._named_terminal(str(v.name)))
        if isinstance(v, Tree):
            if v.data == "literal":
                return Term(self._anon_terminal(v.children[0]))  # type: ignore[arg-type]  # a literal's child: a Token
            if v.data == "range":
                a, b = v.children
                pattern = PrepareLiterals().range(a, b).children[0]
                return Term(self._anon_pattern(("RANGE", f"{a}..{b}"), pattern))
            if v.data == "template_usage":
                return Ref(self._instantiate(v))
            return self._item(v)
        raise GrammarError(f"unsupported grammar value {v!r}")

    def _rule_tree(self, name: str) -> Tree:
        tree = self.rule_trees.get(name)
        if tree is None:
            raise GrammarError(f"rule {name!r} used but not defined")
        return tree

    def _instantiate(self, usage: Tree) -> str:
        sym: Any  # the template's name: a Token (lark types children as Tree | Any)
        sym, *args = usage.children
        params, body = self.templates[str(sym.name)]
        if len(params) != len(args):
            raise GrammarError(f"wrong number of template arguments for {sym.name}")
        name = f"{str(sym.name)}{{{','.join(_arg_text(a) for a in args)}}}"
        if name not in self.rules:
            mapping = dict(zip(params, args, strict=True))
            self.pending.append((name, _substitute(body, mapping)))
        return name

    # --- terminals ---------------------------------------------------------------------------

    def _named_terminal(self, name: str) -> TerminalSpec:
        spec = self.terminals.get(name)
        if spec is not None:
            return spec
        if name not in self.term_patterns:
            raise GrammarError(f"terminal {name!r} used but not defined")
        pattern = self.term_patterns[name]
        if pattern is None:
            spec = TerminalSpec(name, "declared", "(?!)")
        elif isinstance(pattern, PatternStr):
            spec = TerminalSpec(name, "fixed", pattern.to_regexp(), pattern.value)
        else:
            regex = pattern.to_regexp()
            spec = TerminalSpec(name, "ident" if self.is_ident(name, regex) else "regex", regex)
        spec.priority = self.priorities.get(name, 0)
        self.terminals[name] = spec
        return spec

    def _anon_terminal(self, token: Token) -> TerminalSpec:
        return self._anon_pattern((token.type, token.value), _literal_to_pattern(token))

    def _anon_pattern(self, key: tuple[str, str], pattern: Pattern) -> TerminalSpec:
        spec = self.anon_by_key.get(key)
        if spec is None:
            name = str(key[1])
            if isinstance(pattern, PatternStr):
                spec = TerminalSpec(name, "fixed", pattern.to_regexp(), pattern.value)
            else:
                regex = pattern.to_regexp()
                spec = TerminalSpec(name, "ident" if self.is_ident(None, regex) else "regex", regex)
            self.anon_by_key[key] = spec
            self.anon_patterns.append((spec, pattern))
            self.terminals.setdefault(name, spec)
        return spec


def _arg_text(arg: Any) -> str:
    if isinstance(arg, Tree):
        return "".join(_arg_text(c) for c in arg.children) if arg.data == "value" else str(arg)
    return getattr(arg, "name", None) or str(arg)


def _substitute(tree: Any, mapping: dict[str, Any]) -> Any:
    """Copy `tree` with template parameters (value(NonTerminal(param))) replaced by their arguments."""
    if not isinstance(tree, Tree):
        return tree
    if tree.data == "value" and len(tree.children) == 1:
        only = tree.children[0]
        if isinstance(only, NonTerminal) and only.name in mapping:
            return mapping[only.name]
    return Tree(tree.data, [_substitute(c, mapping) for c in tree.children])
