"""Hypothesis strategies as parametric generators: the one adapter over Hypothesis internals.

A strategy is replayed from a choice sequence with `ConjectureData(prefix=...)`; past the
prefix Hypothesis draws from the given `random.Random`, so decoding is deterministic for a
seeded rng.  Realized choices are stored with Hypothesis' own `choices_to_bytes`.

Decoding is the fuzzing loop's hottest path, so it runs on `_LeanData`: a ConjectureData
that keeps every rule deciding *which value* a choice sequence decodes to (the strategies'
own `do_draw`, prefix replay, misalignment repair, the provider past the prefix, overrun
and depth limits) and drops the bookkeeping only Hypothesis' engine reads (spans, labels,
structural tags, choice nodes, per-draw timing, observers).  Invariant, checked by a
property test: `_LeanData` and a stock `ConjectureData` decode every sequence to equal
values and equal realized choices, consuming the rng alike.
"""

from __future__ import annotations

import math
import random
import re
from collections import abc
from collections.abc import Sequence
from typing import Any

from hypothesis.control import BuildContext
from hypothesis.database import choices_from_bytes, choices_to_bytes
from hypothesis.errors import HypothesisException, UnsatisfiedAssumption
from hypothesis.internal.conjecture.choice import (
    ChoiceTooLarge,
    choice_constraints_key,
    choice_from_index,
    choice_permitted,
)
from hypothesis.internal.conjecture.data import MAX_DEPTH, ConjectureData, StopTest
from hypothesis.internal.conjecture.providers import GLOBAL_CONSTANTS, HypothesisProvider
from hypothesis.internal.floats import float_to_int, int_to_float
from hypothesis.strategies import SearchStrategy
from hypothesis.strategies._internal.collections import TupleStrategy
from hypothesis.strategies._internal.lazy import unwrap_strategies
from hypothesis.strategies._internal.strategies import MappedStrategy, OneOfStrategy

from mu2py.errors import UserError
from mu2py.inputs.source import Choice, Decoded, InputSource

_INTERESTING_INTS = (0, 1, -1, 2, 7, 8, 16, 31, 32, 64, 127, 128, 255, 256, 1024, 65535, 2**31 - 1, -(2**31))


_CONSTANTS: dict[Any, tuple[Any, ...]] = {}


class SeededProvider(HypothesisProvider):
    """Hypothesis' provider without constants harvested from loaded modules.

    The stock provider mixes in literals found in whatever user modules happen to be
    imported, so the same seed would give different inputs in different processes.
    """

    def _maybe_draw_constant(self, choice_type: Any, constraints: Any, *, p: float = 0.05) -> Any:
        assert self._random is not None
        if self._random.random() > p:
            return None
        key = (choice_type, choice_constraints_key(choice_type, constraints))
        pool = _CONSTANTS.get(key)
        if pool is None:
            pool = tuple(c for c in GLOBAL_CONSTANTS.set_for_type(choice_type) if choice_permitted(c, constraints))
            _CONSTANTS[key] = pool
        return self._random.choice(pool) if pool else None


# the attribute a strategy's checked, unwrapped form is cached under (see _LeanData.draw)
_READY = "_mu2py_unwrapped"
# a one_of whose branches all answer is_currently_empty statically (see _LeanData._draw_one_of)
_STATIC = "_mu2py_static_branches"
_STATIC_EMPTINESS = SearchStrategy.is_currently_empty
_TYPE_OF = {str: "string", float: "float", int: "integer", bool: "boolean", bytes: "bytes"}


def choice_size(value: Choice) -> int:
    """`len(choices_to_bytes([value]))` without building the bytes: what a choice adds to Hypothesis' buffer."""
    kind = type(value)
    if kind is bool:
        return 1
    if kind is float:
        return 9
    if kind is int:
        size = 1 + value.bit_length() // 8
    elif kind is str:
        size = len(value) if value.isascii() else len(value.encode(errors="surrogatepass"))
    else:
        size = len(value)
    if size < 0b11111:
        return 1 + size
    # a uleb128 length follows the tag byte
    return 2 + size + (size.bit_length() - 1) // 7


# per alphabet (an IntervalSet, kept alive by its entry so that its id is not reused): the characters found in it
_ALPHABETS: dict[int, tuple[Any, set[str]]] = {}
_ALPHABETS_KEPT = 256
_KNOWN_CHARACTERS = 1 << 16  # characters remembered per alphabet; past this, new ones are looked up each time


def _permitted(value: Choice, choice_type: str, constraints: Any) -> bool:
    """choice_permitted, with its commonest cases (type already checked) inline.

    A string's characters are checked against the alphabet's characters seen before (one C-level
    set test for the whole string); Hypothesis looks up every character in its interval set.
    """
    if choice_type == "integer":
        low, high = constraints["min_value"], constraints["max_value"]
        return (low is None or value >= low) and (high is None or value <= high)
    if choice_type == "boolean":
        p = constraints["p"]
        return value is False if p <= 0 else (value is True if p >= 1 else True)
    if choice_type == "string":
        if not constraints["min_size"] <= len(value) <= constraints["max_size"]:
            return False
        intervals = constraints["intervals"]
        entry = _ALPHABETS.get(id(intervals))
        if entry is None or entry[0] is not intervals:
            if len(_ALPHABETS) >= _ALPHABETS_KEPT:  # alphabets built per draw (in a composite) must not pile up
                _ALPHABETS.clear()
            entry = _ALPHABETS[id(intervals)] = (intervals, set())
        known = entry[1]
        if known.issuperset(value):
            return True
        for char in set(value).difference(known):
            if ord(char) not in intervals:
                return False
            if len(known) < _KNOWN_CHARACTERS:
                known.add(char)
        return True
    return choice_permitted(value, constraints)


_TEMPLATE: dict[str, Any] = {}
_FRESH: list[str] = []


def _template() -> dict[str, Any]:
    """The attributes of a stock-initialized ConjectureData (made once), minus those each decode sets."""
    if not _TEMPLATE:
        stock = ConjectureData(prefix=(), random=None)
        attrs = {k: v for k, v in vars(stock).items() if k not in ("provider", "prefix", "_random", "nodes")}
        attrs["depth"] = 0  # inside the top-level span, as after ConjectureData.__init__
        _FRESH.extend(k for k, v in attrs.items() if isinstance(v, (dict, list, set)))
        _TEMPLATE.update(attrs)
    return _TEMPLATE


_STOCK, _ONE_OF, _TUPLE, _MAPPED = range(4)


def _prepare(data: ConjectureData, strategy: SearchStrategy[Any]) -> tuple[SearchStrategy[Any], int]:
    """Check a strategy as ConjectureData.draw does (invalid data when empty) and cache how to draw it."""
    strategy.validate()
    if strategy.is_empty:
        data.mark_invalid(f"empty strategy {strategy!r}")
    unwrapped = unwrap_strategies(strategy)
    kind = type(unwrapped)
    if kind is OneOfStrategy:
        how = _ONE_OF
    elif kind is TupleStrategy:
        how = _TUPLE
    elif kind is MappedStrategy and not (isinstance(unwrapped.pack, type)
                                         and issubclass(unwrapped.pack, (abc.Mapping, abc.Set))):
        how = _MAPPED  # (Hypothesis silences BytesWarning around packing into mappings and sets: stock path)
    else:
        how = _STOCK
    ready = (unwrapped, how)
    setattr(strategy, _READY, ready)
    for target in (strategy, unwrapped):
        # collections ask their element strategy's is_empty on every draw; answered by a forced value, the
        # lookup skips a raised AttributeError (the property is computed once and never changes)
        target.force_is_empty = target.is_empty
    return ready


class _LeanData(ConjectureData):
    """A ConjectureData for decoding only (see the module docstring): same values, no engine bookkeeping.

    Realized choices are kept as plain values in `nodes` (strategies only ever read its length).
    """

    _nodes: list[Choice]

    def __init__(self, *, prefix: Sequence[Choice], random: random.Random, max_choices: int,
                 provider: type[HypothesisProvider]) -> None:
        # ConjectureData.__init__ sets some sixty attributes, with timers, an observer and a span record:
        # copy them from one stock-initialized instance instead (new Hypothesis attributes come along),
        # with fresh containers, so nothing a draw writes is shared between decodes
        template = _template()
        attrs = self.__dict__
        attrs.update(template)
        for name in _FRESH:
            attrs[name] = template[name].copy()
        self._nodes = []
        self._kinds: list[tuple[str, Any]] = []  # (choice type, constraints) of each realized choice
        self.prefix = prefix
        self._random = random
        self.max_choices = max_choices
        self.provider = provider(self)

    @property  # type: ignore[override]
    def nodes(self) -> list[Choice]:  # type: ignore[override]
        """The realized choice values so far (ConjectureData keeps ChoiceNode objects here)."""
        return self._nodes

    @nodes.setter
    def nodes(self, value: Any) -> None:
        self._nodes = list(value)
        self._kinds = self._kinds[: len(self._nodes)]

    @property
    def choices(self) -> tuple[Choice, ...]:  # type: ignore[override]
        """The realized choice sequence."""
        return tuple(self._nodes)

    def draw(self, strategy: SearchStrategy[Any], label: int | None = None, observe_as: str | None = None) -> Any:
        """ConjectureData.draw's checks (validity, emptiness, depth), then the strategy's own do_draw.

        A strategy that passed the checks once remembers its unwrapped form and how to draw it
        (`_READY`): validity and emptiness are static properties, which Hypothesis caches too, only
        behind more lookups.  one_of, map and tuples draw here, without the reporting bookkeeping
        (pretty-printer records, argument labels, warning filters) their do_draw carries.
        """
        ready = getattr(strategy, _READY, None)
        if ready is None:
            ready = _prepare(self, strategy)
        if self.depth >= MAX_DEPTH:
            self.mark_invalid("max depth exceeded")
        unwrapped, kind = ready
        self.depth += 1
        try:
            if kind == _STOCK:
                return unwrapped.do_draw(self)
            if kind == _ONE_OF:
                return self._draw_one_of(unwrapped)
            if kind == _TUPLE:
                return tuple([self.draw(s) for s in unwrapped.element_strategies])
            return self._draw_mapped(unwrapped)
        finally:
            self.depth -= 1

    def _draw_mapped(self, mapped: MappedStrategy[Any, Any]) -> Any:
        """MappedStrategy.do_draw: up to three tries, each in its own span, an assumption failing retries."""
        for _ in range(3):
            self.depth += 1
            try:
                value = mapped.pack(self.draw(mapped.mapped_strategy))
            except UnsatisfiedAssumption:
                continue
            finally:
                if not self.frozen:
                    self.depth -= 1
            return value
        raise UnsatisfiedAssumption

    def _draw_one_of(self, one_of: OneOfStrategy[Any]) -> Any:
        """OneOfStrategy.do_draw without its two throwaway strategies per draw.

        Hypothesis picks the branch with `sampled_from(branches).filter(not currently empty)`: one
        integer in [0, n) when the filter accepts every branch, as it does unless a branch can be
        empty *now* (stateful Bundles, the only strategies that say so); those take the stock path.
        """
        branches = one_of.element_strategies
        if not getattr(one_of, _STATIC, False):
            if any(type(b).is_currently_empty is not _STATIC_EMPTINESS for b in branches):
                return one_of.do_draw(self)
            setattr(one_of, _STATIC, True)
        if self.depth >= MAX_DEPTH:  # the sampled_from draw is one level deeper
            self.mark_invalid("max depth exceeded")
        self.depth += 1
        try:
            chosen = branches[self.draw_integer(0, len(branches) - 1)]
        finally:
            self.depth -= 1
        return self.draw(chosen)

    def start_span(self, label: int) -> None:
        """Only the depth matters when decoding."""
        self.depth += 1

    def stop_span(self, *, discard: bool = False) -> None:
        """Only the depth matters when decoding."""
        if not self.frozen:
            self.depth -= 1

    def freeze(self) -> None:
        """Mark frozen (no span tree to close, no observer to tell)."""
        self.frozen = True

    def draw_integer(self, min_value: int | None = None, max_value: int | None = None, *,
                     weights: dict[int, float] | None = None, shrink_towards: int = 0, forced: int | None = None,
                     observe: bool = True) -> int:
        """ConjectureData.draw_integer without its argument assertions (strategies' own invariants)."""
        return self._draw("integer", {"min_value": min_value, "max_value": max_value, "weights": weights,
                                      "shrink_towards": shrink_towards}, observe=observe, forced=forced)

    def draw_boolean(self, p: float = 0.5, *, forced: bool | None = None, observe: bool = True) -> bool:
        """ConjectureData.draw_boolean without its argument assertions."""
        return self._draw("boolean", {"p": p}, observe=observe, forced=forced)

    def _pooled_constraints(self, choice_type: Any, constraints: Any) -> Any:
        # pooling only saves memory in the engine's long-lived choice trees
        return constraints

    def _draw(self, choice_type: Any, constraints: Any, *, observe: bool, forced: Any) -> Any:
        # ConjectureData._draw's value rules, in its order: overrun checks, prefix (repaired when
        # misaligned), provider, forced value, canonical NaN, then the buffer-size overrun
        if self.length == self.max_length or len(self._nodes) == self.max_choices:
            self.mark_overrun()
        prefix = self.prefix
        if observe and prefix is not None and self.index < len(prefix):
            value = prefix[self.index]
            if _TYPE_OF.get(type(value)) != choice_type or not _permitted(value, choice_type, constraints):
                try:
                    value = choice_from_index(0, choice_type, constraints)
                except ChoiceTooLarge:
                    self.mark_overrun()
            self.index += 1
        elif forced is None:
            value = getattr(self.provider, f"draw_{choice_type}")(**constraints)
        if forced is not None:
            value = forced
        if choice_type == "float" and math.isnan(value):
            value = int_to_float(float_to_int(value))
        if observe:
            size = choice_size(value)
            if self.length + size > self.max_length:
                self.mark_overrun()
            self._nodes.append(value)
            self._kinds.append((choice_type, constraints))
            self.length += size
        return value


# decodes of each source checked against the stock decoder before the lean one is trusted alone
LEAN_CHECKS = 16


def mutate_choice(choice: Choice, rng: random.Random) -> Choice:
    """A typed change: nudge or replace ints and floats, flip bools, edit strings and bytes."""
    if isinstance(choice, bool):
        return not choice
    if isinstance(choice, int):
        r = rng.random()
        if r < 0.5:
            return choice + rng.choice((-1, 1)) * rng.randint(1, 8)
        if r < 0.8:
            return rng.choice(_INTERESTING_INTS)
        return rng.randint(-(2**16), 2**16)
    if isinstance(choice, float):
        r = rng.random()
        if r < 0.4 and math.isfinite(choice):
            return choice + rng.uniform(-10, 10)
        return rng.choice((0.0, -0.0, 1.0, -1.0, 0.5, 1e9, -1e-9, math.inf, -math.inf, rng.uniform(-1e6, 1e6)))
    if isinstance(choice, str):
        return _edit(choice, rng, lambda: chr(rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FF)))), "")
    if isinstance(choice, bytes):
        edited = _edit(list(choice), rng, lambda: rng.randint(0, 255), None)
        return bytes(edited)
    return choice


_SMALL_RANGE = 32  # an integer drawn from at most this many values changes to another of them, uniformly


def mutate_within(choice: Choice, kind: tuple[str, Any], rng: random.Random) -> Choice:
    """A change of `choice` into another value its draw permits (`kind`: the choice type and constraints).

    An integer of a small range (a one_of branch, a sampled_from index, a list's "more?") becomes
    another value of the range; a larger one is nudged and kept in range; a string is edited
    with characters of its alphabet within its size bounds.  The decoder thus reads the edit as
    made: an unpermitted value would be repaired to the simplest one, often giving an input
    tried before.  When no permitted change is found, the untyped `mutate_choice`.
    """
    choice_type, constraints = kind
    value: Choice
    if choice_type == "integer":
        low, high = constraints["min_value"], constraints["max_value"]
        if low is not None and high is not None and high - low <= _SMALL_RANGE:
            if high == low:
                return choice
            other = rng.randint(low, high - 1)
            return other + (other >= choice)  # uniform over the range without `choice`
        value = mutate_choice(choice, rng)
        if low is not None and value < low:
            value = low
        elif high is not None and value > high:
            value = high
    elif choice_type == "string":
        intervals = constraints["intervals"]
        if not len(intervals):
            return choice

        def character() -> str:
            code = rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FF)))
            return chr(code if code in intervals else intervals[rng.randrange(len(intervals))])

        value = _edit(choice, rng, character, "", constraints["min_size"], constraints["max_size"])
    elif choice_type == "bytes":
        value = bytes(_edit(list(choice), rng, lambda: rng.randint(0, 255), None, constraints["min_size"],
                            constraints["max_size"]))
    else:
        value = mutate_choice(choice, rng)
    return value if _permitted(value, choice_type, constraints) else mutate_choice(choice, rng)


class StrategySource:
    """An InputSource decoding a Hypothesis strategy from a typed choice sequence."""

    def __init__(self, strategy: SearchStrategy[Any], max_choices: int = 10_000, *, checks: int = LEAN_CHECKS) -> None:
        """`checks`: how many first decodes are run by both decoders and compared (see `decode`)."""
        if not isinstance(strategy, SearchStrategy):
            raise UserError(f"driver input source is not a Hypothesis strategy: {strategy!r}")
        self.strategy = strategy
        self.max_choices = max_choices
        # the lean decoder leans on Hypothesis internals: its first decodes are checked against the stock
        # ConjectureData (same choices, same rng use), and any disagreement or error switches to stock for good
        self._unchecked = checks
        self._lean = True
        self.last_error: str | None = None  # why the latest draw that raised (not a rejection) failed
        # how many leading choices the latest decode read, None when it drew from the rng as well: such a
        # decode is a function of those choices alone (mu2py.fuzz.tried predicts children sharing them)
        self.last_read: int | None = None

    def decode(self, choices: Sequence[Choice], rng: random.Random) -> Decoded | None:
        """Replay `choices` as a prefix, then draw from `rng`; None when the strategy rejects or raises."""
        if not self._lean:
            return self._decode(ConjectureData, choices, rng)
        if not self._unchecked:
            return self._decode(_LeanData, choices, rng)
        self._unchecked -= 1
        twin = random.Random()
        twin.setstate(rng.getstate())
        try:
            lean: Decoded | None | Exception = self._decode(_LeanData, choices, rng)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - an internal Hypothesis changed under the lean decoder
            lean = exc
        stock = self._decode(ConjectureData, choices, twin)
        same = (not isinstance(lean, Exception) and rng.getstate() == twin.getstate()
                and (lean is None) == (stock is None)
                and (lean is None or (lean.choices == stock.choices and _shown(lean.value) == _shown(stock.value))))
        if not same:
            self._lean = False
            rng.setstate(twin.getstate())
        if not same or stock is None or not isinstance(lean, Decoded):
            return stock
        return Decoded(value=stock.value, choices=stock.choices, kinds=lean.kinds)  # the choices are equal

    def _decode(self, kind: type[ConjectureData], choices: Sequence[Choice], rng: random.Random) -> Decoded | None:
        data = kind(prefix=tuple(choices), random=rng, max_choices=self.max_choices, provider=SeededProvider)
        drawn = False
        try:
            # composite strategies and filters expect a build context, as inside @given
            with BuildContext(data, is_final=False, wrapped_test=_no_test):
                value = data.draw(self.strategy)
            drawn = True
        except (StopTest, UnsatisfiedAssumption):
            return None
        except HypothesisException as exc:
            raise UserError(f"the driver's strategy cannot draw: {type(exc).__name__}: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - e.g. a builds() target rejecting its drawn arguments
            # an input that cannot be built is a rejected draw, as for a filter: one such draw must not stop a run
            self.last_error = f"{type(exc).__name__}: {exc}"
            return None
        finally:
            if not data.frozen:
                data.freeze()
            self.last_read = _read(data, len(choices), drawn)
        kinds = tuple(data._kinds) if isinstance(data, _LeanData) else None
        return Decoded(value=value, choices=tuple(data.choices), kinds=kinds)

    # the module's functions themselves, not methods calling them: havoc calls them for every edit of every trial
    mutate_choice = staticmethod(mutate_choice)
    mutate_within = staticmethod(mutate_within)

    def render(self, value: Any) -> str:
        """The value's repr (a Python literal for the common cases); a placeholder when repr fails."""
        try:
            return repr(value)
        except Exception as exc:  # noqa: BLE001 - e.g. RecursionError on nesting deeper than the recursion limit
            return f"<{type(value).__qualname__} with no repr: {type(exc).__name__}>"

    def to_bytes(self, choices: Sequence[Choice]) -> bytes:
        """Hypothesis' own serialization of a choice sequence."""
        return choices_to_bytes(tuple(choices))

    def from_bytes(self, data: bytes) -> tuple[Choice, ...]:
        """Inverse of to_bytes (ValueError when malformed)."""
        decoded = choices_from_bytes(data)
        if decoded is None:
            raise ValueError("not a serialized choice sequence")
        return tuple(decoded)


def _shown(value: Any) -> str:
    """A value's repr without memory addresses (two decodes build distinct objects); the type and the error's
    name when repr fails (RecursionError on nesting deeper than the recursion limit: both decodes fail alike)."""
    try:
        text = repr(value)
    except Exception as exc:  # noqa: BLE001 - the cross-check must not stop the run; the choices still compared
        return f"<{type(value).__qualname__}: {type(exc).__name__}>"
    return re.sub(r" at 0x[0-9a-fA-F]+", "", text)


def _read(data: ConjectureData, given: int, drawn: bool) -> int | None:
    """How many leading choices decided a decode; None when the provider (the rng) drew some too.

    Every realized choice came from the prefix when there are as many as prefix reads.  A
    rejection may have been decided by the choice it was reading (a misaligned choice too
    large to repair stops the draw before counting it), so it counts one choice more.
    """
    read: int = data.index
    if len(data.nodes) != read:
        return None
    return read if drawn or read >= given else read + 1


def _no_test() -> None:
    """Stands in for the test function a BuildContext normally wraps."""


def _edit(seq: Any, rng: random.Random, new: Any, empty: Any, min_size: int = 0, max_size: float = math.inf) -> Any:
    """Delete, insert or replace one item; sizes outside [min_size, max_size] are not made where avoidable."""
    items = list(seq)
    ops = [op for op, ok in ((0, len(items) > min_size), (1, len(items) < max_size), (2, bool(items))) if ok]
    if not items:
        op = 1
    elif len(ops) == 3 and min_size == 0 and max_size == math.inf:
        op = rng.randrange(3)  # the unconstrained case draws as it always did
    else:
        op = rng.choice(ops) if ops else 2
    if op == 0:
        del items[rng.randrange(len(items))]
    elif op == 1:
        items.insert(rng.randint(0, len(items)), new())
    else:
        items[rng.randrange(len(items))] = new()
    return "".join(items) if empty == "" else items


def source_for(obj: Any) -> InputSource:
    """The InputSource for a driver's `source`: a strategy is wrapped, a source used as is."""
    if isinstance(obj, SearchStrategy):
        return StrategySource(obj)
    if isinstance(obj, InputSource):
        return obj
    raise UserError(f"driver input source must be a Hypothesis strategy or an InputSource, got {obj!r}")
