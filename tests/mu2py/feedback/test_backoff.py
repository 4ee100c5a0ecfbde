"""Backing off from likely-equivalent mutants: thinning keeps its invariants, and a timed campaign uses it."""

import json

from hypothesis import given
from hypothesis import strategies as st

from mu2py.budget import Budget, now
from mu2py.feedback.backoff import FREE, Backoff, likely_equivalent
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.target.modules import resolve_target


@given(st.lists(st.integers(0, 10_000), max_size=60), st.integers(0, 2**32))
def test_thinning_keeps_every_fresh_mutant_and_the_order(executions, seed):
    indices = list(range(len(executions)))
    backoff = Backoff(seed)
    kept = backoff.thin(indices, executions)
    assert kept == [i for i in indices if i in set(kept)]  # a subsequence: order kept
    assert {i for i in indices if executions[i] < FREE} <= set(kept)
    assert Backoff(seed).thin(indices, executions) == kept  # the seed decides every choice


def test_a_mutant_run_many_times_still_runs_now_and_then():
    backoff = Backoff(1)
    kept = sum(len(backoff.thin([0], [800])) for _ in range(10_000))
    assert 50 < kept < 150  # kept with probability FREE / 800: about 100 times in 10 000


def _spent() -> Budget:
    """A one-hour budget of which 3000 s are gone: mutation analysis has used none of its share."""
    return Budget(seconds=3600, started=now() - 3000)


def _timed_trials(fuzzer: Fuzzer, n: int) -> Fuzzer:
    """`n` trials of a --time campaign, whatever the machine's load: trials run outside `run()`, on a budget
    started long ago (`_spent`), find the share of time unspent, so every coverage-neutral input has its mutants
    selected (and thinned); then the corpus is judged, as `run()` ends."""
    for _ in range(n):
        fuzzer.trial()
    fuzzer.finish_judging()  # as run() ends
    fuzzer.checkpoint(final=True)
    return fuzzer


def test_a_timed_campaign_backs_off_from_the_equivalent_mutants_it_keeps_reaching():
    """Insertion sort's surviving mutants are equivalent: infected by many inputs, they run ever more rarely."""
    fuzzer = _timed_trials(Fuzzer(resolve_target("targets.insertion_sort.driver:sort"),
                                  FuzzConfig(seconds=3600, seed=1), budget=_spent()), 3000)
    fuzzer.analysis.close()
    stats, analysis = fuzzer.stats, fuzzer.analysis
    assert stats.likely_equivalent == likely_equivalent(analysis.executions, analysis.kills) >= 1
    # most of what those mutants would have cost is saved: more runs left out than run in all (judging included)
    assert stats.backed_off > stats.mutant_runs
    assert analysis.report()["summary"]["killed"] == len(analysis.kills) > 0


def test_the_backed_off_count_carries_on_past_a_resume(tmp_path, monkeypatch):
    target, out = resolve_target("targets.insertion_sort.driver:sort"), tmp_path / "run"
    first = _timed_trials(Fuzzer(target, FuzzConfig(seconds=3600, seed=1, out=out), budget=_spent()), 2000)
    first.analysis.close()
    first._lock.release()  # what run() does on its way out
    before = json.loads((out / "state.json").read_text())["stats"]["backed_off"]
    assert before > 0
    left_out = []
    thin = Backoff.thin

    def counting(self, indices, executions):
        kept = thin(self, indices, executions)
        left_out.append(len(indices) - len(kept))
        return kept

    monkeypatch.setattr(Backoff, "thin", counting)
    fuzzer = Fuzzer(target, FuzzConfig(seconds=3600, seed=1, out=out), budget=_spent())
    fuzzer.resume()
    _timed_trials(fuzzer, 2000)
    fuzzer.analysis.close()
    fuzzer._lock.release()
    assert sum(left_out) > 0
    assert fuzzer.stats.backed_off == before + sum(left_out)
