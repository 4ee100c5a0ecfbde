"""`@given` tests in a hosted pytest session: each example under its own alarm, and no shrinking.

Judging a mutant needs only pass or fail, so two parts of Hypothesis's normal run are waste:

- **Shrinking.** A failing test is shrunk to its minimal example, often hundreds of runs,
  and the verdict is already known.  `without_shrinking` drops the shrink phase from each
  collected `@given` test's settings (every other setting, the database included, is kept;
  the originals are kept too, for the one place that wants Hypothesis's minimal example).
- **Hypothesis's deadline.** An example slower than `settings.deadline` (200 ms by default) fails
  the test: on a loaded machine, or beside another worker, the original itself does, and a verdict
  would follow the load.  `without_shrinking` sets no deadline: a hang is still cut, by mu2py's
  own alarms (the example's and the test's), which scale with the test's time on the baseline.
- **Random examples.** Unseeded, Hypothesis draws other examples on every run, and replays the
  failing ones its database saved (by an earlier mutant of the worker): `force_seed` seeds it as
  `--hypothesis-seed=0` would (which also turns the database off), so the examples follow from the
  seed and the test alone.  Not the option itself: with it, Hypothesis's plugin imports Hypothesis
  in every session, a second of CPU for each fresh interpreter of a suite that never uses it.
- **Waiting out a hang.** A mutant that loops forever inside one example was interrupted
  only by the whole test's timeout (ten times its full run).  `timed_examples` wraps each
  test's inner function (the reassignable `HypothesisHandle.inner_test`) so that, while
  `limit` is set, each example gets an alarm of its own.  An alarm that fires inside an
  example interrupts the mutant's code, not pytest's or Hypothesis's bookkeeping, so the
  worker can go on without a restart (`fired_outside` tells the other case apart).

Invariant: with `limit` None (outside a judged run) a wrapped test behaves as unwrapped, and
its example database key is unchanged (Hypothesis digests the unwrapped function).
"""

from __future__ import annotations

import functools
import signal
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

limit: float | None = None  # seconds per example while a test is judged (None: no alarm of its own)
inside = False  # an example is running (an alarm now interrupts the code under test)
fired_outside = False  # an alarm of the current run fired outside any example


def function_of(item: Any) -> Any:
    """The function behind a collected test (a test method's function: Hypothesis's attributes live there)."""
    obj = getattr(item, "obj", None)
    return getattr(obj, "__func__", obj)


def force_seed(seed: int = 0) -> bool:
    """Seed every `@given` test of this session, as `--hypothesis-seed` does, unless the command line seeded it;
    whether Hypothesis is in use here (a suite that never imported it is left alone)."""
    if "hypothesis" not in sys.modules:
        return False
    from hypothesis import core

    if core.global_force_seed is None:
        core.global_force_seed = seed  # type: ignore[assignment]  # Hypothesis annotates it None: its plugin sets it so too
    return True


def without_shrinking(items: Iterable[Any]) -> dict[Any, Any]:
    """Drop the shrink phase and the deadline from each `@given` test's settings (see the module docstring);
    returns {function: original settings}."""
    if "hypothesis" not in sys.modules:
        # no collected test imported it, so none is a @given test: importing it here would cost every worker
        # (and every replacement) half a second or more
        return {}
    from hypothesis import Phase
    from hypothesis import settings as Settings

    originals: dict[Any, Any] = {}
    for item in items:
        fn = function_of(item)
        current = getattr(fn, "_hypothesis_internal_use_settings", None)
        if current is None or fn in originals or (Phase.shrink not in current.phases and current.deadline is None):
            continue
        originals[fn] = current
        fn._hypothesis_internal_use_settings = Settings(parent=current, deadline=None, phases=[
            p for p in current.phases if p is not Phase.shrink])
    return originals


def _timed(inner: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(inner)
    def example(*args: Any, **kwargs: Any) -> Any:
        global inside
        if limit is None or inside:
            return inner(*args, **kwargs)
        # the whole test's alarm is paused for the example's own (the shorter), then re-armed with what is left
        whole, _ = signal.getitimer(signal.ITIMER_REAL)
        own = min(limit, whole) if whole > 0 else limit
        start = time.monotonic()
        signal.setitimer(signal.ITIMER_REAL, own)
        inside = True
        try:
            return inner(*args, **kwargs)
        finally:
            inside = False
            signal.setitimer(signal.ITIMER_REAL, 0)
            if whole > 0:
                # an example cannot end the whole test's time early: at least a tick is left for its alarm
                signal.setitimer(signal.ITIMER_REAL, max(whole - (time.monotonic() - start), 1e-3))

    example._mu2py_timed = True  # type: ignore[attr-defined]  # a marker attribute on the function
    return example


def timed_examples(items: Iterable[Any]) -> int:
    """Wrap the inner function of each `@given` test once (see the module docstring); how many were wrapped."""
    wrapped = 0
    for item in items:
        handle = getattr(function_of(item), "hypothesis", None)
        inner = getattr(handle, "inner_test", None)
        if inner is None or getattr(inner, "_mu2py_timed", False):
            continue
        handle.inner_test = _timed(inner)  # type: ignore[union-attr]  # not None: it has an inner_test
        wrapped += 1
    return wrapped


def on_alarm() -> None:
    """Note where an alarm fired (called by the session's SIGALRM handler before it raises)."""
    global fired_outside
    if not inside:
        fired_outside = True


def pin_local_constants(modules: Iterable[Any]) -> bool:
    """Make Hypothesis draw its "local constants" from `modules` (the code under test) only; whether it could.

    Hypothesis mixes literals of every loaded module outside site-packages and the stdlib into what it
    generates, re-reading `sys.modules` whenever it grew.  In a worker that set grows with whatever the
    units run so far imported (lazily imported code under test, this tool's own modules when not
    installed in site-packages), so the same test under the same `--hypothesis-seed` generated other
    examples in another worker, or after another unit: `killed_default` differed between two runs.
    Pinned to the modules under test, the examples depend on the seed and the test alone.
    """
    if "hypothesis" not in sys.modules:
        return False
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants, constants_from_module
    except ImportError:  # a Hypothesis without local constants: nothing varies
        return False
    if not callable(getattr(providers, "_get_local_constants", None)):
        return False
    pool = Constants()
    for module in modules:
        pool |= constants_from_module(module)
    providers._get_local_constants = lambda: pool
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    if cache is not None:
        cache.cache.clear()
    return True
