"""The EBNF model of a grammar that bounded generation walks: rules, alternatives, repetitions, terminals.

Repetitions stay visible (lark's `compile` would flatten them into helper rules), so that the items
bound can be applied to them.  Plain data: nothing here knows lark (see `bonsai.lark_model`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

__all__ = [
    "GROUP",
    "REF",
    "REPEAT",
    "TERM",
    "Alts",
    "Ref",
    "Repeat",
    "Rule",
    "Term",
    "TerminalSpec",
    "iter_items",
    "number_nodes",
]

# Item kinds: plain ints so that the generator's hot loop dispatches on a small int compare.
REF, TERM, REPEAT, GROUP = 0, 1, 2, 3


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
    kind: ClassVar[int] = REF


@dataclass(eq=False, slots=True)
class Term:
    """A terminal occurrence in a rule."""

    terminal: TerminalSpec
    kind: ClassVar[int] = TERM


@dataclass(eq=False, slots=True)
class _Numbered:
    """An item the generator keeps per-bound tables for, at index `uid` (-1 until `number_nodes` sets it)."""

    uid: int = field(default=-1, kw_only=True)


@dataclass(eq=False, slots=True)
class Alts(_Numbered):
    """Alternatives (a rule body or a parenthesised group); `uid` indexes per-bound feasibility tables."""

    seqs: tuple[tuple[Any, ...], ...]
    aliases: tuple[str | None, ...]
    kind: ClassVar[int] = GROUP


@dataclass(eq=False, slots=True)
class Repeat(_Numbered):
    """A repetition `body{lo,hi}` (`hi` None = unbounded) from `*`, `+`, `?`, `[..]`, `~ n`, `~ a..b`."""

    body: Alts
    lo: int
    hi: int | None
    kind: ClassVar[int] = REPEAT


@dataclass(eq=False, slots=True)
class Rule:
    """A non-terminal: its name and its alternatives (templates appear instantiated, one Rule each)."""

    name: str
    alts: Alts


def number_nodes(rules: dict[str, Rule]) -> tuple[list[Alts], list[Repeat]]:
    """Give every `Alts` and `Repeat` reachable from `rules` its `uid`; returns them listed by uid."""
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


def iter_items(alts: Alts) -> Iterator[Any]:
    """Every item directly inside `alts` (one level: groups and repeats are yielded, not entered)."""
    for seq in alts.seqs:
        yield from seq
