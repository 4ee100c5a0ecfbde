"""The likely-equivalent list: only survivors several inputs infected, that ran on them and survived a search aimed at
each alone; the others counted by why, not listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from mu2py.survivors.aim import aim
from mu2py.survivors.equivalents import AIMED_TRIALS, MIN_INFECTING, Evidence, aimed_budget, aimed_seed, gather, rank
from mu2py.survivors.kill import KillOptions, aimed_searches
from mu2py.testgen.signatures import infer_named
from tests.mu2py.conftest import _data_on_path

EQUIV_SAMPLE = Path(__file__).resolve().parents[2] / "data" / "equiv_sample"


@pytest.fixture
def sample_on_path(monkeypatch):
    """tests/data/equiv_sample on sys.path for one test, its modules forgotten after it."""
    yield from _data_on_path(monkeypatch, "equiv_sample", "equiv_pkg")


def _mutants(spec):
    from mu2py.mutants.catalog import Program
    from mu2py.testgen.function_driver import function_target

    return {m.id: m.to_json() for m in Program(function_target(spec)).mutants}


def test_masked_survivors_are_listed_with_evidence_and_the_rest_counted(sample_on_path):
    """equiv_pkg.ops on a fixed seed: `square`'s sign mutants are masked by `y * y` (equivalent), `twenties`'s
    `20 -> 21` and kin survive its short campaign on a few inputs and die in the search aimed at each; `+ 0 -> - 0`
    is never infected and the body under `isinstance(n, bool)` never reached."""
    square, twenties = infer_named("equiv_pkg.ops", "square"), infer_named("equiv_pkg.ops", "twenties")
    mutants = {**_mutants(square), **_mutants(twenties)}
    # the functions' own campaigns, as `kill` runs them, each over all its function's mutants (a suite detecting none)
    campaigns = [aim(square, set(_mutants(square)), trials=16, seconds=None, seed=0),
                 aim(twenties, set(_mutants(twenties)), trials=8, seconds=None, seed=0)]
    evidence = gather(campaigns)
    rarely = [i for i in mutants if i.startswith("equiv_pkg.ops:13:15:constant")]  # 20 -> 21, 20 -> 19
    assert all(evidence[i].candidate for i in rarely)
    candidates = {i for i, e in evidence.items() if e.candidate}
    options = KillOptions(root=EQUIV_SAMPLE, trials=24, seed=0)
    lines = []
    searches, aimed = aimed_searches(lines.append, campaigns, evidence, list(mutants), options, None)
    searched = {i for i, c in searches if c.error is None}
    assert searched == {i for i, _ in searches} == candidates
    assert aimed["trials"] == AIMED_TRIALS and all(s["trials"] == AIMED_TRIALS for s in aimed["searches"])
    by_search = {s["id"]: s for s in aimed["searches"]}
    # the rarely killed ones are killed by the search aimed at them: kills like the others, with their inputs
    for i in rarely:
        assert by_search[i]["killed"] == "output" and by_search[i]["function"] == "equiv_pkg.ops.twenties"
        search = dict(searches)[i]
        label = search.kills[i][0]
        assert label.startswith("aimed") and label in search.inputs
    assert len(lines) == len(searches) + 1 and "alone" in lines[0]
    # the re-score: every mutant a campaign killed is detected by the test written for it
    still = [m for i, m in mutants.items() if evidence.get(i, Evidence()).killed is None]
    likely, unlisted = rank(still, evidence, searched)
    listed = {e.id for e in likely}
    assert "equiv_pkg.ops:5:8:unary_removal" in listed  # -x -> x
    assert all(i.startswith("equiv_pkg.ops:5:") for i in listed)  # all in `square`'s first line
    assert not listed & set(rarely)
    for e in likely:
        assert e.survived >= MIN_INFECTING and e.infected >= e.survived and e.runs >= 1
        assert 1 <= len(e.examples) <= 3 and all(x.startswith("square(x=") for x in e.examples)
        assert e.masked.startswith(f"infected on {e.infected} distinct inputs; the function's return value, "
                                   "exception and warnings equal the original's on ")
        assert e.to_json()["examples"] == list(e.examples)
    assert [(e.survived, e.runs) for e in likely] == sorted(((e.survived, e.runs) for e in likely), reverse=True)
    assert unlisted.unreached == 1  # `return False` -> `return True`, under the isinstance
    assert unlisted.uninfected == 1  # `y * y + 0` -> `y * y - 0`
    assert unlisted.killed == unlisted.unsearched == 0
    assert len(listed) + unlisted.unreached + unlisted.uninfected + unlisted.few_inputs == len(still)


def test_rank_never_lists_a_mutant_without_evidence_or_search():
    def entry(i):
        return {"id": i, "file": "m.py", "line": 1, "original": "a", "mutated": "b"}

    def seen(infecting, survived, runs, killed=None):
        return Evidence(reached=infecting + 1, infecting={("f", bytes([k])) for k in range(infecting)},
                        survived={("f", bytes([k])) for k in range(survived)}, runs=runs,
                        examples=["f(x=0)"], killed=killed)

    evidence = {"many": seen(5, 5, 6), "some": seen(3, 2, 2), "once": seen(4, 1, 1), "never_ran": seen(3, 0, 0),
                "hung": seen(3, 3, 3, killed="timeout"), "unsearched": seen(3, 3, 3),
                "uninfected": Evidence(reached=4)}
    alive = [entry(i) for i in [*evidence, "unreached"]]
    likely, unlisted = rank(alive, evidence, {"many", "some", "once", "never_ran", "hung"})
    assert [e.id for e in likely] == ["many", "some"]
    assert likely[1].masked == ("infected on 3 distinct inputs; the function's return value, exception and warnings "
                                "equal the original's on the 2 it ran on (2 runs)")
    assert "on all of them (6 runs)" in likely[0].masked
    assert unlisted.to_json() == {"unreached": 1, "uninfected": 1, "few_inputs": 2, "killed": 1, "unsearched": 1}


def test_aimed_budget_and_seed():
    assert aimed_budget(100, None, 4) == (AIMED_TRIALS, None)
    trials, seconds = aimed_budget(None, 60.0, 4)
    assert trials == AIMED_TRIALS and seconds == pytest.approx(1.5)
    assert aimed_seed(0, "m:1:2:x") == aimed_seed(0, "m:1:2:x") != aimed_seed(0, "m:1:2:y")
    assert aimed_seed(0, "m:1:2:x") != aimed_seed(1, "m:1:2:x")
