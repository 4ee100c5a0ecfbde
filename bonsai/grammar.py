"""A Lark grammar as bonsai uses it: loaded and checked once, then asked about lexing and parsing.

`load_grammar` reads a `.lark` file, grammar text or a `Lark` object into a `Grammar`: the EBNF model
of `bonsai.ebnf` (built from lark's own analysis by `bonsai.lark_model`) with what rendering and
validation need: keywords, the separator `%ignore` allows, an Indenter layout, a validating parser.
Every problem with a grammar is a one-line GrammarLoadError.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Lark
from lark import logger as lark_logger
from lark.exceptions import LarkError
from lark.indenter import Indenter

from bonsai.ebnf import Alts, Repeat, Rule, TerminalSpec, number_nodes
from bonsai.identifiers import identifier_like
from bonsai.lark_model import ModelBuilder, read_lark_grammar

__all__ = [
    "Grammar",
    "GrammarLoadError",
    "IndenterSpec",
    "default_is_ident",
    "is_ident_by_default",
    "load_grammar",
]

_IDENT_NAMES = frozenset({"NAME", "ID", "IDENTIFIER", "CNAME", "IDSTRING"})


class GrammarLoadError(ValueError):
    """A grammar could not be read: missing file, syntax error, unknown start rule (one-line message)."""


def default_is_ident(name: str) -> bool:
    """Identifier by name: NAME, ID, IDENTIFIER, CNAME, IDSTRING, or containing NAME/IDENT."""
    bare = name.lstrip("_")
    return bare in _IDENT_NAMES or "NAME" in bare or "IDENT" in bare


def is_ident_by_default(name: str | None, regex: str) -> bool:
    """The default rule for the idents bound: a regex terminal named as an identifier (`default_is_ident`), or
    one, named or anonymous, whose regex is identifier-like (`bonsai.identifiers.identifier_like`: unboundedly
    many names of word characters starting with a letter or `_`, such as lark.lark's RULE and TOKEN)."""
    return (name is not None and default_is_ident(name)) or identifier_like(regex)


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
    _conflicted: set[str] = field(default_factory=set)  # starts whose LALR parser has shift/reduce conflicts
    _fallbacks: dict[str, Lark] = field(default_factory=dict)  # their Earley parsers, built on first need
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

        Conservative: some terminal's regex, matched where `left` starts, reaches into `right`, or none
        ends exactly where `left` does once `right` follows (a lookahead in the left token's pattern:
        lark's Python `STRING` refuses to match an empty string that two more quotes follow, so an empty
        string then `"a"`, joined, would lex as the start of a triple-quoted one).
        """
        key = (left, right)
        hit = self._space_cache.get(key)
        if hit is None:
            joined = left + right
            cut = len(left)
            hit, ends_at_cut = False, False
            for rx in self.lex_regexes:
                m = rx.match(joined)
                if m is not None and m.end() > cut:
                    hit = True
                    break
                ends_at_cut = ends_at_cut or (m is not None and m.end() == cut)
            hit = hit or not ends_at_cut
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

    def _build_parser(self, start: str, earley_only: bool = False) -> Lark:
        common: dict[str, Any] = {"start": start}
        if self.source_path is not None:
            common["source_path"] = self.source_path
            common["import_paths"] = [os.path.dirname(os.path.abspath(self.source_path))]
        attempts: list[dict[str, Any]] = [{"parser": "earley", "lexer": "basic"}]
        if not earley_only:
            attempts.insert(0, {"parser": "lalr"})
        if self.indenter is None:
            attempts.append({"parser": "earley"})
        last: Exception | None = None
        for extra in attempts:
            kw = dict(common, **extra)
            if self.indenter is not None:
                kw["postlex"] = self.indenter.make_postlex()
            try:
                with _shift_reduce_conflicts() as conflicts:
                    parser = Lark(self.source_text, **kw)
            except LarkError as exc:  # e.g. reduce/reduce conflicts: fall back to Earley
                last = exc
                continue
            if conflicts:
                # lark resolves them by shifting: the parser then rejects some sentences of the grammar (python.lark's
                # `case C(x, k=v)`), which `parse` hands to Earley before calling them invalid
                self._conflicted.add(start)
            return parser
        raise GrammarLoadError(f"cannot build a parser for start rule {start!r}: {_one_line(last)}")

    def parse(self, text: str, start: str | None = None) -> Any:
        """Parse `text` with the validating parser (raises lark's UnexpectedInput when invalid).

        When the LALR parser has shift/reduce conflicts, a text it rejects is parsed again with Earley,
        which accepts every sentence of the grammar, before it counts as invalid.
        """
        start = start or self.start
        try:
            return self.parser(start).parse(text)
        except LarkError as exc:
            if start not in self._conflicted:
                raise
            fallback = self._fallbacks.get(start)
            if fallback is None:
                fallback = self._fallbacks[start] = self._build_parser(start, earley_only=True)
            try:
                return fallback.parse(text)
            except LarkError:
                raise exc from None  # LALR's message: where the text stops fitting the grammar

    def rule_names(self) -> list[str]:
        """Names of the grammar's rules (template instances excluded), in definition order."""
        return self._plain()


@contextmanager
def _shift_reduce_conflicts() -> Iterator[list[str]]:
    """Within the block, the shift/reduce conflicts lark's LALR analysis resolves (it logs them at debug level)."""
    found: list[str] = []

    class _Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "Shift/Reduce conflict" in record.getMessage():
                found.append(record.getMessage())

    saved = lark_logger.handlers[:], lark_logger.level, lark_logger.propagate
    # heard here only: lark's own stderr handler, or an application's logging set-up, would print every debug line
    lark_logger.handlers = [_Collect(logging.DEBUG)]
    lark_logger.setLevel(logging.DEBUG)
    lark_logger.propagate = False
    try:
        yield found
    finally:
        lark_logger.handlers, level, lark_logger.propagate = saved
        lark_logger.setLevel(level)


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
    a collection of names (only those: `--idents`), or None for `is_ident_by_default` (by name or by
    an identifier-like regex).  Raises GrammarLoadError (one line).
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
            lark_grammar = read_lark_grammar(text, source_path, import_paths)
        except (LarkError, AssertionError, OSError) as exc:
            where = f" in {source_path}" if source_path else ""
            raise GrammarLoadError(f"grammar error{where}: {_one_line(exc)}") from None
        default_start = "start"
    builder = ModelBuilder(lark_grammar, is_ident_by_default if is_ident is None else _by_name_only(is_ident))
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
    alts_table, repeat_table = number_nodes(rules)
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


def _by_name_only(chosen: Callable[[str], bool] | Collection[str]) -> Callable[[str | None, str], bool]:
    """The named terminals `chosen` names (a predicate or names): it replaces the default rule, regexes included."""
    by_name = chosen if callable(chosen) else frozenset(chosen).__contains__

    def is_ident(name: str | None, regex: str) -> bool:
        return name is not None and by_name(name)

    return is_ident


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
