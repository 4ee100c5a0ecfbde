"""Units travel to the workers through `child.send`: plain data by the C pickler, anything else as before (dill)."""

import time
from operator import attrgetter

import dill

from mu2py.processes.child import _DILL, _PLAIN, _dumps
from mu2py.processes.workers import Processes
from mu2py.score.plan import ScoreUnit, UnitKind

# an import-time mutant's unit: every test of the suite, in collection order
UNIT = ScoreUnit(UnitKind.REEXEC, 3,
                 [(f"tests/test_words.py::test_plural[word{i}]", 1.0 + i / 1000, i) for i in range(500)])


def test_a_unit_of_plain_data_goes_by_the_c_pickler_and_is_cheap_to_send():
    assert _dumps(UNIT)[:1] == _PLAIN
    # dill walks a unit in Python
    assert _fastest(lambda: _dumps(UNIT)) < _fastest(lambda: dill.dumps(UNIT)) / 3


def _fastest(call, runs=5):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def test_a_unit_holding_what_only_dill_pickles_goes_by_dill():
    for unit in ({"key": lambda n: n}, [(lambda: 1), 2]):
        assert _dumps(unit)[:1] == _DILL


def test_a_worker_receives_the_unit_itself():
    with Processes(1) as pool:
        (index, result), = pool.map_unordered(attrgetter("tests"), [UNIT])
    assert index == 0 and result == UNIT.tests
    with Processes(1) as pool:
        (index, result), = pool.map_unordered(lambda unit: unit["key"](4), [{"key": lambda n: n * n}])
    assert index == 0 and result == 16
