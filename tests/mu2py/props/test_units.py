"""What bounds a props campaign's wall time under `--time`: its fuzzing share, its shrinking budget, and the
share the fuzzing leaves the shrinking."""

from mu2py.props.run import fuzz_seconds
from mu2py.props.units import Campaign, shrink_budget


def test_default_runs_come_out_of_the_budget_and_fuzzing_keeps_a_quarter() -> None:
    assert fuzz_seconds(20.0, 5.0) == 15.0
    assert fuzz_seconds(20.0, 19.0) == 5.0  # default runs that take the whole budget leave fuzzing a quarter
    assert fuzz_seconds(None, 5.0) is None  # --trials: a count, not a time


def test_shrinking_gets_a_share_of_the_budget() -> None:
    assert shrink_budget(20.0, 15.0) == 5.0
    assert shrink_budget(4.0, 3.0) == 2.0  # at least two seconds, for a first minimal example
    assert shrink_budget(None, 12.0) == 3.0  # --trials: a share of what fuzzing took


def test_under_time_the_fuzzing_leaves_the_shrinking_its_share_once_it_found_something() -> None:
    # a test's fuzzing of 15 s in a 20 s budget stops at 11.25 s with a kill to shrink, which then has till 15 s
    assert Campaign("t", 0, 0, "mutation", (), seconds=15.0, budget=20.0).reserve == 3.75
    # a short budget whose default runs left the fuzzing 2 s: half a second for shrinking
    assert Campaign("t", 0, 0, "mutation", (), seconds=2.0, budget=3.0).reserve == 0.5
    assert Campaign("t", 0, 0, "mutation", (), trials=100).reserve == 0.0  # --trials: no time to keep to


def test_under_time_the_default_runs_take_half_the_budget_shared_by_the_test_s_mutants() -> None:
    from mu2py.props.run import DEFAULT_SHARE, PropsConfig, _default_runs
    from mu2py.score.recorded import TestRecord

    base = TestRecord("t", "passed", 0.01)
    timed = _default_runs("t", 0, base, tuple(range(400)), PropsConfig(seconds=8.0))
    assert timed.each == DEFAULT_SHARE * 8.0 / 400  # 400 runs of the test in 4 s at most
    assert _default_runs("t", 0, base, tuple(range(400)), PropsConfig(trials=50)).each is None
