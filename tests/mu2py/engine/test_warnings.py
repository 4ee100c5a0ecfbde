"""Warnings are outputs: runs record them, the oracle compares them, the engine where the original repeats them."""

import warnings
from pathlib import Path

import pytest

from mu2py.engine.oracle import KillReason, kill_reason, same_warnings, warning_difference
from mu2py.engine.runs import MAX_WARNINGS, RunResult, Status, run, where

WARN_PKG = Path(__file__).resolve().parents[2] / "data" / "warn_pkg"
HERE = where(__file__)


def _deprecated(stacklevel):
    def fn(value):
        warnings.warn(f"old, use new {value}", DeprecationWarning, stacklevel=stacklevel)
        return value

    return fn


def test_a_run_records_category_message_and_the_line_stacklevel_points_at():
    result = run(_deprecated(1), 7, None)
    [(category, message, file, line)] = result.warnings
    assert (category, message, file) == ("builtins.DeprecationWarning", "old, use new 7", HERE)
    assert line == _deprecated.__code__.co_firstlineno + 2
    # stacklevel=2 points at whoever called the driver: another place, the same warning otherwise
    caller = run(_deprecated(2), 7, None).warnings
    assert caller[0][:2] == (category, message) and caller[0][2:] != (file, line)


def test_every_run_records_its_warnings_whatever_ran_before():
    # the registry ("default") and "once" would hide a repeat of the same warning from the same line
    fn = _deprecated(1)
    with warnings.catch_warnings():
        warnings.simplefilter("once")
        assert [len(run(fn, 1, None).warnings) for _ in range(3)] == [1, 1, 1]
        warnings.simplefilter("ignore")
        assert len(run(fn, 1, 0.5).warnings) == 1


def test_filters_and_showwarning_are_put_back_and_error_filters_still_raise():
    def sets_its_own(value):
        warnings.simplefilter("ignore")  # the program's own change, without catch_warnings
        warnings.warn("hidden", stacklevel=1)
        return value

    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        before, show = list(warnings.filters), warnings.showwarning
        raised = run(_deprecated(1), 1, None)
        assert raised.status is Status.EXCEPTION and raised.exc_type == "builtins.DeprecationWarning"
        assert run(sets_its_own, 1, None).warnings == ()
        assert warnings.filters == before and warnings.showwarning is show


def test_a_run_keeps_a_bounded_number_of_warnings():
    def floods(n):
        for k in range(n):
            warnings.warn(f"w{k}", stacklevel=1)

    result = run(floods, MAX_WARNINGS + 10, None)
    assert len(result.warnings) == MAX_WARNINGS + 1 and result.warnings[-1][:2] == ("...", "10 more")


def _warned(*entries, status=Status.OK, output=1):
    return RunResult(status, output=output, warnings=tuple(entries))


W = ("builtins.DeprecationWarning", "old, use new", "pkg/mod.py", 3)


@pytest.mark.parametrize("other", [
    ("builtins.DeprecationWarning", "XXold, use newXX", "pkg/mod.py", 3),  # message
    ("builtins.DeprecationWarning", "old, use new", "mu2py/engine/copies.py", 200),  # stacklevel
    ("builtins.UserWarning", "old, use new", "pkg/mod.py", 3),  # category
])
def test_other_warnings_kill_by_warning(other):
    assert kill_reason(_warned(W), _warned(other)) is KillReason.WARNING
    assert kill_reason(_warned(W), _warned()) is KillReason.WARNING  # none at all
    assert kill_reason(_warned(W), _warned(W, W)) is KillReason.WARNING  # once more
    assert kill_reason(_warned(W), _warned(other, output=2)) is KillReason.OUTPUT  # the output decides first
    raised = dict(status=Status.EXCEPTION, output=None)
    assert kill_reason(RunResult(Status.EXCEPTION, exc_type="E", warnings=(W,)),
                       RunResult(Status.EXCEPTION, exc_type="E", warnings=(other,))) is KillReason.WARNING
    assert kill_reason(_warned(W), _warned(other, **raised)) is KillReason.EXCEPTION
    assert warning_difference((W,), (other,)) == f"{other[0].rpartition('.')[2]} at {other[2]}:{other[3]}"


def test_warnings_not_compared_when_not_comparable_implicit_or_only_addresses_differ():
    other = ("builtins.UserWarning", "x", "pkg/mod.py", 4)
    assert kill_reason(RunResult(Status.OK, output=1, warnings=None), _warned(other)) is None
    assert kill_reason(_warned(W), _warned(other), differential=False) is None
    at = ("builtins.ResourceWarning", "unclosed <socket at 0x7f00aa>", "pkg/mod.py", 9)
    assert same_warnings((at,), ((*at[:1], "unclosed <socket at 0x7f11bb>", *at[2:]),))
    assert kill_reason(_warned(W), _warned(W)) is None


NOISY = {
    "__init__.py": "",
    # a message naming a count that goes on between runs (an id, a time): no two runs of the original agree
    "mod.py": (
        "import itertools\nimport warnings\n\n_calls = itertools.count()\n\n\n"
        "def shout(n):\n    warnings.warn(f'call {next(_calls)}')\n    return n + 0\n\n\n"
        "def calm(n):\n    warnings.warn('calm', stacklevel=2)\n    return n + 0\n"
    ),
    "drivers.py": (
        "from hypothesis import strategies as st\nfrom mu2py import driver\nfrom noisy_pkg import mod\n\n\n"
        "@driver(st.integers(0, 3))\ndef shout(n):\n    return mod.shout(n)\n\n\n"
        "@driver(st.integers(0, 3))\ndef calm(n):\n    return mod.calm(n)\n"
    ),
}


@pytest.fixture
def noisy_pkg(files_package):
    files_package("noisy_pkg", NOISY)


@pytest.mark.parametrize("isolation", ["host", "none"])
def test_warnings_the_original_does_not_repeat_kill_nothing(noisy_pkg, isolation):
    from mu2py.engine.engine import LocalRunner
    from mu2py.engine.host import make_runner
    from mu2py.mutants.catalog import Program
    from mu2py.target.modules import resolve_target

    for name in ("shout", "calm"):
        program = Program(resolve_target(f"noisy_pkg.drivers:{name}"))
        runner = make_runner(program) if isolation == "host" else LocalRunner(program)
        try:
            indices = list(range(len(program.mutants)))
            verdicts = {program.mutants[v.index].id: v for v in runner.judge(2, indices, 1.0)}
            # and against an original given by the caller (a timed campaign's), whose own warnings come from elsewhere
            given = {program.mutants[v.index].id: v for v in runner.judge(
                2, indices, 1.0, original=RunResult(Status.OK, output=2, warnings=(W,)))}
            # found out before any mutant ran: no verdict needed confirming in a fresh process
            assert (runner.restarts if isolation == "host" else runner.engine.unconfirmed) == 0
        finally:
            runner.close()
        # `n + 0` -> `n - 0` changes neither the output nor the warnings
        plus = next(i for i in verdicts if i.endswith("arithmetic"))
        assert verdicts[plus].reason is None and given[plus].reason is None, (name, verdicts[plus], given[plus])
        if name == "calm":
            string = next(i for i in verdicts if i.endswith(":string"))
            assert verdicts[string].reason is KillReason.WARNING and verdicts[string].detail.startswith("UserWarning")
