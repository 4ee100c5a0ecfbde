"""What bounds a props campaign's wall time under `--time`: its fuzzing share and its shrinking budget."""

from mu2py.props.run import fuzz_seconds
from mu2py.props.units import shrink_budget


def test_default_runs_come_out_of_the_budget_and_fuzzing_keeps_a_quarter() -> None:
    assert fuzz_seconds(20.0, 5.0) == 15.0
    assert fuzz_seconds(20.0, 19.0) == 5.0  # default runs that take the whole budget leave fuzzing a quarter
    assert fuzz_seconds(None, 5.0) is None  # --trials: a count, not a time


def test_shrinking_gets_a_share_of_the_budget() -> None:
    assert shrink_budget(20.0, 15.0) == 5.0
    assert shrink_budget(4.0, 3.0) == 2.0  # at least two seconds, for a first minimal example
    assert shrink_budget(None, 12.0) == 3.0  # --trials: a share of what fuzzing took
