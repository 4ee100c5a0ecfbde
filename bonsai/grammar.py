"""The one adapter over lark's grammar analysis: a Lark grammar as an EBNF model for bounded generation.

lark keeps every rule's EBNF tree in `Grammar.rule_defs` (before `compile` flattens repetitions
into helper rules) and every terminal's tree in `Grammar.term_defs`.  This module turns those
trees into a small immutable model (`Grammar`, `Rule`, `Alts`, `Repeat`, `Ref`, `Term`) in which
repetitions stay visible, so that the items bound can be applied to them.  Terminal patterns
are compiled by lark's own transformers; no second EBNF parser exists in bonsai.

Nothing else in bonsai imports lark's internals.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark, Tree
from lark.exceptions import GrammarError, LarkError
from lark.grammar import NonTerminal
from lark.grammar import Terminal as LarkTerminal
from lark.indenter import Indenter
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

__all__ = [
    "Alts",
    "Grammar",
    "GrammarLoadError",
    "IndenterSpec",
    "Ref",
    "Repeat",
    "Rule",
    "Term",
    "TerminalSpec",
    "default_is_ident",
    "load_grammar",
]

# Item kinds: plain ints so that the generator's hot loop dispatches on a small int compare.
REF, TERM, REPEAT, GROUP = 0, 1, 2, 3

_IDENT_NAMES = frozenset({"NAME", "ID", "IDENTIFIER", "CNAME", "IDSTRING"})


class GrammarLoadError(ValueError):
    """A grammar could not be read: missing file, syntax error, unknown start rule (one-line message)."""


def default_is_ident(name: str) -> bool:
    """Default identifier predicate: NAME, ID, IDENTIFIER, CNAME, IDSTRING, or containing NAME/IDENT."""
    bare = name.lstrip("_")
    return bare in _IDENT_NAMES or "NAME" in bare or "IDENT" in bare


@dataclass(eq=False)
class TerminalSpec:
    """A terminal as the generator sees it.

    `kind` is one of: ``fixed`` (a plain string, `text` is its only value), ``regex`` (values are
    sampled from `regex`), ``ident`` (values come from a small pool of `regex`-matching names),
    ``declared`` (a `%declare`d terminal with no pattern: rendered as empty text, e.g. _INDENT),
    ``newline`` (the Indenter's newline terminal: rendered by the layout, not sampled).
    """

    name: str
    kind: str
    regex: str
    text: str = ""
    priority: int = 0

    def compiled(self) -> re.Pattern[str]:
        """The terminal's regex compiled (cached on first use)."""
        cached = self.__dict__.get("_compiled")
        if cached is None:
            cached = re.compile(self.regex)
            self.__dict__["_compiled"] = cached
        return cached


@dataclass(eq=False, slots=True)
class Ref:
    """A reference to a non-terminal (rule or template instance) by name."""

    name: str
    kind: int = REF


@dataclass(eq=False, slots=True)
class Term:
    """A terminal occurrence in a rule."""

    terminal: TerminalSpec
    kind: int = TERM


@dataclass(eq=False, slots=True)
class Alts:
    """Alternatives (a rule body or a parenthesised group); `uid` indexes per-bound feasibility tables."""

    seqs: tuple[tuple[Any, ...], ...]
    aliases: tuple[str | None, ...]
    uid: int = -1
    kind: int = GROUP


@dataclass(eq=False, slots=True)
class Repeat:
    """A repetition `body{lo,hi}` (`hi` None = unbounded) from `*`, `+`, `?`, `[..]`, `~ n`, `~ a..b`."""

    body: Alts
    lo: int
    hi: int | None
    uid: int = -1
    kind: int = REPEAT


@dataclass(eq=False, slots=True)
class Rule:
    """A non-terminal: its name and its alternatives (templates appear instantiated, one Rule each)."""

    name: str
    alts: Alts


@dataclass(frozen=True)
class IndenterSpec:
    """An Indenter setup detected in the grammar: rendered as real newlines + 4 spaces per level."""

    newline: str
    indent: str
    dedent: str
    open_parens: tuple[str, ...]
    close_parens: tuple[str, ...]

    def make_postlex(self) -> Indenter:
        """A lark Indenter postlexer for validating parses of rendered text."""
        spec = self

        class _Indenter(Indenter):
            NL_type = spec.newline
            OPEN_PAREN_types = list(spec.open_parens)
            CLOSE_PAREN_types = list(spec.close_parens)
            INDENT_type = spec.indent
            DEDENT_type = spec.dedent
            tab_len = 8

        return _Indenter()


@dataclass(eq=False)
class Grammar:
    """A Lark grammar modelled for bounded generation.

    Invariants: every `Ref` names a key of `rules`; every rule body is an `Alts`; `alts_table`
    and `repeat_table` list every `Alts`/`Repeat` node at the index given by its `uid`.
    """

    rules: dict[str, Rule]
    start: str
    terminals: dict[str, TerminalSpec]
    keywords: frozenset[str]
    keywords_ci: frozenset[str]
    space: str | None
    indenter: IndenterSpec | None
    lex_regexes: tuple[re.Pattern[str], ...]
    alts_table: list[Alts]
    repeat_table: list[Repeat]
    source_text: str
    source_path: str | None
    lark: Lark | None = None
    _parsers: dict[str, Lark] = field(default_factory=dict)
    _space_cache: dict[tuple[str, str], bool] = field(default_factory=dict)
    _variants: dict[str, Grammar] = field(default_factory=dict)

    def outranks(self, name: str, text: str) -> bool:
        """True when a terminal of higher priority than `name` also matches all of `text`.

        lark's lexers prefer higher-priority terminals, so such a `text` would not lex as `name`.
        """
        mine = self.terminals[name].priority
        for other in self.terminals.values():
            if other.priority > mine and other.name != name and other.kind in ("fixed", "regex", "ident"):
                m = other.compiled().match(text)
                if m is not None and m.end() == len(text):
                    return True
        return False

    def with_start(self, start: str) -> Grammar:
        """The same grammar with another start rule; raises GrammarLoadError if it is unknown."""
        if start not in self.rules:
            known = ", ".join(sorted(self._plain()))
            raise GrammarLoadError(f"unknown start rule {start!r} (rules: {known})")
        clone = self._variants.get(start)
        if clone is None:
            # shares every table and cache (including `_variants`) with this grammar
            clone = Grammar(**{k: getattr(self, k) for k in self.__dataclass_fields__})
            clone.start = start
            self._variants[start] = clone
        return clone

    def _plain(self) -> list[str]:
        return [n for n in self.rules if "{" not in n]

    def is_keyword(self, text: str) -> bool:
        """True when `text` equals a literal terminal of the grammar (so it would lex as that literal)."""
        return text in self.keywords or text.lower() in self.keywords_ci

    def needs_space(self, left: str, right: str) -> bool:
        """True when `left` + `right` might lex differently from the two tokens `left`, `right`.

        Conservative: some terminal's regex, matched where `left` starts, reaches into `right`.
        """
        key = (left, right)
        hit = self._space_cache.get(key)
        if hit is None:
            joined = left + right
            cut = len(left)
            hit = False
            for rx in self.lex_regexes:
                m = rx.match(joined)
                if m is not None and m.end() > cut:
                    hit = True
                    break
            if len(self._space_cache) > 200_000:  # keep memory bounded on long campaigns
                self._space_cache.clear()
            self._space_cache[key] = hit
        return hit

    def parser(self, start: str | None = None) -> Lark:
        """A lark parser for validating rendered text from rule `start` (LALR when possible, else Earley)."""
        start = start or self.start
        parser = self._parsers.get(start)
        if parser is not None:
            return parser
        if self.lark is not None and start in self.lark.options.start:
            parser = self.lark
        else:
            parser = self._build_parser(start)
        self._parsers[start] = parser
        return parser

    def _build_parser(self, start: str) -> Lark:
        common: dict[str, Any] = {"start": start}
        if self.source_path is not None:
            common["source_path"] = self.source_path
            common["import_paths"] = [os.path.dirname(os.path.abspath(self.source_path))]
        attempts: list[dict[str, Any]] = [{"parser": "lalr"}, {"parser": "earley", "lexer": "basic"}]
        if self.indenter is None:
            attempts.append({"parser": "earley"})
        last: Exception | None = None
        for extra in attempts:
            kw = dict(common, **extra)
            if self.indenter is not None:
                kw["postlex"] = self.indenter.make_postlex()
            try:
                return Lark(self.source_text, **kw)
            except LarkError as exc:  # e.g. LALR conflicts: fall back to Earley
                last = exc
        raise GrammarLoadError(f"cannot build a parser for start rule {start!r}: {_one_line(last)}")

    def parse(self, text: str, start: str | None = None) -> Any:
        """Parse `text` with the validating parser (raises lark's UnexpectedInput when invalid)."""
        return self.parser(start).parse(text)

    def rule_names(self) -> list[str]:
        """Names of the grammar's rules (template instances excluded), in definition order."""
        return self._plain()


def _one_line(exc: BaseException | None) -> str:
    text = " ".join(str(exc).split()) if exc is not None else "unknown error"
    return text[:300]


def load_grammar(
    source: str | os.PathLike[str] | Lark,
    *,
    start: str | None = None,
    is_ident: Callable[[str], bool] | Collection[str] | None = None,
) -> Grammar:
    """Read a Lark grammar (a `.lark` path, grammar text containing a newline, or a `Lark` object).

    `is_ident` decides which terminals count for the idents bound: a predicate on terminal names,
    a collection of names, or None for `default_is_ident`.  Raises GrammarLoadError (one line).
    """
    lark_obj: Lark | None = None
    source_path: str | None = None
    if isinstance(source, Lark):
        lark_obj = source
        text = source.source_grammar
        source_path = source.options.source_path if os.path.exists(str(source.options.source_path)) else None
        lark_grammar = source.grammar
        default_start = source.options.start[0]
    else:
        if isinstance(source, str) and "\n" in source:
            text = source
        else:
            path = Path(source)
            if path.is_dir():
                raise GrammarLoadError(f"grammar path is a directory, not a .lark file: {path}")
            if not path.is_file():
                raise GrammarLoadError(f"grammar file not found: {path}")
            try:
                text = path.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise GrammarLoadError(f"cannot read grammar file {path}: {_one_line(exc)}") from None
            source_path = str(path)
        import_paths = [os.path.dirname(os.path.abspath(source_path))] if source_path else []
        try:
            lark_grammar, _ = _lark_load_grammar(text, source_path or "<string>", import_paths, False)
        except (LarkError, AssertionError, OSError) as exc:
            where = f" in {source_path}" if source_path else ""
            raise GrammarLoadError(f"grammar error{where}: {_one_line(exc)}") from None
        default_start = "start"
    if callable(is_ident):
        pred = is_ident
    elif is_ident is None:
        pred = default_is_ident
    else:
        names = frozenset(is_ident)
        pred = names.__contains__
    builder = _Builder(lark_grammar, pred)
    where = f" in {source_path}" if source_path else ""
    try:
        rules, _terms, keywords, keywords_ci, ignore_regexes, declared = builder.build()
    except (LarkError, AssertionError) as exc:
        raise GrammarLoadError(f"unsupported grammar: {_one_line(exc)}") from None
    except re.error as exc:  # an %ignore'd terminal's regex (compiled while building)
        raise GrammarLoadError(f"grammar error{where}: invalid regular expression: {_one_line(exc)}") from None
    chosen = start or default_start
    plain = [n for n in rules if "{" not in n]
    if not plain:
        raise GrammarLoadError(f"grammar error{where}: the grammar defines no rules")
    if chosen not in rules:
        raise GrammarLoadError(f"unknown start rule {chosen!r} (rules: {', '.join(sorted(plain))})")
    builder.rename_anonymous(chosen)
    terminals = builder.terminals
    for spec in terminals.values():
        try:
            spec.compiled()
        except re.error as exc:  # lark only compiles terminal regexes when it builds a lexer
            raise GrammarLoadError(
                f"grammar error{where}: terminal {spec.name} has an invalid regular expression "
                f"/{spec.regex}/: {_one_line(exc)}"
            ) from None
    lex = [t.compiled() for t in terminals.values() if t.kind in ("fixed", "regex", "ident", "newline")]
    lex.extend(ignore_regexes)
    space = _pick_space(ignore_regexes)
    indenter = _detect_indenter(terminals, declared)
    if indenter is not None:
        terminals[indenter.newline].kind = "newline"
    alts_table, repeat_table = _number_nodes(rules)
    return Grammar(
        rules=rules,
        start=chosen,
        terminals=terminals,
        keywords=keywords,
        keywords_ci=keywords_ci,
        space=space,
        indenter=indenter,
        lex_regexes=tuple(lex),
        alts_table=alts_table,
        repeat_table=repeat_table,
        source_text=text,
        source_path=source_path,
        lark=lark_obj,
    )


def _pick_space(ignore_regexes: list[re.Pattern[str]]) -> str | None:
    # The separator must itself be ignorable, so that inserting it never changes the token stream.
    for candidate in (" ", "\t", "\n", "\r\n"):
        if any(rx.fullmatch(candidate) for rx in ignore_regexes):
            return candidate
    return None


def _detect_indenter(terminals: dict[str, TerminalSpec], declared: list[str]) -> IndenterSpec | None:
    indent = next((d for d in declared if "INDENT" in d and "DEDENT" not in d), None)
    dedent = next((d for d in declared if "DEDENT" in d), None)
    if indent is None or dedent is None:
        return None
    newline = next(
        (n for n in terminals if n.lstrip("_") in ("NEWLINE", "NL") or "NEWLINE" in n),
        None,
    )
    if newline is None or terminals[newline].kind == "fixed" and "\n" not in terminals[newline].text:
        return None
    opens = tuple(n for n, t in terminals.items() if t.kind == "fixed" and t.text in ("(", "[", "{"))
    closes = tuple(n for n, t in terminals.items() if t.kind == "fixed" and t.text in (")", "]", "}"))
    return IndenterSpec(newline, indent, dedent, opens, closes)


def _number_nodes(rules: dict[str, Rule]) -> tuple[list[Alts], list[Repeat]]:
    alts_table: list[Alts] = []
    repeat_table: list[Repeat] = []

    def visit(alts: Alts) -> None:
        if alts.uid >= 0:
            return
        alts.uid = len(alts_table)
        alts_table.append(alts)
        for seq in alts.seqs:
            for item in seq:
                if item.kind == GROUP:
                    visit(item)
                elif item.kind == REPEAT:
                    item.uid = len(repeat_table)
                    repeat_table.append(item)
                    visit(item.body)

    for rule in rules.values():
        visit(rule.alts)
    return alts_table, repeat_table


_PATTERN_TRANSFORMER = PrepareLiterals() * TerminalTreeToPattern()


class _Builder:
    """Walks lark's `rule_defs`/`term_defs` trees into the bonsai model, instantiating templates."""

    def __init__(self, lark_grammar: Any, is_ident: Callable[[str], bool]) -> None:
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
        by_pattern = {}
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
                return Term(self._anon_terminal(v.children[0]))
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
            kind = "ident" if self.is_ident(name) else "regex"
            spec = TerminalSpec(name, kind, pattern.to_regexp())
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
                spec = TerminalSpec(name, "regex", pattern.to_regexp())
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


def iter_items(alts: Alts) -> Iterator[Any]:
    """Every item directly inside `alts` (one level: groups and repeats are yielded, not entered)."""
    for seq in alts.seqs:
        yield from seq
