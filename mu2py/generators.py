"""Hypothesis strategies as parametric generators: the one adapter over Hypothesis internals.

A strategy is replayed from a choice sequence with `ConjectureData(prefix=...)`; past the
prefix Hypothesis draws from the given `random.Random`, so decoding is deterministic for a
seeded rng.  Realized choices are stored with Hypothesis' own `choices_to_bytes`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Any

from hypothesis.control import BuildContext
from hypothesis.database import choices_from_bytes, choices_to_bytes
from hypothesis.errors import HypothesisException, UnsatisfiedAssumption
from hypothesis.internal.conjecture.choice import choice_constraints_key, choice_permitted
from hypothesis.internal.conjecture.data import ConjectureData, StopTest
from hypothesis.internal.conjecture.providers import GLOBAL_CONSTANTS, HypothesisProvider
from hypothesis.strategies import SearchStrategy

from mu2py.errors import UserError
from mu2py.source import Choice, Decoded, InputSource

_INTERESTING_INTS = (0, 1, -1, 2, 7, 8, 16, 31, 32, 64, 127, 128, 255, 256, 1024, 65535, 2**31 - 1, -(2**31))


_CONSTANTS: dict[Any, tuple[Any, ...]] = {}


class _SeededProvider(HypothesisProvider):
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


class StrategySource:
    """An InputSource decoding a Hypothesis strategy from a typed choice sequence."""

    def __init__(self, strategy: SearchStrategy[Any], max_choices: int = 10_000) -> None:
        if not isinstance(strategy, SearchStrategy):
            raise UserError(f"driver input source is not a Hypothesis strategy: {strategy!r}")
        self.strategy = strategy
        self.max_choices = max_choices
        self.last_error: str | None = None  # why the latest draw that raised (not a rejection) failed

    def decode(self, choices: Sequence[Choice], rng: random.Random) -> Decoded | None:
        """Replay `choices` as a prefix, then draw from `rng`; None when the strategy rejects or raises."""
        data = ConjectureData(prefix=tuple(choices), random=rng, max_choices=self.max_choices,
                              provider=_SeededProvider)
        try:
            # composite strategies and filters expect a build context, as inside @given
            with BuildContext(data, is_final=False, wrapped_test=_no_test):
                value = data.draw(self.strategy)
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
        return Decoded(value=value, choices=tuple(data.choices))

    def mutate_choice(self, choice: Choice, rng: random.Random) -> Choice:
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


def _no_test() -> None:
    """Stands in for the test function a BuildContext normally wraps."""


def _edit(seq: Any, rng: random.Random, new: Any, empty: Any) -> Any:
    items = list(seq)
    op = rng.randrange(3) if items else 1
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
