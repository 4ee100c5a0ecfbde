"""@given tests judged in a hosted session: no shrinking, and a hang cut short inside its example."""

import signal
import time
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from mu2py.score import given as given_mod


class _Alarm(BaseException):
    pass


def _handler(signum: int, frame: object) -> None:
    given_mod.on_alarm()
    raise _Alarm


@pytest.fixture
def alarm() -> Iterator[None]:
    previous = signal.signal(signal.SIGALRM, _handler)
    given_mod.fired_outside = False
    try:
        yield
    finally:
        given_mod.limit = None
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _item(fn: object) -> SimpleNamespace:
    return SimpleNamespace(obj=fn)


def test_judging_runs_do_not_shrink_and_the_original_settings_are_kept() -> None:
    calls = []

    @settings(database=None, max_examples=200, derandomize=True)
    @given(st.lists(st.integers()))
    def prop(xs: list[int]) -> None:
        calls.append(xs)
        assert sum(xs) < 1000

    with pytest.raises(AssertionError):
        prop()
    shrinking = len(calls)
    originals = given_mod.without_shrinking([_item(prop), _item(prop)])  # each function once
    assert list(originals) == [prop] and Phase.shrink in originals[prop].phases
    assert Phase.shrink not in prop._hypothesis_internal_use_settings.phases
    assert prop._hypothesis_internal_use_settings.max_examples == 200  # everything else is kept
    calls.clear()
    with pytest.raises(AssertionError):
        prop()
    assert len(calls) < shrinking  # the failure is found as before, and not shrunk


def test_a_hanging_example_is_cut_short_inside_the_example(alarm: None) -> None:
    @settings(database=None, deadline=None, phases=[Phase.generate], derandomize=True)
    @given(st.integers(0, 10))
    def prop(x: int) -> None:
        while x > 5:  # a mutant's endless loop
            pass

    assert given_mod.timed_examples([_item(prop), _item(prop)]) == 1  # wrapped once
    given_mod.limit = 0.2
    signal.setitimer(signal.ITIMER_REAL, 30.0)  # the whole test's alarm
    start = time.monotonic()
    with pytest.raises(_Alarm):
        prop()
    assert time.monotonic() - start < 5.0 and not given_mod.fired_outside
    given_mod.limit = None
    signal.setitimer(signal.ITIMER_REAL, 0)


def test_examples_that_end_give_the_whole_alarm_back(alarm: None) -> None:
    @settings(database=None, deadline=None, max_examples=5)
    @given(st.integers())
    def prop(x: int) -> None:
        pass

    given_mod.timed_examples([_item(prop)])
    given_mod.limit = 0.5
    signal.setitimer(signal.ITIMER_REAL, 20.0)
    prop()
    remaining, _ = signal.getitimer(signal.ITIMER_REAL)
    assert 10.0 < remaining <= 20.0  # the whole test's alarm runs on, less the time spent
    given_mod.limit = None
    prop()  # without a limit the wrapper is transparent
    signal.setitimer(signal.ITIMER_REAL, 0)
