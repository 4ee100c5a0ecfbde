"""Running one input on one program version: outcome, output, exception, warnings and time, under a timeout."""

from __future__ import annotations

import _signal
import copy
import os
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import IntEnum
from typing import Any


class Status(IntEnum):
    """How a run ended (ordered: OK < EXCEPTION < TIMEOUT)."""

    OK = 0
    EXCEPTION = 1
    TIMEOUT = 2


class Timeout(BaseException):
    """Raised into running code when its time is up (a BaseException, so `except Exception` misses it)."""


class ProcessExit(BaseException):
    """Raised in place of `os._exit(code)` during a `run(..., guard_exit=True)` (a BaseException, as SystemExit)."""


_REAL_EXIT = os._exit
_guard_pid = 0  # the process whose run installed the os._exit guard (0: none)
# this process's pid, kept current by an at-fork hook: os.getpid() is a system call, and a run asks twice
_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_forked)


def _refuse_exit(code: int) -> None:
    # only the process that installed the guard is mu2py: the child of a fork inside the run must really
    # leave, or it would go on running mu2py's own code (writing reports and outputs a second time)
    if _pid != _guard_pid:
        _REAL_EXIT(code)
    raise ProcessExit(f"os._exit({code}) called")


def leave_if_forked(pid: int) -> None:
    """Exit on the spot (no cleanup, no flush) unless this is process `pid`.

    Called where code under test returns into mu2py: a child the program forked that returns
    instead of exiting must never run mu2py's code (a second host on the same pipe, a second
    `fuzz` writing the same outputs).
    """
    if _pid != pid:
        _REAL_EXIT(0)


def current_pid() -> int:
    """This process's pid, without a system call (a fork made through os.fork updates it)."""
    return _pid


# one warning a run emitted: (its category's module-qualified name, its message, the file it is attributed to as
# `where` names it, the line there); what stacklevel changes is the last two
Warned = tuple[str, str, str, int]


@dataclass(frozen=True)
class RunResult:
    """The outcome of one run: status, output (when OK), exception type and location (when not), and the warnings it
    emitted, in order.

    `warnings` is None when they are not to be compared (a caller found that the original's differ between two runs
    on the input); a result `run` made always has them.
    """

    status: Status
    output: Any = None
    exc_type: str | None = None
    exc_message: str | None = None
    location: str | None = None
    seconds: float = 0.0
    warnings: tuple[Warned, ...] | None = ()


def exc_name(exc: BaseException) -> str:
    """A process-independent name for an exception's type (module copies share it)."""
    t = type(exc)
    return f"{t.__module__}.{t.__qualname__}"


def _location(exc: BaseException) -> str:
    # walking the traceback by hand: traceback.extract_tb reads source lines, costing more than a run
    tb = exc.__traceback__
    if tb is None:
        return "?"
    while tb.tb_next is not None:
        tb = tb.tb_next
    return f"{tb.tb_frame.f_code.co_filename}:{tb.tb_lineno}"


_IMMUTABLE = (str, bytes, int, float, bool, complex, type(None), frozenset, range)


def fresh(value: Any) -> Any:
    """A copy of an input that a run may mutate freely (immutable values, and those deepcopy fails on, are shared)."""
    if isinstance(value, _IMMUTABLE):
        return value
    kind = type(value)
    if (kind is tuple or kind is list) and all(isinstance(v, _IMMUTABLE) for v in value):
        # a flat sequence of immutable values: a shallow copy is a deep one, at a fraction of deepcopy's cost
        return value if kind is tuple else value[:]
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - e.g. RecursionError (nesting past the limit), TypeError (dict_values)
        # a value deepcopy cannot copy is passed as it is rather than stopping the tool: runs may then see
        # each other's changes to it (views and iterators, the usual cases, cannot be changed through)
        return value


# a run keeps this many of the warnings it emits (the others are counted): a mutant warning in a loop must not fill
# the memory, nor the pipe back from its host
MAX_WARNINGS = 64
MAX_WARNING_TEXT = 2000  # characters of a warning's message kept
_warnings: Any = warnings  # the module, with the private names `run` swaps (no type stubs for them)
# the working directory mu2py started in, for an empty `sys.path` entry: a host works in a scratch directory
try:
    _START = os.getcwd()
except OSError:  # a directory removed under us: empty entries then name nothing
    _START = ""
_WHERE: dict[str, str] = {}  # file -> where it is (see `where`), per process


def where(filename: str) -> str:
    """A file as a run's warnings name it: relative to the longest `sys.path` entry holding it (`pkg/mod.py`), with
    `/` as separator; as given when no entry holds it (`<string>`, a generated driver's `<mu2py ...>`).

    The original's copy, a mutant's and the module itself compile under one file name, so they are named alike; a
    name relative to the import path also reads the same in a process working in another directory.
    """
    found = _WHERE.get(filename)
    if found is None:
        found = _WHERE[filename] = _relative(filename)
    return found


def _relative(filename: str) -> str:
    if not os.path.isabs(filename):
        return filename
    best = ""
    for entry in sys.path:
        root = os.path.abspath(os.path.join(_START, entry)) if isinstance(entry, str) else ""
        if root and filename.startswith(root.rstrip(os.sep) + os.sep) and len(root) > len(best):
            best = root
    return os.path.relpath(filename, best).replace(os.sep, "/") if best else filename


class _Recorder:
    """Warnings shown during one run, kept as `Warned` in order (the first MAX_WARNINGS; the others counted)."""

    __slots__ = ("kept", "seen")

    def __init__(self) -> None:
        self.kept: list[Warned] = []
        self.seen = 0

    def __call__(self, shown: Any) -> None:
        # called by `warnings` with a WarningMessage, in the program's own call of `warn`: it must not raise there
        self.seen += 1
        if self.seen > MAX_WARNINGS:
            return
        category = shown.category
        try:
            text = str(shown.message)[:MAX_WARNING_TEXT]
        except Exception:  # noqa: BLE001 - a message whose __str__ raises: its category still counts
            text = "<unprintable>"
        self.kept.append((f"{getattr(category, '__module__', '?')}.{getattr(category, '__qualname__', '?')}", text,
                          where(str(shown.filename)), int(shown.lineno or 0)))

    def result(self) -> tuple[Warned, ...]:
        """What was kept, and a last entry counting the rest when some were not."""
        if self.seen > MAX_WARNINGS:
            return (*self.kept, ("...", f"{self.seen - MAX_WARNINGS} more", "", 0))
        return tuple(self.kept)


_ALWAYS = ("always", None, Warning, None, 0)
_filters_seen: list[Any] = []  # the last filters `_recording` was given, and what it made of them
_filters_made: list[Any] = [_ALWAYS]


def _recording(filters: list[Any]) -> list[Any]:
    """The filters a run records under: every action but "error" made "always", and "always" for the rest.

    Each warning is then shown, so recorded, every time: under "default", "once" or "module" the registries would
    hide a repeat (the next run of the same mutant, the same code in another copy), and "ignore" would hide it from
    the oracle; a warning the filters turn into an exception still raises.  A new list every time (the program may
    change it), from the last conversion when the filters did not change since.
    """
    global _filters_seen, _filters_made
    if filters != _filters_seen:
        made = [(action if action == "error" else "always", *rest) for action, *rest in filters]
        _filters_seen, _filters_made = list(filters), [*made, _ALWAYS]
    return list(_filters_made)


_alarm_live = False  # True only while a run's own code executes: a late alarm after that is ignored
_fired = False  # the alarm of the run in progress fired: the run is a timeout whatever the program did with it
# whether a KeyboardInterrupt the program raises is its outcome (a supervised host, which no terminal's Ctrl-C
# reaches) rather than the user stopping mu2py (the command's own process: the default)
interrupt_is_outcome = False
# the timer of a run with `cpu=True` counts the process's CPU time (user and system), not wall time: a host
# descheduled on a loaded machine (two campaigns on two cores, CI) does not see its mutants time out, so the
# budget can be tight (see Analysis.min_timeout); a run blocked without using CPU (a sleep) is cut by the host's
# wall-clock watchdog instead.  Runs in the command's own process (no watchdog there) keep the wall clock.
_TIMERS = {False: (signal.ITIMER_REAL, signal.SIGALRM), True: (signal.ITIMER_PROF, signal.SIGPROF)}
_live_timer = signal.ITIMER_REAL  # the timer of the run in progress (re-armed by the handler)


def _on_alarm(signum: int, frame: Any) -> None:
    global _fired
    if not _alarm_live:
        return
    _fired = True
    # an exception raised inside a gc callback or __del__ is swallowed by the interpreter:
    # re-arm so that a looping mutant is interrupted again shortly after
    signal.setitimer(_live_timer, 0.05)
    raise Timeout()


def _quiet_timeouts(unraisable: Any) -> None:
    """An unraisable-exception hook that keeps quiet about Timeouts swallowed in gc callbacks (re-armed anyway)."""
    if not isinstance(unraisable.exc_value, Timeout):
        _PREVIOUS_HOOK(unraisable)


_PREVIOUS_HOOK = sys.unraisablehook


def quiet_timeouts() -> None:
    """Install the hook that keeps quiet about swallowed Timeouts (`run` does so too, on its first timed run).

    An engine calls this before it snapshots the state outside the target, so that the
    snapshot already holds mu2py's own hook and no run counts as having changed `sys`.
    """
    global _PREVIOUS_HOOK
    if sys.unraisablehook is not _quiet_timeouts:
        _PREVIOUS_HOOK, sys.unraisablehook = sys.unraisablehook, _quiet_timeouts


@contextmanager
def wall_alarm(seconds: float | None, handler: Callable[[int, Any], Any]) -> Iterator[None]:
    """Within the block, SIGALRM calls `handler` (which raises to interrupt) after `seconds` of wall time (no timer
    when None or 0).  On leaving, however it is left, the timer is cancelled and the handler before it is back.

    For the slower runs that need no fast path: a module body being built, one pytest test.  `run` keeps its own
    timer handling, which spares a mutant run the handler's installation.
    """
    previous = signal.signal(signal.SIGALRM, handler)
    if seconds:
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def run(fn: Callable[[Any], Any], value: Any, timeout: float | None, *, guard_exit: bool = False,
        cpu: bool = False) -> RunResult:
    """Call fn(fresh(value)) and classify the outcome; KeyboardInterrupt still stops the caller.

    The timeout interrupts pure-Python code through SIGALRM, or SIGPROF after `timeout` seconds of
    CPU time with `cpu` (main thread only); code stuck
    inside C is stopped by the worker watchdog of `mu2py.processes.workers` instead.  With `guard_exit`,
    `os._exit` raises ProcessExit during the call: for the original program run in mu2py's own
    process, where an exit would end mu2py on the spot (mutants need no guard: they run in the
    supervised host, where an exit is a crash verdict).  The guard holds in this process only:
    the child of a fork inside the run really exits, and one that returns or raises out of `fn`
    exits too (`leave_if_forked`).  A handler of the run's signal the program installed during a timed run
    is replaced by mu2py's again when the run ends, and the timer is cancelled.

    The warnings the call emits are recorded in the result (`RunResult.warnings`), every one of them each time
    (see `_recording`), and none is shown; the warnings filters and `showwarning` are put back when it ends.

    A run whose alarm fired is a timeout, whatever the program did with the exception (caught it in a bare
    `except`, stored it in an asyncio task nobody awaits): the verdict comes from the timer, not from the
    exception reaching mu2py.  A KeyboardInterrupt is the program's outcome where `interrupt_is_outcome`
    is set (a supervised host), else it stops the caller.
    """
    global _alarm_live, _fired, _guard_pid, _live_timer
    pid = _pid
    arg = fresh(value)
    use_alarm = timeout is not None and threading.current_thread() is threading.main_thread()
    if use_alarm:
        if sys.unraisablehook is not _quiet_timeouts:
            quiet_timeouts()
        # installing a handler costs more than a short run: keep ours between runs (it is inert outside them)
        # _signal.getsignal: signal.getsignal converts through an enum, which costs more than a short run
        timer, signum = _TIMERS[cpu]
        alarm_handler = _signal.getsignal(signal.SIGALRM)
        if _signal.getsignal(signum) is not _on_alarm:
            signal.signal(signum, _on_alarm)
        _live_timer = timer
        signal.setitimer(timer, timeout)  # type: ignore[arg-type]  # not None under use_alarm
    start = time.perf_counter()
    _fired = False
    # every warning the run emits is recorded, none shown (see `_recording`); what was there is put back after it
    recorder = _Recorder()
    saved = _warnings.filters, _warnings.showwarning, _warnings._showwarnmsg_impl
    _warnings.filters = _recording(saved[0])
    _warnings._filters_mutated()  # the registries' entries from earlier runs no longer hide a warning
    _warnings.showwarning, _warnings._showwarnmsg_impl = _warnings._showwarning_orig, recorder
    try:
        try:
            # live only inside the try: an alarm left over from an earlier run is ignored before it
            _alarm_live = use_alarm
            if guard_exit:
                _guard_pid = pid
                os._exit = _refuse_exit  # type: ignore[assignment]  # replaced on purpose while a run lasts
            output = fn(arg)
        finally:
            _alarm_live = False  # the re-armed alarm may still fire below: it must not raise there
            _warnings.filters, _warnings.showwarning, _warnings._showwarnmsg_impl = saved
            _warnings._filters_mutated()
            leave_if_forked(pid)
            if guard_exit:
                os._exit = _REAL_EXIT
        status = Status.OK
        error: BaseException | None = None
    except Timeout as exc:
        status, output, error = Status.TIMEOUT, None, exc
    except BaseException as exc:  # SystemExit and friends are outcomes too
        if isinstance(exc, KeyboardInterrupt) and not interrupt_is_outcome and not _fired:
            raise
        status, output, error = Status.EXCEPTION, None, exc
    finally:
        # the inner `finally` has already ended the alarm's live window, whatever fn did
        if use_alarm:
            signal.setitimer(timer, 0)
            if _signal.getsignal(signum) is not _on_alarm:
                # the program put in a handler of its own (which may swallow alarms): it must not outlive the run
                signal.signal(signum, _on_alarm)
            if cpu and _signal.getsignal(signal.SIGALRM) is not alarm_handler:
                # nor may an alarm of its own, set for later, fire into another mutant's run
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, alarm_handler)
    seconds = time.perf_counter() - start
    if _fired and status is not Status.TIMEOUT:
        # the alarm fired and the program swallowed it (or turned it into another exception): a timeout still
        status, output = Status.TIMEOUT, None
        error = error if error is not None else Timeout()
    if status is Status.OK and timeout is not None and seconds > timeout * 1.5 and not use_alarm:
        status = Status.TIMEOUT
    warned = recorder.result()
    if status is Status.OK:
        return RunResult(Status.OK, output=output, seconds=seconds, warnings=warned)
    if status is Status.TIMEOUT or error is None:
        result = RunResult(Status.TIMEOUT, exc_type="Timeout", seconds=seconds, warnings=warned)
        if error is None:
            return result
    else:
        result = RunResult(status, exc_type=exc_name(error), exc_message=str(error)[:200],
                           location=_location(error), seconds=seconds, warnings=warned)
    # the traceback holds this frame, whose locals hold the exception: break the cycle now, or whatever
    # the failed (or stopped) run allocated stays alive until the collector runs (and fails the next runs
    # for memory)
    error.__traceback__ = None
    del error
    return result

