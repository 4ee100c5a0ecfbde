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

    # a deadline of its own: CI's Hypothesis profile (CI=true) sets none
    @settings(database=None, max_examples=200, derandomize=True, deadline=1000)
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
    assert prop._hypothesis_internal_use_settings.deadline is None  # a loaded machine decides no verdict
    assert originals[prop].deadline is not None
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


def _seeded_examples() -> list[int]:
    """What a seeded @given test generates (no database, generate phase only): run it, record its examples."""
    from hypothesis import seed

    seen: list[int] = []

    @seed(7)
    @settings(max_examples=400, database=None, phases=[Phase.generate], deadline=None)
    @given(st.integers())
    def collect(n: int) -> None:
        seen.append(n)

    collect()
    return seen


@pytest.fixture
def own_constants(monkeypatch: pytest.MonkeyPatch, tmp_path) -> Iterator[object]:
    """Hypothesis's local-constant lookup put back (and its cache emptied) after the test; tmp_path importable."""
    from hypothesis.internal.conjecture import providers

    monkeypatch.setattr(providers, "_get_local_constants", providers._get_local_constants)
    monkeypatch.syspath_prepend(str(tmp_path))
    yield providers
    providers.CONSTANTS_CACHE.cache.clear()


def test_a_module_loaded_later_changes_no_seeded_example_once_constants_are_pinned(own_constants, tmp_path) -> None:
    """The same seed, the same examples, whatever a worker imported in between (`killed_default` was unstable)."""
    import importlib
    import sys

    (tmp_path / "mu2py_pinned_under_test.py").write_text("LIMIT = 424242\n")
    (tmp_path / "mu2py_pinned_late.py").write_text("MAGIC = 987654321987\n")
    under_test = importlib.import_module("mu2py_pinned_under_test")
    try:
        assert given_mod.pin_local_constants([under_test])
        first = _seeded_examples()
        importlib.import_module("mu2py_pinned_late")  # as a lazily imported module would be, between two units
        second = _seeded_examples()
        assert first == second and 424242 in first and 987654321987 not in second
    finally:
        sys.modules.pop("mu2py_pinned_under_test", None)
        sys.modules.pop("mu2py_pinned_late", None)



def test_score_sessions_seed_hypothesis_unless_the_command_line_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same examples on every run (and Hypothesis's database off): a verdict never follows a random draw."""
    from hypothesis import core

    monkeypatch.setattr(core, "global_force_seed", None)
    assert given_mod.force_seed() and core.global_force_seed == 0
    monkeypatch.setattr(core, "global_force_seed", 5)  # `--hypothesis-seed=5`, as props passes its --seed
    assert given_mod.force_seed() and core.global_force_seed == 5
