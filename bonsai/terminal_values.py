"""Texts for a grammar's terminals: regex samples by sample index, identifier names by pool index.

Both depend on the grammar alone, never on the bounds, so that the same choice gives the same text
under any bounds (the generator's key invariant); both are cached per grammar.
"""

from __future__ import annotations

import random

from bonsai.grammar import Grammar
from bonsai.regex_sampler import RegexSampler

__all__ = ["TerminalValues"]


class TerminalValues:
    """The values of one grammar's regex and identifier terminals (caches grow lazily, bounded)."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.samplers: dict[str, RegexSampler] = {}
        self.pools: dict[str, list[str]] = {}
        self.samples: dict[tuple[str, int], str] = {}

    def sampler(self, name: str) -> RegexSampler:
        """The regex sampler of terminal `name` (cached)."""
        s = self.samplers.get(name)
        if s is None:
            s = RegexSampler(self.grammar.terminals[name].regex)
            self.samplers[name] = s
        return s

    def sample(self, name: str, index: int) -> str:
        """Text for regex terminal `name` at sample `index`: fully matched by the terminal, no keyword."""
        key = (name, index)
        text = self.samples.get(key)
        if text is None:
            text = self._sample(name, index)
            if len(self.samples) > 100_000:
                self.samples.clear()
            self.samples[key] = text
        return text

    def _valid(self, name: str, text: str) -> bool:
        rx = self.grammar.terminals[name].compiled()
        m = rx.match(text)
        # `match`, not `fullmatch`: the lexer takes the pattern's preferred match, which must be all.
        return (
            bool(text)
            and m is not None
            and m.end() == len(text)
            and not self.grammar.is_keyword(text)
            and not self.grammar.outranks(name, text)
        )

    def _sample(self, name: str, index: int) -> str:
        sampler = self.sampler(name)
        if index > 0:
            rng = random.Random(index)
            for _ in range(16):
                text = sampler.sample(rng)
                if self._valid(name, text):
                    return text
        text = sampler.minimal()
        if self._valid(name, text):
            return text
        rng = random.Random(-1 - index)
        for _ in range(200):
            cand = sampler.sample(rng)
            if self._valid(name, cand):
                return cand
        return text  # no valid sample found: the property tests report such grammars

    def ident(self, name: str, index: int) -> str:
        """The `index`-th name of identifier terminal `name`'s pool (same list under any bounds)."""
        pool = self.pools.get(name)
        if pool is None:
            pool = self.pools[name] = []
        while len(pool) <= index:
            nxt = self._next_ident(name, pool)
            if nxt is None:
                return pool[index % len(pool)] if pool else self.sample(name, index)
            pool.append(nxt)
        return pool[index]

    def _next_ident(self, name: str, pool: list[str]) -> str | None:
        seen = set(pool)
        for base in _base_names():
            # one spelling per base name, the first this terminal accepts: the k-th name of every
            # identifier terminal is then the same name (ID `b`, IDSTRING `"b"`), so at m names a
            # program uses m distinct names across terminals, and a quoted class name can refer
            # to a declared one
            cand = next((c for c in (base, base.capitalize(), base.upper(), f'"{base}"', f"'{base}'", f"_{base}")
                         if self._valid(name, c)), None)
            if cand is not None and cand not in seen:
                return cand
        rng = random.Random(len(pool))
        for _ in range(500):
            cand = self.sampler(name).sample(rng)
            if cand not in seen and self._valid(name, cand):
                return cand
        return None



def _base_names() -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    names = list(letters)
    names.extend(a + b for a in letters for b in letters)
    return names
