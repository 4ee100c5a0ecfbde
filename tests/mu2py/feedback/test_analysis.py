"""Differential-oracle kills on the Mu2 paper's insertion sort, and pruning soundness."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.engine.oracle import KillReason
from mu2py.feedback.analysis import Analysis


def _find(program, line, operator, original=None, mutated=None):
    for i, m in enumerate(program.mutants):
        if m.line == line and m.operator == operator and (mutated is None or m.mutated == mutated) and (
            original is None or m.original == original
        ):
            return i
    raise AssertionError(f"no mutant {line} {operator} {mutated}")


def test_paper_mutants_killed_on_321(sort_program):
    analysis = Analysis(sort_program, pruning="none")
    analysis.analyse([3, 2, 1], "[3, 2, 1]")
    boundary = _find(sort_program, 9, "boundary", mutated=">0" if False else None, original=">= 0")
    rhs = _find(sort_program, 10, "assign_value")  # arr[i + 1] = arr[i]  ->  arr[i + 1] = None
    index = _find(sort_program, 12, "arithmetic")  # arr[i + 1] = key  ->  arr[i - 1] = key
    for i in (boundary, rhs, index):
        assert i in analysis.kills, sort_program.mutants[i]
        assert analysis.kills[i].reason is KillReason.OUTPUT or analysis.kills[i].reason is KillReason.EXCEPTION


def test_infinite_loop_mutant_killed_by_timeout_and_run_finishes(sort_program):
    analysis = Analysis(sort_program, pruning="none", timeout=0.2)
    loop = _find(sort_program, 11, "aug_to_assign")  # i -= 1  ->  i = 1
    analysis.analyse([3, 1, 2], "[3, 1, 2]")
    assert analysis.kills[loop].reason is KillReason.TIMEOUT
    report = analysis.report()
    assert report["summary"]["killed"] + report["summary"]["alive"] == len(sort_program.mutants)


def test_exceptions_only_oracle_kills_fewer(sort_program):
    diff = Analysis(sort_program, pruning="none", timeout=0.2)
    implicit = Analysis(sort_program, pruning="none", timeout=0.2, differential=False)
    for value in ([3, 2, 1], [1, 3, 2, 2], [5, -1, 4, 0]):
        diff.analyse(value, repr(value))
        implicit.analyse(value, repr(value))
    assert set(implicit.kills) < set(diff.kills)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(-5, 5), max_size=6))
def test_pruning_is_sound(sort_program, sort_runner, value):
    """A mutant pruned (execution or infection) for an input is never killed by that input."""
    probe = Analysis(sort_program, pruning="infection", timeout=0.2, isolation="none")
    original, reached, infected = probe.run_original(value)
    chosen = set(probe.select(reached, infected).run)
    pruned = [i for i in range(len(sort_program.mutants)) if i not in chosen]
    for verdict in sort_runner.judge(value, pruned, 0.2):
        assert verdict.reason is None, (sort_program.mutants[verdict.index], value)



def test_random_filter_is_seeded(sort_program):
    from mu2py.feedback.analysis import Filter

    picks = []
    for _ in range(2):
        a = Analysis(sort_program, filter=Filter.parse("random:3"), rng=random.Random(7))
        _, reached, infected = a.run_original([4, 3, 2, 1])
        picks.append(a.select(reached, infected).run)
    assert picks[0] == picks[1] and len(picks[0]) == 3


SIDE_EFFECTS = {
    "__init__.py": "",
    "mod.py": (
        "STATE = []\n\n\ndef record(n):\n    STATE.append(n)\n\n\n"
        "def run(n):\n    STATE.clear()\n    r = record(n)\n    return list(STATE)\n"
    ),
    "drivers.py": (
        "from hypothesis import strategies as st\nfrom mu2py import driver\nfrom sidefx_pkg import mod\n\n\n"
        "@driver(st.integers(0, 3))\ndef drive(n):\n    return mod.run(n)\n"
    ),
}


def test_assignment_of_a_call_to_none_is_not_pruned(tmp_path, monkeypatch):
    """`r = record(n)` -> `r = None` also skips the call's effect: equal values (None) must not prune it."""
    from mu2py.mutants.catalog import Program
    from mu2py.target.modules import resolve_target

    (tmp_path / "sidefx_pkg").mkdir()
    for name, text in SIDE_EFFECTS.items():
        (tmp_path / "sidefx_pkg" / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    program = Program(resolve_target("sidefx_pkg.drivers:drive"))
    index = next(i for i, m in enumerate(program.mutants) if m.mutated == "r = None")
    analysis = Analysis(program, pruning="infection", timeout=1.0)
    analysis.analyse(2, "2")
    assert analysis.kills[index].reason is KillReason.OUTPUT


def test_mutants_in_a_stdlib_new_are_reached_and_killed(driver_package):
    """`Fraction(text)` parses in `Fraction.__new__`, which mutmut never mutates: its mutants run and are killed."""
    from mu2py.mutants.catalog import Program
    from mu2py.target.modules import resolve_target

    name = driver_package("frac_pkg", (
        "import fractions\n\nfrom hypothesis import strategies as st\n\nfrom mu2py import driver\n\n\n"
        "@driver(st.text(), targets=['fractions'])\ndef parse(text):\n    return fractions.Fraction(text)\n"
    ))
    program = Program(resolve_target(f"{name}:parse"))
    analysis = Analysis(program, pruning="infection", timeout=1.0)
    analysis.analyse(0, "-3/4")
    killed = {program.mutants[i].scope for i in analysis.kills}
    assert "Fraction.__new__" in killed


def test_an_input_the_original_hangs_on_runs_no_mutant(sort_program):
    """No mutant can be killed against a hung original (oracle.kill_reason), and each could take 20x its time."""
    from mu2py.engine.runs import RunResult, Status

    analysis = Analysis(sort_program, pruning="none", timeout=1.0, isolation="none")
    original, reached, infected = analysis.run_original([3, 2, 1])
    sel = analysis.select(reached, infected)
    assert sel.run
    hung = RunResult(Status.TIMEOUT, seconds=10.0)
    assert analysis.run_selected(sel, [3, 2, 1], hung, "t") == []
    assert analysis.mutant_runs == 0 and not any(analysis.executions)
    assert analysis.run_selected(sel, [3, 2, 1], original, "t")  # the same selection kills on a finished original
