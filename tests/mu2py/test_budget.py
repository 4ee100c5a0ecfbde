"""Budget and Deadline: one monotonic clock, one place that clips a timeout."""

from __future__ import annotations

import math
import pickle

import pytest

from mu2py import budget as budget_module
from mu2py.budget import MIN_RUN, Budget, Deadline


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A settable monotonic clock: `clock[0]` is what `time.monotonic()` reads."""
    reading = [1000.0]
    monkeypatch.setattr(budget_module.time, "monotonic", lambda: reading[0])
    return reading


def test_no_deadline_never_expires_nor_clips(clock):
    never = Deadline.never()
    assert not never.bounded and not never.expired()
    assert never.remaining() == math.inf
    assert never.clip(3.0) == 3.0 and never.clip(None) is None
    assert never.allot(3.0) == (3.0, False) and never.allot(None) == (None, False)


def test_deadline_counts_down_and_never_goes_negative(clock):
    deadline = Deadline.after(10.0)
    assert deadline.remaining() == 10.0 and not deadline.expired()
    clock[0] += 4.0
    assert deadline.remaining() == 6.0
    clock[0] += 7.0
    assert deadline.remaining() == 0.0 and deadline.expired()


def test_clip_takes_the_shorter_of_timeout_and_what_is_left(clock):
    deadline = Deadline.after(5.0)
    assert deadline.allot(2.0) == (2.0, False) and deadline.clip(2.0) == 2.0
    assert deadline.allot(8.0) == (5.0, True) and deadline.clip(8.0) == 5.0
    assert deadline.allot(None) == (5.0, True)
    clock[0] += 5.0  # a run is never given 0 s: a timer takes 0 as no limit at all
    assert deadline.allot(8.0) == (MIN_RUN, True)
    clock[0] -= 5.0
    # measured from another moment (when a host's run started)
    assert deadline.clip(8.0, since=clock[0] + 1.0) == 4.0


def test_earlier_and_sooner_by(clock):
    a, b = Deadline.after(5.0), Deadline.after(3.0)
    assert a.earlier(b) == b and b.earlier(a) == b
    assert Deadline.never().earlier(a) == a and a.earlier(Deadline.never()) == a
    assert a.sooner_by(2.0).remaining() == 3.0
    assert Deadline.never().sooner_by(2.0) == Deadline.never()


def test_a_deadline_crosses_processes_as_the_same_moment():
    deadline = Deadline.after(30.0)
    assert pickle.loads(pickle.dumps(deadline)) == deadline


def test_budget_needs_trials_or_seconds():
    with pytest.raises(ValueError):
        Budget()
    with pytest.raises(ValueError):
        Budget(seconds=-1.0)


def test_trial_budget_has_no_deadline(clock):
    budget = Budget(trials=10)
    assert not budget.timed and budget.deadline() == Deadline.never()
    assert budget.remaining() == math.inf
    assert not budget.done(9) and budget.done(10)
    clock[0] += 1e6
    assert not budget.done(0)


def test_time_budget_ends_at_its_deadline(clock):
    budget = Budget(seconds=15.0)
    assert budget.timed and budget.remaining() == 15.0 and not budget.done()
    clock[0] += 10.0
    assert budget.elapsed() == 10.0 and budget.remaining() == 5.0
    clock[0] += 5.0
    assert budget.done() and budget.deadline().expired()


def test_both_bounds_whichever_comes_first(clock):
    budget = Budget(trials=5, seconds=15.0)
    assert budget.done(5)
    clock[0] += 20.0
    assert budget.done(0)


def test_resumed_budget_gets_what_is_left(clock):
    budget = Budget(seconds=60.0).resumed(45.0)
    assert budget.remaining() == 15.0 and budget.elapsed() == 45.0
    clock[0] += 15.0
    assert budget.done() and budget.elapsed() == 60.0


def test_split_shares_trials_exactly_and_seconds_evenly(clock):
    parts = Budget(trials=10, seconds=30.0).split(3)
    assert [p.trials for p in parts] == [4, 3, 3]
    assert all(p.seconds == 10.0 for p in parts)
    clock[0] += 6.0
    parts = Budget(seconds=30.0, started=clock[0] - 6.0).split(4)  # 24 s left
    assert [p.seconds for p in parts] == [6.0] * 4 and all(p.trials is None for p in parts)
    with pytest.raises(ValueError):
        Budget(trials=1).split(0)
