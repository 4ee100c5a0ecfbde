"""The progress throttle and the --fail-under check every long command shares."""

from __future__ import annotations

import mu2py.cli.progress as progress
from mu2py.cli.progress import Throttle, below_fail_under


def test_a_throttle_lets_a_new_phase_through_at_once_and_the_same_phase_only_after_its_interval(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    throttle = Throttle(every=5.0)
    assert throttle.due("baseline")
    assert not throttle.due("baseline")
    assert throttle.due("mutants")  # a phase change is always shown
    now[0] += 4.9
    assert not throttle.due("mutants")
    now[0] += 0.2
    assert throttle.due("mutants")
    assert throttle.elapsed == now[0] - 100.0


def test_a_throttle_reads_the_interval_when_made(monkeypatch):
    monkeypatch.setattr(progress, "PROGRESS_EVERY", 0.25)
    assert Throttle().every == 0.25


def test_fail_under_names_the_shortfall_and_nothing_else():
    assert below_fail_under(91.23, 95) == "mutation score 91.2% is below --fail-under 95%"
    assert below_fail_under(95.0, 95) is None
    assert below_fail_under(94.96, 95) == "mutation score 94.96% is below --fail-under 95%"  # not "95.0% is below"
    assert below_fail_under(10.0, None) is None
    assert below_fail_under(None, 95) is None  # nothing was judged: no shortfall
