"""Expanding a derivation tree from a choice sequence within bonsai bounds: one decode of the generator.

Choice encoding (absolute and bound-independent; each decision consumes exactly one int):

* a rule or group with k > 1 alternatives: the alternative index (a prefix value v means v % k);
* a repetition whose count is not fixed by the grammar: the iteration count;
* an identifier terminal: an index into the terminal's name pool (v % m);
* a regex terminal: a sample index (0 is the shortest string; v > 0 seeds a pseudo-random sample).

Which decisions occur depends only on the tree built so far, never on the bounds.  When a bound
forbids the value read, the generator takes the smallest allowed option instead and records the
value it took.  Hence the key invariant: realized choices decoded under bounds B give a tree T,
and decoding them under any B' >= B gives T again (a value allowed under B is allowed under B').
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from bonsai.bounds import Bounds
from bonsai.core import Frame, GrammarCore
from bonsai.ebnf import GROUP, REF, REPEAT, Alts, Repeat
from bonsai.tree import RepeatNode, RuleNode, Token, Tree

__all__ = ["FRESH_DEPTH_SCALE", "SAMPLE_SPACE", "Exhausted", "Expansion"]

SAMPLE_SPACE = 64
"""Fresh regex-terminal choices are drawn from range(SAMPLE_SPACE): a small, cache-friendly value set."""

FRESH_DEPTH_SCALE = 8
"""Fresh draws at a node with p rules above it take the smallest option with probability p/(p+SCALE)
(else uniform over the allowed options): near the root every option is likely, deep down the
tree closes, so random inputs stay small even in long precedence chains."""


class Expansion:
    """One decode: reads choices, falls back to the rng past their end, records realized choices."""

    __slots__ = (
        "core",
        "values",
        "choices",
        "n",
        "pos",
        "rng",
        "out",
        "counts",
        "m",
        "items",
        "d",
        "nodes",
        "budget",
        "path",
    )

    def __init__(self, core: GrammarCore, bounds: Bounds, node_budget: int, choices: Sequence[int],
                 rng: random.Random | None) -> None:
        self.core = core
        self.values = core.values
        self.choices = choices
        self.n = len(choices)
        self.pos = 0
        self.rng = rng
        self.out: list[int] = []
        self.counts: dict[str, int] = {}
        self.m = bounds.idents
        self.items = bounds.items
        self.d = bounds.depth
        self.nodes = 0
        self.path = 0
        self.budget = node_budget

    def _read(self) -> int | None:
        if self.pos < self.n:
            v = self.choices[self.pos]
            self.pos += 1
            return int(v)
        if self.rng is None:
            raise Exhausted
        return None

    def _smallest(self) -> bool:
        """Whether a fresh draw takes the smallest option (see FRESH_DEPTH_SCALE and the node budget)."""
        if self.nodes > self.budget:
            return True
        p = self.path
        return self.rng.random() * (p + FRESH_DEPTH_SCALE) < p  # type: ignore[union-attr]  # set while generating

    def rule(self, name: str, frame: Frame, blocked: frozenset[str]) -> RuleNode:
        """Expand rule `name`; past the depth bound only what can still finish is allowed (`frame`)."""
        counts = self.counts
        c = counts.get(name, 0) + 1
        if not frame.minimal:
            if c > self.d:
                frame = self.core.minimal
            elif c == self.d:
                blocked, frame = self.core.step(blocked, name)
        alts = self.core.grammar.rules[name].alts
        if not frame.alts(alts):
            frame = self.core.minimal  # no way to finish within the depth bound: smallest tree instead
        counts[name] = c
        self.nodes += 1
        self.path += 1
        children: list[Tree] = []
        idx = self.alt(alts, frame)
        self.seq(alts.seqs[idx], frame, blocked, children)
        counts[name] = c - 1
        self.path -= 1
        return RuleNode(name, tuple(children), alts.aliases[idx])

    def alt(self, alts: Alts, frame: Frame) -> int:
        """Choose an alternative of `alts` allowed in `frame` (no choice read when there is one)."""
        allowed = frame.alts(alts)
        k = len(alts.seqs)
        if k == 1:
            return 0
        v = self._read()
        if v is None:
            rng = self.rng
            if len(allowed) == 1 or self._smallest():
                idx = allowed[0]
            else:
                idx = allowed[rng.randrange(len(allowed))]  # type: ignore[union-attr]  # set while generating
        else:
            idx = v % k
            if idx not in allowed:
                idx = allowed[0]
        self.out.append(idx)
        return idx

    def seq(self, seq: tuple, frame: Frame, blocked: frozenset[str], out: list[Tree]) -> None:
        """Expand the items of one alternative, appending their trees to `out`."""
        for item in seq:
            kind = item.kind
            if kind == REF:
                out.append(self.rule(item.name, frame, blocked))
            elif kind == GROUP:
                self.seq(item.seqs[self.alt(item, frame)], frame, blocked, out)
            elif kind == REPEAT:
                out.append(self.repeat(item, frame, blocked))
            else:
                out.append(self.token(item.terminal))

    def repeat(self, rep: Repeat, frame: Frame, blocked: frozenset[str]) -> RepeatNode:
        """Expand a repetition: its count (within the items bound), then each iteration."""
        lo, hi = rep.lo, rep.hi
        if hi is not None and lo == hi:
            count = lo  # fixed by the grammar (`~ k`): no decision, nothing consumed
        else:
            cap = self.items if hi is None else min(hi, self.items)
            top = max(lo, cap) if frame.repeat_ok(rep) else lo
            v = self._read()
            if v is None:
                rng = self.rng
                if self._smallest():
                    count = lo
                else:
                    count = rng.randint(lo, top)  # type: ignore[union-attr]  # set while generating
            elif lo <= v <= top:
                count = v
            else:
                count = lo + v % (top - lo + 1)
            self.out.append(count)
        children: list[Tree] = []
        body = rep.body
        for _ in range(count):
            self.seq(body.seqs[self.alt(body, frame)], frame, blocked, children)
        return RepeatNode(count, tuple(children))

    def token(self, term: object) -> Token:
        """A leaf for terminal `term`: its fixed text, a pool name or a regex sample."""
        self.nodes += 1
        kind = term.kind  # type: ignore[attr-defined]  # a grammar terminal, typed object here
        name = term.name  # type: ignore[attr-defined]  # a grammar terminal, typed object here
        if kind == "fixed":
            return Token(name, term.text)  # type: ignore[attr-defined]  # a grammar terminal, typed object here
        if kind == "ident":
            v = self._read()
            idx = self.rng.randrange(self.m) if v is None else v % self.m  # type: ignore[union-attr]  # set while generating
            self.out.append(idx)
            return Token(name, self.values.ident(name, idx))
        if kind == "regex":
            v = self._read()
            if v is None:
                v = self.rng.randrange(SAMPLE_SPACE)  # type: ignore[union-attr]  # set while generating
            elif v < 0:
                v = -v
            self.out.append(v)
            return Token(name, self.values.sample(name, v))
        if kind == "newline":
            return Token(name, "\n")
        return Token(name, "")  # %declare'd terminal (e.g. _INDENT): the layout renders it


class Exhausted(Exception):
    """Raised when choices run out and no rng was given."""
