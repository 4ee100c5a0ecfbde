"""Seeds: the argument values a suite passes, recorded in a fresh interpreter, and strategies of their shape."""

import random
import shutil
from pathlib import Path

import pytest

from mu2py.inputs.generators import StrategySource
from mu2py.survivors.seeds import record_seeds, seeded, shape_strategy

KILL_SAMPLE = Path(__file__).resolve().parents[2] / "data" / "kill_sample"


def _draws(strategy, n=60, seed=0):
    source = StrategySource(strategy)
    rng = random.Random(seed)
    return [d.value for d in (source.decode((), rng) for _ in range(n)) if d is not None]


def test_shape_of_plain_data():
    values = _draws(shape_strategy([[1, 2], [3]]))
    assert values and all(isinstance(v, list) and all(type(i) is int for i in v) for v in values)
    mixed = _draws(shape_strategy([1, "a"]))
    assert {type(v) for v in mixed} == {int, str}
    assert all(isinstance(v, dict) for v in _draws(shape_strategy([{"k": 1.5}])))
    assert shape_strategy([object()]) is None  # not plain data: no shape, the values alone


def test_seeded_draws_the_values_themselves():
    marker = object()
    s = seeded([marker])
    assert "one of 1 value the suite passes" == s.how and s.alone_how == s.how
    assert _draws(s.alone, 5) == [marker] * 5
    assert seeded([3, 4]).alone_how.endswith("or values of their shape")


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("seeds") / "project"
    shutil.copytree(KILL_SAMPLE, root)
    return root


def test_record_seeds_from_the_suite(sample):
    functions = [("kill_pkg.calc", "mean"), ("kill_pkg.calc", "clamp"), ("kill_pkg.stubbed", "halve"),
                 ("kill_pkg.calc", "no_such_function")]
    seeds = record_seeds(str(sample), ["tests"], functions, [str(sample)])
    assert seeds == {"kill_pkg.calc.mean": {"values": [[2, 4, 9]]},
                     "kill_pkg.calc.clamp": {"x": [5], "low": [0], "high": [10]},
                     "kill_pkg.stubbed.halve": {"n": [4]}}
