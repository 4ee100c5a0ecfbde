"""Units of plain data travel to the workers pickled by the C pickler; any other unit goes as before (dill)."""

import pickle
import time

import dill

from mu2py.engine.workers import Packed, Processes, pack

# an import-time mutant's unit: every test of the suite, fastest first
UNIT = {"kind": "reexec", "index": 3, "fresh": [],
        "tests": [(f"tests/test_words.py::test_plural[word{i}]", 1.0 + i / 1000, i) for i in range(500)]}


def test_a_unit_of_plain_data_is_packed_and_cheap_to_send():
    packed = pack(UNIT)
    assert isinstance(packed, Packed) and pickle.loads(packed.data) == UNIT
    # dill walks a unit in Python; the packed one is a single string of bytes to it
    assert _fastest(lambda: dill.dumps(pack(UNIT))) < _fastest(lambda: dill.dumps(UNIT)) / 3


def _fastest(call, runs=5):
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def test_a_unit_holding_anything_else_goes_as_it_is():
    for unit in ({"check": len}, {"key": lambda n: n}, {"value": object()}, [range(3)]):
        assert pack(unit) is unit


def test_a_worker_receives_the_unit_itself():
    with Processes(1) as pool:
        (index, result), = pool.map_unordered(sorted, [UNIT])
    assert index == 0 and result == sorted(UNIT)
