"""Aimed campaigns: mutant runs limited to the survivors given, evidence counted, reproducible under a trial budget."""

import sys
from pathlib import Path

import pytest

from mu2py.survivors.aim import aim
from mu2py.testgen.seeds import seeded
from mu2py.testgen.signatures import infer_named

KILL_SAMPLE = Path(__file__).resolve().parents[2] / "data" / "kill_sample"


@pytest.fixture
def sample_on_path(monkeypatch):
    monkeypatch.syspath_prepend(str(KILL_SAMPLE))
    yield
    for name in [n for n in sys.modules if n.startswith("kill_pkg")]:
        del sys.modules[name]


def _ids(spec):
    from mu2py.mutants.catalog import Program
    from mu2py.testgen.function_driver import function_target

    return [m.id for m in Program(function_target(spec)).mutants]


def test_aim_runs_only_the_survivors_given(sample_on_path):
    spec = infer_named("kill_pkg.calc", "grade")
    ids = _ids(spec)
    grade_ids = [i for i in ids if i.startswith(("kill_pkg.calc:13", "kill_pkg.calc:14", "kill_pkg.calc:15"))]
    alive = set(grade_ids[:4])
    first = aim(spec, alive, trials=60, seconds=None, seed=3)
    assert first.error is None and first.trials == 60
    assert set(first.kills) <= alive and first.kills
    assert set(first.runs) | set(first.kills) <= alive  # nothing else ran
    assert all(first.reached[i] >= first.infected[i] for i in alive)
    again = aim(spec, alive, trials=60, seconds=None, seed=3)
    assert again.kills == first.kills and list(again.inputs) == list(first.inputs)
    assert again.infected == first.infected


def test_seeds_drive_an_unhinted_function(sample_on_path):
    spec = infer_named("kill_pkg.calc", "mean", seeds={"values": seeded([[2, 4, 9]])})
    assert spec.strategy is not None
    assert spec.params[0].how == "one of 1 value the suite passes or variants of them, or values of their shape"
    unseeded = infer_named("kill_pkg.calc", "mean")
    assert unseeded.skipped and "no type hint" in unseeded.skipped
    division = [i for i in _ids(spec) if i.startswith("kill_pkg.calc:23") and i.endswith("arithmetic")]
    campaign = aim(spec, set(division), trials=40, seconds=None, seed=0)
    assert set(campaign.kills) == set(division)
