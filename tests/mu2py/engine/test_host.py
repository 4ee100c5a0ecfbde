"""The supervised host judges against an original result it is given, and runs its own when that cannot travel."""

import pytest

from mu2py.engine.host import make_runner
from mu2py.engine.oracle import KillReason
from mu2py.engine.runs import RunResult, Status
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

VALUE = [3, 1, 2]


@pytest.fixture(scope="module")
def sort_runner():
    """A host for the insertion sort's mutants, and the verdicts it gives on VALUE running its own original."""
    program = Program(resolve_target("targets.insertion_sort.driver:sort"))
    runner = make_runner(program)
    indices = list(range(len(program.mutants)))
    own = runner.judge(VALUE, indices, 1.0)
    yield runner, indices, own
    runner.close()


def test_a_given_original_is_what_the_mutants_are_judged_against(sort_runner):
    runner, indices, own = sort_runner
    assert any(v.reason is None for v in own)  # some mutants survive [3, 1, 2] against the real original
    # an "original" no mutant's output equals: had the host run the original itself, the survivors would survive
    given = runner.judge(VALUE, indices, 1.0, original=RunResult(Status.OK, output="no list"))
    assert [v.index for v in given] == indices
    for mine, theirs in zip(own, given, strict=True):
        if mine.reason is None:
            assert theirs.reason is KillReason.OUTPUT


def test_an_original_that_cannot_be_pickled_is_run_by_the_host(sort_runner):
    runner, indices, own = sort_runner
    unpicklable = RunResult(Status.OK, output=(x for x in ()))  # a generator: neither pickle nor dill carries it
    again = runner.judge(VALUE, indices, 1.0, original=unpicklable)
    assert [(v.index, v.reason) for v in again] == [(v.index, v.reason) for v in own]
    # and the next batch, given nothing, runs its own original as before
    assert [(v.index, v.reason) for v in runner.judge(VALUE, indices, 1.0)] == [(v.index, v.reason) for v in own]


COLLECTING = {
    "__init__.py": "",
    # a full collection in every run, as a busy program's allocations trigger one now and then
    "mod.py": "import gc\n\n\ndef run(n):\n    gc.collect()\n    return n + 1\n",
    "drivers.py": (
        "from hypothesis import strategies as st\nfrom mu2py import driver\nfrom gcheavy_pkg import mod\n\n\n"
        "@driver(st.integers(0, 3))\ndef drive(n):\n    return mod.run(n)\n"
    ),
}


def test_the_heap_a_host_inherits_costs_no_mutant_its_time_budget(tmp_path, monkeypatch):
    """A collection in a mutant's run scans only what the host made: the supervisor's heap (inherited by the fork)
    is frozen, so its size cannot time a mutant out."""
    import gc
    import time

    (tmp_path / "gcheavy_pkg").mkdir()
    for name, text in COLLECTING.items():
        (tmp_path / "gcheavy_pkg" / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    heap = [[] for _ in range(1_500_000)]  # what a campaign's supervisor holds: tracked objects by the million
    started = time.process_time()
    gc.collect()
    budget = (time.process_time() - started) / 3  # a third of what scanning that heap takes
    program = Program(resolve_target("gcheavy_pkg.drivers:drive"))
    runner = make_runner(program)
    try:
        verdicts = runner.judge(2, list(range(len(program.mutants))), budget)
    finally:
        runner.close()
    del heap
    assert verdicts and all(v.reason is not KillReason.TIMEOUT for v in verdicts)
    assert any(v.reason is KillReason.OUTPUT for v in verdicts)  # `n + 1` -> `n - 1` and friends still die


SLOW = {
    "__init__.py": "",
    "mod.py": (
        "import time\n\n\ndef count(n):\n    i = 0\n    while i < n:\n        i += 1\n    return i\n\n\n"
        "def nap(n):\n    time.sleep(n - n)\n    return n\n"
    ),
    "drivers.py": (
        "from hypothesis import strategies as st\nfrom mu2py import driver\nfrom slow_pkg import mod\n\n\n"
        "@driver(st.integers(0, 3))\ndef count(n):\n    return mod.count(n)\n\n\n"
        "@driver(st.integers(0, 3))\ndef nap(n):\n    return mod.nap(n)\n"
    ),
}


@pytest.fixture
def slow_pkg(files_package):
    """A package whose mutants spin (`i += 1` -> `i -= 1`) or sleep (`n - n` -> `n + n`) where the original returns."""
    files_package("slow_pkg", SLOW)


@pytest.mark.parametrize(("isolation", "driver", "mutated", "value"), [
    ("host", "count", "i -= 1", 3), ("none", "count", "i -= 1", 3), ("host", "nap", "n + n", 10),
])
def test_a_mutant_outlasting_its_batch_is_cut_not_killed(slow_pkg, isolation, driver, mutated, value):
    """A batch's end stops a slow mutant (spinning: the run's own timer; sleeping: the host's watchdog) on what
    was left of the batch, with no verdict: a timeout there is not a kill, and the batch ends on time."""
    import time

    from mu2py.budget import Deadline
    from mu2py.engine.engine import LocalRunner, Outcome

    program = Program(resolve_target(f"slow_pkg.drivers:{driver}"))
    slow = next(i for i, m in enumerate(program.mutants) if m.mutated == mutated and m.scope == driver)
    runner = make_runner(program) if isolation == "host" else LocalRunner(program)
    try:
        started = time.monotonic()
        verdicts = runner.judge(value, [slow, 0], 30.0, deadline=Deadline(started + 0.5))
        took = time.monotonic() - started
    finally:
        runner.close()
    assert [(v.index, v.cut, v.reason, v.outcome) for v in verdicts] == [(slow, True, None, Outcome.CUT)]
    assert took < 0.5 + 2.0  # what was left of the batch, plus the watchdog's grace
