"""The per-grammar core every generator over one grammar shares: depth-bound feasibility frames and terminal values.

None of it depends on the bounds (a frame depends on which rules are blocked, not on why), so generators
for every node of a lattice share one core, and its caches, through `core_of`.
"""

from __future__ import annotations

import weakref

from bonsai.analysis import derivation_costs, productive_without, seq_ok
from bonsai.ebnf import Alts, Repeat
from bonsai.grammar import Grammar
from bonsai.terminal_values import TerminalValues

__all__ = ["Frame", "GrammarCore", "core_of"]


class Frame:
    """Feasibility under a set of blocked non-terminals (those already at the depth bound on the path).

    An option is allowed iff it derives a terminal string without expanding a blocked non-terminal;
    then it also has a derivation that repeats no non-terminal on any path, so it fits the depth bound.
    """

    __slots__ = ("blocked", "productive", "allowed", "min_alt", "body_ok", "minimal", "core")

    def __init__(self, core: GrammarCore, blocked: frozenset[str], minimal: bool = False) -> None:
        self.core = core
        self.blocked = blocked
        self.minimal = minimal
        self.productive = productive_without(core.grammar, blocked)
        n_alts = len(core.grammar.alts_table)
        self.allowed: list[tuple[int, ...] | None] = [None] * n_alts
        self.min_alt: list[int] = [-1] * n_alts
        self.body_ok: list[bool | None] = [None] * len(core.grammar.repeat_table)

    def alts(self, alts: Alts) -> tuple[int, ...]:
        """Allowed alternative indices of `alts` (cached); the first listed is the cheapest."""
        got = self.allowed[alts.uid]
        if got is None:
            if self.minimal:
                got = (self.core.global_min_alt[alts.uid],)
            else:
                ok = [i for i, seq in enumerate(alts.seqs) if seq_ok(seq, self.productive)]
                ok.sort(key=lambda i: self.core.alt_cost[alts.uid][i])
                got = tuple(ok)
            self.allowed[alts.uid] = got
            self.min_alt[alts.uid] = got[0] if got else -1
        return got

    def repeat_ok(self, rep: Repeat) -> bool:
        """Whether one more iteration of `rep`'s body is derivable here (False in minimal mode)."""
        got = self.body_ok[rep.uid]
        if got is None:
            got = (not self.minimal) and bool(self.alts(rep.body))
            self.body_ok[rep.uid] = got
        return got



class GrammarCore:
    """Bound-independent analysis of a grammar, shared by all generators over it (caches grow lazily)."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        # raises GrammarLoadError for a rule that cannot terminate, before anything else is built
        self.rule_cost, self.alt_cost, self.global_min_alt = derivation_costs(grammar)
        self.frames: dict[frozenset[str], Frame] = {}
        self.steps: dict[tuple[frozenset[str], str], tuple[frozenset[str], Frame]] = {}
        self.minimal = Frame(self, frozenset(), minimal=True)
        self.values = TerminalValues(grammar)

    def frame(self, blocked: frozenset[str]) -> Frame:
        """The (cached) frame for a blocked set."""
        fr = self.frames.get(blocked)
        if fr is None:
            fr = Frame(self, blocked)
            self.frames[blocked] = fr
        return fr

    def step(self, blocked: frozenset[str], rule: str) -> tuple[frozenset[str], Frame]:
        """Blocked set and frame after `rule` reaches the depth bound under `blocked` (cached)."""
        key = (blocked, rule)
        got = self.steps.get(key)
        if got is None:
            nb = blocked | {rule}
            got = (nb, self.frame(nb))
            self.steps[key] = got
        return got



_CORES: weakref.WeakKeyDictionary[Grammar, GrammarCore] = weakref.WeakKeyDictionary()


def core_of(grammar: Grammar) -> GrammarCore:
    """The one core of `grammar` (made on first use, dropped with the grammar)."""
    core = _CORES.get(grammar)
    if core is None:
        core = _CORES[grammar] = GrammarCore(grammar)
    return core
