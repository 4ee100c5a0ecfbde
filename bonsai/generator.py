"""The bounded grammar generator: decodes choice sequences into derivation trees within bonsai bounds.

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
import re._constants as sre_c
import re._parser as sre_parse
import string
import sys
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from bonsai.bounds import Bounds, Measure, measure
from bonsai.grammar import GROUP, REF, REPEAT, Alts, Grammar, Repeat
from bonsai.tree import RepeatNode, RuleNode, Token, Tree, render
from mu2py.inputs.source import Decoded

__all__ = ["BoundedGenerator", "Sample"]

SAMPLE_SPACE = 64
"""Fresh regex-terminal choices are drawn from range(SAMPLE_SPACE): a small, cache-friendly value set."""

FRESH_DEPTH_SCALE = 8
"""Fresh draws at a node with p rules above it take the smallest option with probability p/(p+SCALE)
(else uniform over the allowed options): near the root every option is likely, deep down the
tree closes, so random inputs stay small even in long precedence chains."""

DEFAULT_NODE_BUDGET = 4000
"""Past this many nodes, *fresh* random decisions take the smallest option (prefix values still rule)."""


@dataclass(frozen=True)
class Sample:
    """One generated input: its derivation tree, its text and the realized choices that rebuild it."""

    tree: Tree
    text: str
    choices: tuple[int, ...]


class _Frame:
    """Feasibility under a set of blocked non-terminals (those already at the depth bound on the path).

    An option is allowed iff it derives a terminal string without expanding a blocked non-terminal;
    then it also has a derivation that repeats no non-terminal on any path, so it fits the depth bound.
    """

    __slots__ = ("blocked", "productive", "allowed", "min_alt", "body_ok", "minimal", "core")

    def __init__(self, core: _Core, blocked: frozenset[str], minimal: bool = False) -> None:
        self.core = core
        self.blocked = blocked
        self.minimal = minimal
        self.productive = core.productive_without(blocked)
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
                ok = [i for i, seq in enumerate(alts.seqs) if self.core.seq_ok(seq, self.productive)]
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


class _Core:
    """Bound-independent analysis of a grammar, shared by all generators over it (caches grow lazily)."""

    def __init__(self, grammar: Grammar) -> None:
        self.grammar = grammar
        self.alt_cost: list[list[float]] = []
        self.global_min_alt: list[int] = []
        self._compute_costs()
        self.frames: dict[frozenset[str], _Frame] = {}
        self.steps: dict[tuple[frozenset[str], str], tuple[frozenset[str], _Frame]] = {}
        self.minimal = _Frame(self, frozenset(), minimal=True)
        self.samplers: dict[str, RegexSampler] = {}
        self.pools: dict[str, list[str]] = {}
        self.samples: dict[tuple[str, int], str] = {}

    # --- costs and feasibility ---------------------------------------------------------------

    def _compute_costs(self) -> None:
        """Minimal derivation size of every rule (Gauss-Seidel fixpoint), then of every alternative."""
        g = self.grammar
        inf = float("inf")
        cost = {name: inf for name in g.rules}

        def item_cost(item: object) -> float:
            kind = item.kind  # type: ignore[attr-defined]
            if kind == REF:
                return cost[item.name]  # type: ignore[attr-defined]
            if kind == GROUP:
                return min((seq_cost(s) for s in item.seqs), default=inf)  # type: ignore[attr-defined]
            if kind == REPEAT:
                if item.lo == 0:  # type: ignore[attr-defined]
                    return 0
                body = min((seq_cost(s) for s in item.body.seqs), default=inf)  # type: ignore[attr-defined]
                return item.lo * body  # type: ignore[attr-defined]
            return 1

        def seq_cost(seq: tuple) -> float:
            return sum(item_cost(i) for i in seq)

        changed = True
        while changed:
            changed = False
            for name, rule in g.rules.items():
                c = 1 + min((seq_cost(s) for s in rule.alts.seqs), default=inf)
                if c < cost[name]:
                    cost[name] = c
                    changed = True
        stuck = [n for n in _reachable(g) if cost[n] == inf]
        if stuck:
            from bonsai.grammar import GrammarLoadError

            # an unproductive rule can never be completed, under any bounds: generating from it
            # would silently drop part of the grammar (or, for the start rule, produce nothing)
            names = ", ".join(repr(n) for n in stuck)
            cause = _first_cyclic(g, stuck)
            raise GrammarLoadError(
                f"rule {cause!r} cannot terminate within any bounds: every alternative recurses without a base case "
                f"(rules reachable from {g.start!r} that cannot terminate: {names})"
            )
        self.rule_cost = cost
        self.alt_cost = [[seq_cost(s) for s in alts.seqs] for alts in g.alts_table]
        self.global_min_alt = [
            min(range(len(costs)), key=costs.__getitem__) if costs else -1 for costs in self.alt_cost
        ]

    def productive_without(self, blocked: frozenset[str]) -> frozenset[str]:
        """Rules that derive a terminal string when the `blocked` rules may not be expanded."""
        rules = self.grammar.rules
        prod: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, rule in rules.items():
                if name in prod or name in blocked:
                    continue
                if any(self.seq_ok(seq, prod) for seq in rule.alts.seqs):
                    prod.add(name)
                    changed = True
        return frozenset(prod)

    def seq_ok(self, seq: tuple, prod: frozenset[str] | set[str]) -> bool:
        """Whether every item of `seq` derives a terminal string using only `prod` rules."""
        for item in seq:
            kind = item.kind
            if kind == REF:
                if item.name not in prod:
                    return False
            elif kind == GROUP:
                if not any(self.seq_ok(s, prod) for s in item.seqs):
                    return False
            elif kind == REPEAT:
                if item.lo > 0 and not any(self.seq_ok(s, prod) for s in item.body.seqs):
                    return False
        return True

    def frame(self, blocked: frozenset[str]) -> _Frame:
        """The (cached) frame for a blocked set."""
        fr = self.frames.get(blocked)
        if fr is None:
            fr = _Frame(self, blocked)
            self.frames[blocked] = fr
        return fr

    def step(self, blocked: frozenset[str], rule: str) -> tuple[frozenset[str], _Frame]:
        """Blocked set and frame after `rule` reaches the depth bound under `blocked` (cached)."""
        key = (blocked, rule)
        got = self.steps.get(key)
        if got is None:
            nb = blocked | {rule}
            got = (nb, self.frame(nb))
            self.steps[key] = got
        return got

    # --- terminal values ---------------------------------------------------------------------

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


def _reachable(grammar: Grammar) -> list[str]:
    """Rules reachable from the start rule, in breadth-first order (the start rule first)."""
    order = [grammar.start]
    seen = {grammar.start}
    i = 0
    while i < len(order):
        for ref in sorted(_refs(grammar, order[i])):
            if ref not in seen:
                seen.add(ref)
                order.append(ref)
        i += 1
    return order


def _refs(grammar: Grammar, name: str) -> set[str]:
    """Names of the rules that rule `name` refers to directly (inside groups and repetitions too)."""
    found: set[str] = set()
    stack: list[object] = [grammar.rules[name].alts]
    while stack:
        item = stack.pop()
        kind = item.kind  # type: ignore[attr-defined]
        if kind == GROUP:
            for seq in item.seqs:  # type: ignore[attr-defined]
                stack.extend(seq)
        elif kind == REPEAT:
            stack.append(item.body)  # type: ignore[attr-defined]
        elif kind == REF:
            found.add(item.name)  # type: ignore[attr-defined]
    return found


def _first_cyclic(grammar: Grammar, stuck: list[str]) -> str:
    """The first of `stuck` that lies on a cycle of stuck rules: the cause, not a rule that merely uses one."""
    members = set(stuck)
    for name in stuck:
        todo = [r for r in _refs(grammar, name) if r in members]
        seen: set[str] = set()
        while todo:
            rule = todo.pop()
            if rule == name:
                return name
            if rule not in seen:
                seen.add(rule)
                todo.extend(r for r in _refs(grammar, rule) if r in members)
    return stuck[0]


def _base_names() -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    names = list(letters)
    names.extend(a + b for a in letters for b in letters)
    return names


_CORES: weakref.WeakKeyDictionary[Grammar, _Core] = weakref.WeakKeyDictionary()


def _core(grammar: Grammar) -> _Core:
    core = _CORES.get(grammar)
    if core is None:
        core = _CORES[grammar] = _Core(grammar)
    return core


class _Run:
    """One decode: reads choices, falls back to the rng past their end, records realized choices."""

    __slots__ = (
        "core",
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

    def __init__(self, gen: BoundedGenerator, choices: Sequence[int], rng: random.Random | None) -> None:
        self.core = gen.core
        self.choices = choices
        self.n = len(choices)
        self.pos = 0
        self.rng = rng
        self.out: list[int] = []
        self.counts: dict[str, int] = {}
        self.m = gen.bounds.idents
        self.items = gen.bounds.items
        self.d = gen.bounds.depth
        self.nodes = 0
        self.path = 0
        self.budget = gen.node_budget

    def _read(self) -> int | None:
        if self.pos < self.n:
            v = self.choices[self.pos]
            self.pos += 1
            return int(v)
        if self.rng is None:
            raise _Exhausted
        return None

    def _smallest(self) -> bool:
        """Whether a fresh draw takes the smallest option (see FRESH_DEPTH_SCALE and the node budget)."""
        if self.nodes > self.budget:
            return True
        p = self.path
        return self.rng.random() * (p + FRESH_DEPTH_SCALE) < p  # type: ignore[union-attr]

    def rule(self, name: str, frame: _Frame, blocked: frozenset[str]) -> RuleNode:
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

    def alt(self, alts: Alts, frame: _Frame) -> int:
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
                idx = allowed[rng.randrange(len(allowed))]  # type: ignore[union-attr]
        else:
            idx = v % k
            if idx not in allowed:
                idx = allowed[0]
        self.out.append(idx)
        return idx

    def seq(self, seq: tuple, frame: _Frame, blocked: frozenset[str], out: list[Tree]) -> None:
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

    def repeat(self, rep: Repeat, frame: _Frame, blocked: frozenset[str]) -> RepeatNode:
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
                    count = rng.randint(lo, top)  # type: ignore[union-attr]
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
        self.nodes += 1
        kind = term.kind  # type: ignore[attr-defined]
        name = term.name  # type: ignore[attr-defined]
        if kind == "fixed":
            return Token(name, term.text)  # type: ignore[attr-defined]
        if kind == "ident":
            v = self._read()
            idx = self.rng.randrange(self.m) if v is None else v % self.m  # type: ignore[union-attr]
            self.out.append(idx)
            return Token(name, self.core.ident(name, idx))
        if kind == "regex":
            v = self._read()
            if v is None:
                v = self.rng.randrange(SAMPLE_SPACE)  # type: ignore[union-attr]
            elif v < 0:
                v = -v
            self.out.append(v)
            return Token(name, self.core.sample(name, v))
        if kind == "newline":
            return Token(name, "\n")
        return Token(name, "")  # %declare'd terminal (e.g. _INDENT): the layout renders it


class _Exhausted(Exception):
    """Raised when choices run out and no rng was given."""


class BoundedGenerator:
    """A parametric generator of grammar inputs within `bounds`; implements `mu2py.inputs.source.InputSource`.

    `decode(choices, rng).value` is the generated text; `decode_sample` also gives the tree.
    Invariants: every text parses with the grammar from `start`; the tree's measure is within
    `bounds` (items up to a grammar-forced `~ k`); realized choices re-decode to the same tree
    under any bounds >= `bounds`.
    """

    def __init__(
        self,
        grammar: Grammar,
        bounds: Bounds,
        *,
        start: str | None = None,
        node_budget: int = DEFAULT_NODE_BUDGET,
    ) -> None:
        if start is not None and start != grammar.start:
            grammar = grammar.with_start(start)
        self.grammar = grammar
        self.bounds = bounds
        self.node_budget = node_budget
        self.core = _core(grammar)

    @property
    def start(self) -> str:
        """The start rule."""
        return self.grammar.start

    def with_bounds(self, bounds: Bounds) -> BoundedGenerator:
        """The same generator (sharing all caches) under other bounds."""
        return BoundedGenerator(self.grammar, bounds, node_budget=self.node_budget)

    def ident_terminals(self) -> frozenset[str]:
        """Names of the terminals the idents bound applies to."""
        return frozenset(n for n, t in self.grammar.terminals.items() if t.kind == "ident")

    def forced_items(self) -> int:
        """The largest repetition count the grammar itself forces (`x ~ k`, `x ~ k..l`): may exceed items."""
        return max((rep.lo for rep in self.grammar.repeat_table), default=0)

    def measure(self, tree: Tree) -> Measure:
        """What `tree` uses of the bounds (identifier terminals as configured for this grammar)."""
        return measure(tree, self.ident_terminals())

    def within_bounds(self, tree: Tree) -> bool:
        """Whether `tree` respects this generator's bounds (items up to a grammar-forced count)."""
        return self.measure(tree).within(self.bounds, forced_items=self.forced_items())

    def decode_sample(self, choices: Sequence[int], rng: random.Random | None = None) -> Sample:
        """Decode `choices` (then `rng`) into a Sample; raises ValueError if choices end and rng is None."""
        run = _Run(self, choices, rng)
        limit = sys.getrecursionlimit()
        need = 200 + 8 * self.bounds.depth * len(self.grammar.rules)
        if need > limit:
            sys.setrecursionlimit(min(need, 100_000))  # pure-Python recursion: no C stack growth
        try:
            tree = run.rule(self.grammar.start, self.core.frame(frozenset()), frozenset())
        except _Exhausted:
            raise ValueError("choices exhausted and no rng given") from None
        finally:
            if need > limit:
                sys.setrecursionlimit(limit)
        return Sample(tree, render(tree, self.grammar), tuple(run.out))

    def decode_tree(self, choices: Sequence[int], rng: random.Random | None = None) -> Tree:
        """The derivation tree for `choices` (see `decode_sample`)."""
        return self.decode_sample(choices, rng).tree

    def generate(self, rng: random.Random) -> Sample:
        """A fresh random sample (decoding the empty choice sequence)."""
        return self.decode_sample((), rng)

    # --- InputSource -------------------------------------------------------------------------

    def decode(self, choices: Sequence[int], rng: random.Random) -> Decoded | None:
        """InputSource: the generated text and realized choices (None only if decoding fails)."""
        try:
            sample = self.decode_sample(choices, rng)
        except (RecursionError, ValueError, TypeError):
            return None
        return Decoded(sample.text, sample.choices)

    def mutate_choice(self, choice: int, rng: random.Random) -> int:
        """A different non-negative int: a small step, a jump, zero, or a fresh small value."""
        choice = int(choice)
        r = rng.random()
        if r < 0.35:
            new = choice + 1
        elif r < 0.6:
            new = choice - 1 if choice > 0 else choice + 1
        elif r < 0.75:
            new = choice + rng.randint(2, 8)
        elif r < 0.85:
            new = 0 if choice != 0 else 1
        else:
            new = rng.randrange(SAMPLE_SPACE)
        if new == choice or new < 0:
            new = choice + 1
        return new

    def render(self, value: object) -> str:
        """InputSource: the text itself (values are already texts)."""
        return value if isinstance(value, str) else str(value)

    def to_bytes(self, choices: Sequence[int]) -> bytes:
        """Serialize choices as unsigned LEB128 varints."""
        return encode_varints(choices)

    def from_bytes(self, data: bytes) -> tuple[int, ...]:
        """Inverse of `to_bytes`; raises ValueError on truncated data."""
        return decode_varints(data)


def encode_varints(values: Sequence[int]) -> bytes:
    """Unsigned LEB128 encoding of non-negative ints (raises ValueError on negatives)."""
    out = bytearray()
    for v in values:
        v = int(v)
        if v < 0:
            raise ValueError(f"choices must be non-negative, got {v}")
        while True:
            byte = v & 0x7F
            v >>= 7
            if v:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                break
    return bytes(out)


def decode_varints(data: bytes) -> tuple[int, ...]:
    """Decode unsigned LEB128 varints; raises ValueError when the last varint is truncated."""
    values: list[int] = []
    v = 0
    shift = 0
    pending = False
    for byte in bytes(data):
        v |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            pending = True
            if shift > 7 * 20:
                raise ValueError("varint too long")
        else:
            values.append(v)
            v = 0
            shift = 0
            pending = False
    if pending:
        raise ValueError("truncated varint at end of data")
    return tuple(values)


# --- regex sampling ------------------------------------------------------------------------------

_ALPHABET = string.ascii_letters + string.digits + " _-+*/.,:;!?=<>()[]{}#@$%&|~^'\"\\"
"""Characters for `.` and negated classes: mostly alphanumerics, a few quotes and backslashes."""

_CATEGORY_CHARS = {
    sre_c.CATEGORY_DIGIT: string.digits,
    sre_c.CATEGORY_NOT_DIGIT: string.ascii_letters + "_ -+.",
    sre_c.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre_c.CATEGORY_NOT_WORD: " -+*/.,:;!?=<>()[]{}",
    sre_c.CATEGORY_SPACE: " \t",
    sre_c.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits + "_-+.",
}

_MAX_EXTRA = 3
"""A sampled unbounded repetition runs at most this many times beyond its minimum."""


def _nice_first(chars: str) -> str:
    # Minimal samples take the first char: prefer letters, then digits, then the rest.
    uniq = dict.fromkeys(chars)
    return "".join(sorted(uniq, key=lambda c: (not c.isalpha(), not c.isdigit(), c in "\"'\\", ord(c))))


class RegexSampler:
    """Draws strings from a regular expression via `re._parser` with bounded repetition.

    Assertions (lookarounds, anchors) are skipped here: callers check candidates against the
    compiled pattern and retry.  `minimal()` is deterministic and short.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.node = self._compile(sre_parse.parse(pattern))

    def _compile(self, sub: object) -> tuple:
        nodes = [self._compile_op(op, av) for op, av in sub]  # type: ignore[attr-defined]
        nodes = [n for n in nodes if n[0] != "empty"]
        if len(nodes) == 1:
            return nodes[0]
        return ("seq", tuple(nodes))

    def _compile_op(self, op: object, av: object) -> tuple:
        if op is sre_c.LITERAL:
            return ("chars", chr(av))  # type: ignore[arg-type]
        if op is sre_c.NOT_LITERAL:
            return ("chars", _nice_first(_ALPHABET.replace(chr(av), "")))  # type: ignore[arg-type]
        if op is sre_c.ANY:
            return ("chars", _nice_first(_ALPHABET))
        if op is sre_c.IN:
            return ("chars", self._class(av))  # type: ignore[arg-type]
        if op is sre_c.CATEGORY:
            return ("chars", _nice_first(_CATEGORY_CHARS.get(av, "a")))  # type: ignore[arg-type]
        if op is sre_c.BRANCH:
            return ("alt", tuple(self._compile(b) for b in av[1]))  # type: ignore[index]
        if op is sre_c.SUBPATTERN:
            return ("group", av[0], self._compile(av[3]))  # type: ignore[index]
        if op is sre_c.ATOMIC_GROUP:
            return self._compile(av)
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            lo, hi, body = av  # type: ignore[misc]
            hi = None if hi is sre_c.MAXREPEAT else int(hi)
            return ("rep", int(lo), hi, self._compile(body))
        if op is sre_c.GROUPREF:
            return ("ref", av)
        if op is sre_c.GROUPREF_EXISTS:
            _gid, yes, no = av  # type: ignore[misc]
            return ("alt", (self._compile(yes), self._compile(no) if no else ("seq", ())))
        return ("empty",)  # AT (anchors), ASSERT, ASSERT_NOT: checked by the caller instead

    @staticmethod
    def _class(items: list) -> str:
        chars: list[str] = []
        negate = False
        for op, av in items:
            if op is sre_c.NEGATE:
                negate = True
            elif op is sre_c.LITERAL:
                chars.append(chr(av))
            elif op is sre_c.RANGE:
                lo, hi = av
                chars.extend(chr(c) for c in range(lo, min(hi, lo + 255) + 1))
            elif op is sre_c.CATEGORY:
                chars.append(_CATEGORY_CHARS.get(av, ""))
        text = "".join(chars)
        if negate:
            text = "".join(c for c in _ALPHABET if c not in text)
        return _nice_first(text or "a")

    def minimal(self) -> str:
        """A short deterministic string: fewest repetitions, shortest branch, nicest characters."""
        out: list[str] = []
        self._emit(self.node, None, out, {})
        return "".join(out)

    def sample(self, rng: random.Random) -> str:
        """A pseudo-random string following the pattern's structure (may violate its assertions)."""
        out: list[str] = []
        self._emit(self.node, rng, out, {})
        return "".join(out)

    def _emit(self, node: tuple, rng: random.Random | None, out: list[str], groups: dict) -> None:
        tag = node[0]
        if tag == "chars":
            chars = node[1]
            out.append(chars[0] if rng is None else rng.choice(chars))
        elif tag == "seq":
            for child in node[1]:
                self._emit(child, rng, out, groups)
        elif tag == "alt":
            options = node[1]
            if rng is None:
                pick = min(options, key=_min_len)
            else:
                pick = options[rng.randrange(len(options))]
            self._emit(pick, rng, out, groups)
        elif tag == "rep":
            _t, lo, hi, body = node
            count = lo
            if rng is not None:
                room = _MAX_EXTRA if hi is None else min(_MAX_EXTRA, hi - lo)
                count += rng.randint(0, max(0, room))
            for _ in range(count):
                self._emit(body, rng, out, groups)
        elif tag == "group":
            start = len(out)
            self._emit(node[2], rng, out, groups)
            if node[1] is not None:
                groups[node[1]] = "".join(out[start:])
        elif tag == "ref":
            out.append(groups.get(node[1], ""))


def _min_len(node: tuple) -> int:
    tag = node[0]
    if tag == "chars":
        return 1
    if tag == "seq":
        return sum(_min_len(c) for c in node[1])
    if tag == "alt":
        return min(_min_len(c) for c in node[1])
    if tag == "rep":
        return node[1] * _min_len(node[3])
    if tag == "group":
        return _min_len(node[2])
    return 0
