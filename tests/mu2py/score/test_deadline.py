"""A scoring run stops at its deadline (a command's --time budget): what it did not judge is cut, and counted apart."""

from __future__ import annotations

from pathlib import Path

from mu2py.budget import Deadline
from mu2py.budget import now as budget_clock
from mu2py.score.config import ScoreConfig
from mu2py.score.plan import CUT_BY_BUDGET
from mu2py.score.reports import report
from mu2py.score.scoring import score
from mu2py.score.spec import SuiteSpec

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "kill_sample"


def _spec() -> SuiteSpec:
    return SuiteSpec(root=str(SAMPLE), pytest_args=("tests",), modules=("kill_pkg.calc",),
                     files=(str(SAMPLE / "kill_pkg" / "calc.py"),), sys_path=(str(SAMPLE),))


class _Switch:
    """A deadline that comes when the test says so (no clock: the scoring only asks whether it has come)."""

    at = 0.0

    def __init__(self) -> None:
        self.come = False

    def expired(self) -> bool:
        return self.come


def test_a_deadline_already_past_starts_no_worker_and_cuts_every_mutant():
    state = score(_spec(), ScoreConfig(), deadline=Deadline(budget_clock() - 1.0))
    assert state.verdicts and all(v is CUT_BY_BUDGET for v in state.verdicts.values())
    summary = report(state)["summary"]
    assert summary["cut_by_budget"] == len(state.program.mutants) and summary["total"] == 0
    assert summary["out_of_scope"] == 0  # cut by the budget is not out of this run's scope


def test_a_deadline_coming_while_mutants_run_keeps_their_verdicts_and_cuts_the_rest():
    switch = _Switch()
    judged: list[int] = []

    def told(state, phase):
        if phase == "mutants" and state.verdicts:
            judged.append(len(state.verdicts))
            switch.come = True  # after the first verdicts: the run stops at its next look at the deadline

    state = score(_spec(), ScoreConfig(), told, deadline=switch)  # type: ignore[arg-type]
    cut = [i for i, v in state.verdicts.items() if v is CUT_BY_BUDGET]
    assert judged and cut and len(state.verdicts) == len(state.program.mutants)
    summary = report(state)["summary"]
    assert summary["cut_by_budget"] == len(cut) and summary["total"] == len(state.program.mutants) - len(cut)
