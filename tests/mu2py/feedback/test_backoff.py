"""Backing off from likely-equivalent mutants: thinning keeps its invariants, and a timed campaign uses it."""

import json

from hypothesis import given
from hypothesis import strategies as st

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


def test_a_timed_campaign_backs_off_from_the_equivalent_mutants_it_keeps_reaching():
    """Insertion sort's surviving mutants are equivalent: infected by many inputs, they run ever more rarely."""
    fuzzer = Fuzzer(resolve_target("targets.insertion_sort.driver:sort"), FuzzConfig(seconds=2, seed=1))
    result = fuzzer.run()
    stats, analysis = fuzzer.stats, fuzzer.analysis
    assert stats.likely_equivalent == likely_equivalent(analysis.executions, analysis.kills) >= 1
    # most of what those mutants would have cost is saved: more runs left out than run in all (judging included)
    assert stats.backed_off > stats.mutant_runs
    assert result.report["summary"]["killed"] == len(analysis.kills) > 0


def test_the_backed_off_count_carries_on_past_a_resume(tmp_path, monkeypatch):
    target, out = resolve_target("targets.insertion_sort.driver:sort"), tmp_path / "run"
    Fuzzer(target, FuzzConfig(seconds=1, seed=1, out=out, judge=False)).run()
    before = json.loads((out / "state.json").read_text())["stats"]["backed_off"]
    assert before > 0
    left_out = []
    thin = Backoff.thin

    def counting(self, indices, executions):
        kept = thin(self, indices, executions)
        left_out.append(len(indices) - len(kept))
        return kept

    monkeypatch.setattr(Backoff, "thin", counting)
    fuzzer = Fuzzer(target, FuzzConfig(seconds=2, seed=1, out=out, judge=False))
    fuzzer.resume()
    fuzzer.run()
    assert sum(left_out) > 0
    assert fuzzer.stats.backed_off == before + sum(left_out)
