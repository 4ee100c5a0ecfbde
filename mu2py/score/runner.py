"""One collected test run from its fresh start under a timeout: "passed", "failed", "timeout" or "busy".

The timeout is SIGALRM on the real-time interval timer; its handler notes that it fired and raises
the engine's `Timeout` inside the test, which pytest reports as the test's failure (teardown still
runs, without a second alarm).  A `@given` test's examples each get a shorter alarm of their own
(see `given`), and a test waiting to bind a fixed address pauses the timer meanwhile (see `ports`).
A run that judges a mutant (it has a timeout) and fails or times out leaves how, in one line, in
`last_failure` (see `failures`): made only then, so a passing test costs nothing more.

Invariants: after `run_test` the timer is cancelled and the SIGALRM handler in place before it
is back; the outcome is "timeout" exactly when the alarm fired during the run; an alarm that
fired outside a `@given` example and outside the project's own code in a test's call phase (so
maybe inside pytest's own bookkeeping) asks for the worker to be replaced.
"""

from __future__ import annotations

import os
from typing import Any

from mu2py.engine.runs import Timeout, wall_alarm
from mu2py.processes.workers import cut_deadline, request_restart
from mu2py.score import failures, given, hosted, lean, ports
from mu2py.score.params import restore_params
from mu2py.score.warned import filters_of

EXAMPLE_TIMEOUT = 1.0  # the least time one example of a @given test gets under a judged run
SWALLOWED = 5.0
"""Seconds a test may run on after its alarm fired before its worker is killed: code that catches the timeout (a
retry loop, a bare `except`) would otherwise hold the worker up to the unit's deadline, the sum of all its tests'
timeouts (tenacity: 116 s, twice, for one mutant)."""
last_skipped = False  # the latest `run_test` passed by skipping (a skip or skipif mark, pytest.skip())
_fired = False  # the alarm of the running test fired
_subtest_failed = False  # a subtest of the test `run_test` is running failed (see `note_report`)
_judging = False  # the running test judges a mutant (it has a timeout): its first failing subtest decides
_testing = False  # `run_test` is running a test
_suspect = False  # an alarm of the running test may have interrupted pytest's own bookkeeping
replacing = False  # the latest `run_test` asked for its worker to be replaced (its state is suspect)
_project: tuple[str, frozenset[str]] | None = None  # (project root + os.sep, files under test): see `_in_project`
_decided_by: Any = None  # the report of the failing subtest that decides the judged test (see `note_report`)
_fired_in_example: float | None = None  # the alarm fired inside a @given example: that example's limit
last_failure: str | None = None  # the first failure of the latest judged run, one line (see `note_failure`)


def note_report(report: Any) -> None:
    """Note a test report logged while `run_test` runs (the session's `pytest_runtest_logreport`)."""
    # `run_test` does not log its test's own reports: what is logged while it runs comes from inside the
    # test, a subtest (unittest's `self.subTest`, the `subtests` fixture) reported on its own.  pytest 9
    # leaves the test's call report passed when one fails; a plain run fails, and so must a judged run
    global _decided_by, _subtest_failed
    if report.failed and not hasattr(report, "wasxfail"):
        _subtest_failed = True
        if _judging and _decided_by is None:
            # the verdict is decided: the test's later subtests (hundreds, in a data-driven test) would only spend
            # the mutant's time; pytest hands the subtest's exception to `note_failure` next, which ends the test
            _decided_by = report


def note_failure(item: Any, call: Any, report: Any) -> None:
    """Note a phase of a test, or a subtest, that raised (the session's `pytest_exception_interact`: a failure,
    not a skip); a judged test's first failing subtest ends it."""
    global _decided_by
    # only a judged run's first failure is kept: the one the verdict names; nothing is formatted otherwise
    if _judging:
        label = failures.subtest_label(report) if report is _decided_by else ""
        _note(lambda: failures.failure_line(call.excinfo, str(item.path), call.when, _in_project, _relative, label))
    if report is _decided_by and report is not None:
        _decided_by = None
        # raised out of the subtest's context (after its report is logged), it ends the test as a failure
        raise lean.SubtestDecided()


def _note(line: Any) -> None:
    """Keep `line()` as `last_failure` unless one is kept already; a summary that cannot be made is no error."""
    global last_failure
    if last_failure is None:
        try:
            last_failure = line()
        except Exception:  # noqa: BLE001 - a mutant's exception may break its own str(): the verdict stands
            last_failure = "(the failure could not be described)"


def _relative(filename: str) -> str:
    """`filename` relative to the project root (this worker's copy of it, or the project itself)."""
    state = hosted.state()
    for root in [state.spec.root, *([state.sandbox.original] if state.sandbox is not None else [])]:
        _, relative = failures.under_root(root)
        rel = relative(filename)
        if rel != filename:
            return rel
    return filename


def note_bind(address: Any) -> None:
    """A socket is being bound (the session's audit hook): a running test's fixed address takes the bind lock."""
    if _testing and ports.fixed_address(address):
        ports.hold()  # until the test ends: no other worker's test binds meanwhile (see `ports`)


def _in_project(filename: str) -> bool:
    """Whether code from `filename` is the project's own: the code under test, the tests, their conftest files."""
    global _project
    spec = hosted.state().spec
    if _project is None or _project[0] != os.path.realpath(spec.root) + os.sep:
        files = frozenset(os.path.realpath(f) for f in spec.files)
        _project = (os.path.realpath(spec.root) + os.sep, files)
    root, files = _project
    path = os.path.realpath(filename)
    return path in files or (path.startswith(root) and "site-packages" not in path)


def interrupted_test_code(frame: Any) -> bool:
    """Whether an alarm that fired in `frame` interrupted code the project's own code called (or that code itself)
    during a test's call phase.

    Raised there, the timeout unwinds through the project's code as any exception of the test's
    would, and pytest's call phase catches it as a failure (`CallInfo.from_call`): the worker's state
    is as sound as after a failing test (or an interrupted `@given` example), and it needs no
    replacement.  Anywhere else (pytest's or pluggy's own frames, or what they called; a fixture's
    setup or teardown) it may have cut pytest's bookkeeping short.
    """
    inner = frame
    while inner is not None and not _in_project(inner.f_code.co_filename):
        if _pytest_internal(inner.f_code.co_filename):
            return False  # interrupted under pytest's machinery, not under the project's code
        inner = inner.f_back
    outer = inner
    while outer is not None:
        code = outer.f_code
        if code.co_name == "pytest_runtest_call" and code.co_filename.endswith(os.path.join("_pytest", "runner.py")):
            return True
        if code is lean.lean_call.__code__ or code is lean.lean_case.__code__:  # a lean test's call (see `lean`)
            return True
        outer = outer.f_back
    return False


def _pytest_internal(filename: str) -> bool:
    """Whether code from `filename` is pytest's or pluggy's own."""
    parts = filename.replace(os.sep, "/").split("/")
    return "_pytest" in parts or "pluggy" in parts


def _on_alarm(signum: int, frame: Any) -> None:
    global _fired, _fired_in_example, _suspect
    if not _fired and not given.inside:
        cut_deadline(SWALLOWED)  # put back when the test ends (`_run`)
    _fired = True
    _fired_in_example = given.limit if given.inside else None
    given.on_alarm()
    if not given.inside and not interrupted_test_code(frame):
        _suspect = True
    raise Timeout()


def run_test(item: Any, timeout: float | None, nextitem: Any = None) -> str:
    """Run one collected test from its fresh start (`hosted.fresh_start`): "passed", "failed" (any phase),
    "timeout", or "busy" when it gave up waiting to bind a fixed address (see `ports`: the run says nothing).

    `nextitem` None tears every fixture down after it, session-scoped ones included (a unit's tests run in
    an order of their own); a test run in pytest's order gives the one after it, so that the fixtures they
    share live on, as in a plain run.

    A test that may run lean (see `lean`) is called without pytest's per-test protocol; a lean failure
    is confirmed by a second run through the protocol, which decides (and the test is never run lean again
    if the protocol passes it).
    """
    if lean.eligible(item):
        outcome = _run(item, timeout, True, nextitem)
        if outcome != "failed":
            return outcome
        hosted.restore_tree(hosted.state())  # the confirming run meets the project's files as the lean one did
        outcome = _run(item, timeout, False, nextitem)
        if outcome != "failed":
            lean.distrust(item)
        return outcome
    return _run(item, timeout, False, nextitem)


def _run(item: Any, timeout: float | None, lean_run: bool, nextitem: Any = None) -> str:
    """`run_test`'s one run: lean (`lean.call`) or through pytest's protocol."""
    from _pytest.runner import runtestprotocol

    state = hosted.state()
    hosted.before_test(state)
    hosted.fresh_start(state)
    restore_params(state.params, item)
    global _decided_by, _fired, _fired_in_example, _judging, _subtest_failed, _suspect, _testing
    global last_failure, last_skipped, replacing
    _fired = _subtest_failed = _suspect = last_skipped = replacing = ports.busy = False
    _fired_in_example = last_failure = _decided_by = None
    _judging = bool(timeout)
    given.fired_outside = False
    if timeout:
        # a @given test's examples: each at most a fifth of the whole (twice the original's full run)
        given.limit = max(EXAMPLE_TIMEOUT, timeout / 5)
    try:
        with wall_alarm(timeout, _on_alarm):
            _testing = True
            outcome = ""
            try:
                if lean_run:
                    outcome = lean.call(item, _judging)
                    reports = []
                else:
                    with filters_of(item):
                        reports = runtestprotocol(item, nextitem=nextitem, log=False)
            except (Timeout, ports.Busy):
                reports = []
                outcome = "failed"
            except KeyboardInterrupt:
                # the test's own (a worker's Ctrl-C is its parent's to handle, which ends the worker): a failure,
                # as in a plain run; pytest's protocol stopped before the teardown, so the worker is replaced
                request_restart()
                replacing = True
                return "timeout" if _fired else "failed"
            except Exception:  # noqa: BLE001 - pytest's own reporting broke (a mutant disturbed what it relies on)
                request_restart()
                replacing = True
                return "failed"  # checked on the original by the caller, then judged in a fresh interpreter
            finally:
                _testing = _judging = False
                given.limit = None
    finally:
        ports.release()
        hosted.after_test(state)
        if _fired:
            cut_deadline(None)
    if ports.busy:
        return "busy"
    if _fired:
        if _suspect:
            request_restart()  # the alarm may have interrupted pytest's own bookkeeping
            replacing = True
        if timeout:
            # the timeout pytest reported as the test's failure says nothing: the limit does
            last_failure = (f"an example of this @given test timed out after {_fired_in_example:.3g} s"
                            if _fired_in_example else f"timed out after {timeout:.3g} s")
        return "timeout"
    if lean_run:
        failed = outcome == "failed"
        last_skipped = outcome == "skipped"
    else:
        failed = _subtest_failed or any(r.failed for r in reports)
        last_skipped = not failed and any(r.skipped for r in reports)
    return "failed" if failed else "passed"
