"""The lean ConjectureData that decodes choice sequences: the same values as Hypothesis', without its bookkeeping.

Decoding is the fuzzing loop's hottest path, so it runs on `LeanData`: a ConjectureData
that keeps every rule deciding *which value* a choice sequence decodes to (the strategies'
own `do_draw`, prefix replay, misalignment repair, the provider past the prefix, overrun
and depth limits) and drops the bookkeeping only Hypothesis' engine reads (spans, labels,
structural tags, choice nodes, per-draw timing, observers).  Invariant, checked by a
property test: `LeanData` and a stock `ConjectureData` decode every sequence to equal
values and equal realized choices, consuming the rng alike.

One of the three modules (with `choices` and `generators`) that touch Hypothesis internals.
"""

from __future__ import annotations

import math
import random
from collections import abc
from collections.abc import Sequence
from typing import Any

from hypothesis.errors import UnsatisfiedAssumption
from hypothesis.internal.conjecture.choice import ChoiceTooLarge, choice_from_index
from hypothesis.internal.conjecture.data import MAX_DEPTH, ConjectureData
from hypothesis.internal.conjecture.providers import HypothesisProvider
from hypothesis.internal.floats import float_to_int, int_to_float
from hypothesis.strategies import SearchStrategy
from hypothesis.strategies._internal.collections import TupleStrategy
from hypothesis.strategies._internal.lazy import unwrap_strategies
from hypothesis.strategies._internal.strategies import MappedStrategy, OneOfStrategy

from mu2py.inputs.choices import choice_size, permitted
from mu2py.inputs.source import Choice

# the attribute a strategy's checked, unwrapped form is cached under (see LeanData.draw)
_READY = "_mu2py_unwrapped"
# a one_of whose branches all answer is_currently_empty statically (see LeanData._draw_one_of)
_STATIC = "_mu2py_static_branches"
_STATIC_EMPTINESS = SearchStrategy.is_currently_empty
_TYPE_OF = {str: "string", float: "float", int: "integer", bool: "boolean", bytes: "bytes"}

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
        target.force_is_empty = target.is_empty  # type: ignore[union-attr]  # an attribute Hypothesis reads if set
    return ready


class LeanData(ConjectureData):
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

    @property  # type: ignore[override]  # a plain attribute in ConjectureData
    def nodes(self) -> list[Choice]:
        """The realized choice values so far (ConjectureData keeps ChoiceNode objects here)."""
        return self._nodes

    @nodes.setter
    def nodes(self, value: Any) -> None:
        self._nodes = list(value)
        self._kinds = self._kinds[: len(self._nodes)]

    @property
    def choices(self) -> tuple[Choice, ...]:
        """The realized choice sequence."""
        return tuple(self._nodes)

    @property
    def kinds(self) -> tuple[tuple[str, Any], ...]:
        """The (choice type, constraints) each realized choice was drawn as: what typed havoc keeps within."""
        return tuple(self._kinds)

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
        unwrapped: Any  # a OneOfStrategy, TupleStrategy or MappedStrategy as `kind` says
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
        value: Any
        prefix = self.prefix
        if observe and prefix is not None and self.index < len(prefix):
            value = prefix[self.index]
            if _TYPE_OF.get(type(value)) != choice_type or not permitted(value, choice_type, constraints):
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

