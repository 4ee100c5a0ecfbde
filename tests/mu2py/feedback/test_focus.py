"""The focused probe: on open mutants it records what the full probe records, and it is rebuilt only as sites close."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.feedback.analysis import Analysis
from mu2py.feedback.focus import FocusedProbe
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

DOCUMENTS = ['{"a": [1, 2.5, "x\\n", null, true], "b": {}}', "[1, -2e3, \"\\u00e9\"]", '{"k": ', "nul", "  3.0  ",
             '"tab\\tend"', "[[], {}, [[1]]]", '{"a" 1}', "-0", "[1,]"]


@pytest.fixture(scope="module")
def json_analysis(json_program: Program) -> Analysis:
    return Analysis(json_program, isolation="none")


@pytest.fixture(scope="module")
def full_records(json_analysis: Analysis) -> dict[str, tuple[set[int], set[int]]]:
    """Per document, the sites the full probe reached and the mutants it infected."""
    out = {}
    for doc in DOCUMENTS:
        _, reached, infected = json_analysis.run_original(doc)
        out[doc] = (set(reached), set(infected))
    return out


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32), st.floats(0.0, 1.0))
def test_on_open_mutants_the_focused_probe_records_what_the_full_one_does(json_analysis, full_records,
                                                                          seed: int, fraction: float) -> None:
    program = json_analysis.program
    rnd = random.Random(seed)
    closed = {i for i in range(len(program.mutants)) if rnd.random() < fraction}
    focus = FocusedProbe(program, started=float("-inf"))
    built = focus.refocus(closed)
    open_sites = focus.open_sites(closed)
    assert built == (focus.probe is not None)
    for doc, (reached, infected) in full_records.items():
        _, f_reached, f_infected = json_analysis.run_original(doc, focus)
        open_mutants = {i for i in range(len(program.mutants)) if i not in closed and i not in program.static}
        assert f_infected & open_mutants == infected & open_mutants, doc
        assert f_reached & open_sites == reached & open_sites, doc
        if built:  # no probe stands where every mutant is closed
            assert f_reached <= focus.probed


def test_a_rebuild_waits_for_enough_closed_sites_and_for_its_own_cost(json_program: Program) -> None:
    focus = FocusedProbe(json_program, started=float("-inf"))
    sites = sorted(focus.sites_of)
    one_site = set(focus.sites_of[sites[0]])
    assert not focus.refocus(one_site)  # one closed site of hundreds: not worth a build
    half = {i for s in sites[: len(sites) // 2] for i in focus.sites_of[s]}
    assert focus.refocus(half) and focus.builds == 1
    assert len(focus.probed) == len(sites) - len(sites) // 2
    most = {i for s in sites[: 9 * len(sites) // 10] for i in focus.sites_of[s]}
    assert not focus.refocus(most)  # within SPACING times the last build's cost
    focus._next_at = 0.0
    assert focus.refocus(most) and len(focus.probed) == len(sites) - 9 * len(sites) // 10


def test_the_first_rebuild_waits_for_spacing_times_the_full_probes_build(json_program: Program) -> None:
    """A module whose probe takes seconds to build (ipaddress: about 6 s) is not rebuilt in a campaign's first
    minute: the full probe's build time stands for a rebuild's until one is measured."""
    import time

    from mu2py.feedback.focus import SPACING

    json_program.probed()
    assert json_program.probe_seconds > 0
    sites = sorted(json_program.by_site)
    half = {i for s in sites[: len(sites) // 2] for i in json_program.by_site[s]}
    now = time.perf_counter()
    early = FocusedProbe(json_program, started=now - SPACING * json_program.probe_seconds / 2)
    assert not early.refocus(half) and early.builds == 0
    late = FocusedProbe(json_program, started=now - SPACING * json_program.probe_seconds * 1.01)
    assert late.refocus(half) and late.builds == 1


def test_a_timed_campaign_focuses_its_probe_and_keeps_selecting_open_mutants(tmp_path: Any) -> None:
    target = resolve_target("targets.json_decoder.driver:parse")
    fuzzer = Fuzzer(target, FuzzConfig(seconds=3600, seed=3, out=tmp_path / "out", judge=False))
    runs = fuzzer.mutant_runs
    assert runs.focus is not None
    # as if the campaign had run long enough to afford a rebuild (see the test above)
    runs.focus = FocusedProbe(runs.focus.program, started=float("-inf"))
    try:
        for _ in range(300):
            fuzzer.trial()
        runs.update_share(fuzzer.elapsed())
        assert fuzzer.stats.probe_builds == 1 and runs.focus.probe is not None
        analysis = fuzzer.analysis
        assert analysis is not None
        # import-time mutants have no site (and select() takes them in rotation): not the probe's concern
        closed = runs.corpus_infected.union(analysis.kills, analysis.program.static)
        for doc in DOCUMENTS:
            _, reached, infected = analysis.run_original(doc)
            _, f_reached, f_infected = analysis.run_original(doc, runs.focus)
            full = {i for i in analysis.select(reached, infected).run if i not in closed}
            assert {i for i in analysis.select(f_reached, f_infected).run if i not in closed} == full
    finally:
        fuzzer.analysis.close()
        fuzzer._lock.release()


def test_a_trial_budget_keeps_the_full_probe(tmp_path: Any) -> None:
    target = resolve_target("targets.json_decoder.driver:parse")
    fuzzer = Fuzzer(target, FuzzConfig(trials=10, seed=3))
    assert fuzzer.mutant_runs.focus is None
