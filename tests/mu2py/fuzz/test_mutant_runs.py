"""Timed mutant runs: exploration's kill rate is sampled, and the share bounds neutral inputs' analysis only."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from mu2py.engine.runs import Status
from mu2py.feedback.analysis import Analysis
from mu2py.fuzz.config import FuzzConfig, Stats
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.fuzz.mutant_runs import SAMPLE, MutantRuns
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

DOCUMENT = '{"a": [1, 2.5, "x\\n", null, true], "b": {}}'


@pytest.fixture(scope="module")
def json_target():
    return resolve_target("targets.json_decoder.driver:parse")


def test_inputs_adding_coverage_run_a_sample_of_the_mutants_they_first_infect(tmp_path: Path, json_target) -> None:
    # a time budget far beyond the trials driven here: the campaign is timed, and drives no clock of its own
    fuzzer = Fuzzer(json_target, FuzzConfig(seconds=3600, seed=2, out=tmp_path / "out", judge=False))
    fuzzer._start = time.perf_counter()
    runs = fuzzer.mutant_runs
    sampled: list[tuple[int, int]] = []
    sample = runs._sample_novel

    def watched(value, original, name, infected, stop_at):  # type: ignore[no-untyped-def]
        before = runs._sampled_runs
        killed = sample(value, original, name, infected, stop_at)
        sampled.append((runs._sampled_runs - before, len(killed)))
        return killed

    runs._sample_novel = watched  # type: ignore[method-assign]
    try:
        for _ in range(200):
            fuzzer.trial()
    finally:
        fuzzer.analysis.close()
        fuzzer._lock.release()
    saved_for_coverage = [e for e in fuzzer.corpus.entries if e.new_coverage]
    assert len(sampled) == len(saved_for_coverage) > 1  # every input that added coverage, and only those
    assert all(0 <= ran <= SAMPLE and killed <= ran for ran, killed in sampled)
    assert runs._sampled_runs == sum(ran for ran, _ in sampled) > 0
    # a kill of the sample is the input's own: recorded on its entry, and not sought again at the end
    kills = {mutant for e in saved_for_coverage for mutant in e.kills}
    assert runs._sampled_kills == len(kills) > 0
    assert all(not e.judged for e in saved_for_coverage)


def test_the_share_bounds_neutral_analysis_not_the_probed_runs_of_coverage(json_target) -> None:
    program = Program(json_target)
    analysis = Analysis(program, isolation="none")
    stats = Stats()
    runs = MutantRuns(analysis, FuzzConfig(seconds=60, seed=0), stats)
    original = analysis.run_original(DOCUMENT)[0]
    assert original.status is Status.OK
    now = time.perf_counter()
    # ten seconds in: the probed runs of inputs that added coverage took 9 s, neutral inputs nothing yet
    stats.seconds_analysis, stats.seconds_neutral = 9.0, 0.0
    runs.run(DOCUMENT, original, "n1", 0, now, now - 10.0, None)
    assert stats.analysed == 1  # a neutral input is analysed: its share of the time is unspent
    stats.seconds_neutral = 9.0  # past any share (at most 0.4 of 10 s)
    runs.run(DOCUMENT, original, "n2", 0, time.perf_counter(), now - 10.0, None)
    assert stats.analysed == 1
