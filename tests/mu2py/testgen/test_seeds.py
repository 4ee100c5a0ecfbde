"""Seeds: the argument values a suite passes, recorded in a fresh interpreter, and strategies of their shape."""

import random
import shutil
from pathlib import Path

import pytest

from mu2py.inputs.generators import StrategySource
from mu2py.testgen.seeds import record_seeds, seeded, shape_strategy

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


class Marker:
    """Not plain data: no shape, no variant but itself."""

    def __init__(self, tag):
        self.tag = tag

    def __eq__(self, other):
        return isinstance(other, Marker) and other.tag == self.tag


def test_seeded_draws_the_values_themselves():
    marker = Marker("m")
    s = seeded([marker])
    assert s.how == "one of 1 value the suite passes or variants of them" and s.alone_how == s.how
    drawn = _draws(s.alone, 5)
    # copies, one per draw: a function changing its argument does not change the next input
    assert drawn == [marker] * 5 and all(d is not marker for d in drawn)
    assert seeded([3, 4]).alone_how.endswith("or values of their shape")


def test_variants_keep_the_structure_and_draw_leaves_from_all_the_values():
    values = [{"kind": "rect", "w": 2, "h": 3}, {"kind": "circle", "r": 2}]
    drawn = _draws(seeded(values).strategy, 200)
    dicts = [d for d in drawn if isinstance(d, dict)]
    assert len(dicts) == len(drawn)
    # the recorded keys, in their recorded order, whatever the leaves
    assert {tuple(d) for d in drawn} == {("kind", "w", "h"), ("kind", "r")}
    kinds = {d["kind"] for d in drawn}
    assert {"rect", "circle"} <= kinds and len(kinds) > 2  # kept, swapped between the values, or any string
    assert {0, 1, 2, 3, 4} & {d["r"] for d in drawn if "r" in d} - {2}  # ints near the recorded one
    assert {(d["kind"], "r" in d) for d in drawn} >= {("rect", True), ("circle", False)}
    assert _draws(seeded(values).strategy, 200) == drawn  # the same rng, the same values


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    root = tmp_path_factory.mktemp("seeds") / "project"
    shutil.copytree(KILL_SAMPLE, root)
    return root


def test_record_seeds_from_the_suite(sample):
    functions = [("kill_pkg.calc", "mean"), ("kill_pkg.calc", "clamp"), ("kill_pkg.stubbed", "halve"),
                 ("kill_pkg.calc", "no_such_function")]
    seeds = record_seeds(str(sample), ["tests"], functions, [str(sample)])
    assert seeds.functions == {"kill_pkg.calc.mean": {"values": [[2, 4, 9]]},
                               "kill_pkg.calc.clamp": {"x": [5], "low": [0], "high": [10]},
                               "kill_pkg.stubbed.halve": {"n": [4]}}
    assert seeds.instances == {} and seeds.args == ["tests"]
