"""Hypothesis strategies as parametric generators: a strategy decoded from, and stored as, a choice sequence.

A strategy is replayed from a choice sequence with `ConjectureData(prefix=...)`; past the
prefix Hypothesis draws from the given `random.Random`, so decoding is deterministic for a
seeded rng.  Realized choices are stored with Hypothesis' own `choices_to_bytes`.

Decoding runs on `mu2py.inputs.lean.LeanData`, checked against a stock `ConjectureData` on
each source's first decodes; the choices themselves are sized and changed in `mu2py.inputs.choices`.
One of the three modules (with `lean` and `choices`) that touch Hypothesis internals.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from typing import Any

from hypothesis.control import BuildContext
from hypothesis.database import choices_from_bytes, choices_to_bytes
from hypothesis.errors import HypothesisException, UnsatisfiedAssumption
from hypothesis.internal.conjecture.choice import choice_constraints_key, choice_permitted
from hypothesis.internal.conjecture.data import ConjectureData, StopTest
from hypothesis.internal.conjecture.providers import GLOBAL_CONSTANTS, HypothesisProvider
from hypothesis.strategies import SearchStrategy

from mu2py.budget import Deadline
from mu2py.errors import UserError
from mu2py.inputs.choices import mutate_choice, mutate_within
from mu2py.inputs.lean import LeanData
from mu2py.inputs.source import Choice, Decoded, InputSource

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


# decodes of each source checked against the stock decoder before the lean one is trusted alone
LEAN_CHECKS = 16


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
            return self._decode(LeanData, choices, rng)
        self._unchecked -= 1
        twin = random.Random()
        twin.setstate(rng.getstate())
        try:
            lean: Decoded | None | Exception = self._decode(LeanData, choices, rng)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - an internal Hypothesis changed under the lean decoder
            lean = exc
        stock = self._decode(ConjectureData, choices, twin)
        same = (not isinstance(lean, Exception) and rng.getstate() == twin.getstate()
                and (lean is None) == (stock is None)
                and (lean is None or (lean.choices == stock.choices and _shown(lean.value) == _shown(stock.value))))  # type: ignore[union-attr]  # both None or neither
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
        kinds = data.kinds if isinstance(data, LeanData) else None
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

    def shrink(self, choices: Sequence[Choice], keeps: Callable[[Any], bool], *, calls: int,
               deadline: Deadline = Deadline.never(), seed: int = 0) -> Decoded | None:
        """The simplest input Hypothesis' shrinker finds, starting from `choices`, for which `keeps(value)` holds.

        None when `choices` themselves do not decode to an input `keeps` accepts.  At most `calls` calls of
        `keeps` (and none past `deadline`); the best input found by then is returned, never one worse than
        the start (Hypothesis' shortlex order of choice sequences).  With the same `seed` and no deadline
        reached, the same start gives the same result.
        """
        from hypothesis import HealthCheck, Phase, settings
        from hypothesis.internal.conjecture.data import ConjectureResult, Status
        from hypothesis.internal.conjecture.engine import ConjectureRunner, RunIsComplete
        from hypothesis.internal.escalation import InterestingOrigin
        from hypothesis.reporting import with_reporter

        origin = InterestingOrigin.from_exception(_Kept())
        left = calls

        def test_function(data: ConjectureData) -> None:
            nonlocal left
            with BuildContext(data, is_final=False, wrapped_test=_no_test):
                value = data.draw(self.strategy)
            if left <= 0 or deadline.expired():
                # spent: the engine ends the shrink once this call concludes (its own deadline, now past); ending
                # it from inside the draw instead would leave its record of the strategy inconsistent
                runner.finish_shrinking_deadline = 0.0
                return
            left -= 1
            if keeps(value):
                data.mark_interesting(origin)

        runner = ConjectureRunner(test_function, random=random.Random(seed), settings=settings(
            database=None, deadline=None, phases=[Phase.shrink], suppress_health_check=list(HealthCheck)))
        try:
            # the engine reports its deadline as very slow shrinking: not so here, and not for the user's terminal
            with with_reporter(lambda _: None):
                start = runner.cached_test_function(tuple(choices))
                if start.status != Status.INTERESTING or not isinstance(start, ConjectureResult):
                    return None
                runner.shrink(start, lambda result: result.status == Status.INTERESTING)
        except RunIsComplete:
            pass  # the budget, or Hypothesis' own limit on shrinks, ended it: the best so far stands
        best = runner.interesting_test_cases.get(origin)
        if best is None:
            return None
        # realized choices replay without the rng: decoding them again gives the value the predicate accepted
        return self.decode(best.choices, random.Random(seed))

    def to_bytes(self, choices: Sequence[Choice]) -> bytes:
        """Hypothesis' own serialization of a choice sequence."""
        return choices_to_bytes(tuple(choices))

    def from_bytes(self, data: bytes) -> tuple[Choice, ...]:
        """Inverse of to_bytes (ValueError when malformed)."""
        decoded = choices_from_bytes(data)
        if decoded is None:
            raise ValueError("not a serialized choice sequence")
        return tuple(decoded)


class _Kept(Exception):
    """The one interesting origin of `StrategySource.shrink`: the predicate held."""


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


def source_for(obj: Any) -> InputSource:
    """The InputSource for a driver's `source`: a strategy is wrapped, a source used as is."""
    if isinstance(obj, SearchStrategy):
        return StrategySource(obj)
    if isinstance(obj, InputSource):
        return obj
    raise UserError(f"driver input source must be a Hypothesis strategy or an InputSource, got {obj!r}")
