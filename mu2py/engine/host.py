"""The supervised host: mutants run in a child process that the command's own process watches.

The command process (the supervisor) keeps the fuzzing loop, the probed original and every
output file; a host process holds an `Engine` and judges batches of mutants on one input
at a time.  Before each mutant the host writes which one it is on, and when it started,
into memory shared with the supervisor, and each finished verdict into a shared array.  So
when a mutant hangs inside C, calls `os._exit`, segfaults or exhausts the host's memory
limit, the supervisor knows the verdicts already reached and the mutant in flight: that
one is killed (`timeout` or `crash`), a new host is started, and the batch goes on with
the mutants after it.  Nothing the supervisor holds is lost, and the verdicts are the ones
an undisturbed run gives, so the same seed and trial budget give the same corpus.

A host is confined (`confine.Confinement`): it leads a session and process group of its
own (so a terminal's job-control signals miss it, and killing the group ends whatever it
started), writes nothing to the command's stdout or stderr (both are /dev/null), works in a
scratch directory mirroring the user's, and drops signals aimed at the supervisor.  A run
that leaves a thread or a child process running gets its verdict as usual, then the host
is retired (its group killed) and the batch goes on in a new host; if it was the original's
run, the new host is given the original's result instead of running it again.

Invariants: a `HostRunner.judge` call returns exactly one verdict per mutant it judged, in
the order given, and stops only at the end of the list or at its `Deadline`; a host never
outlives its supervisor (it exits when the pipe closes, and is killed by the kernel when
the supervisor dies, through PR_SET_PDEATHSIG), and no process a host started outlives the
host's retirement or `close()` (unless it left the host's process group itself).
"""

from __future__ import annotations

import gc
import os
import sys
import time
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import multiprocess as mp
from multiprocess.connection import wait

from mu2py.budget import Deadline
from mu2py.engine import runs
from mu2py.engine.engine import Engine, Verdict
from mu2py.engine.oracle import KillReason
from mu2py.engine.payload import Payload
from mu2py.engine.runs import RunResult, leave_if_forked
from mu2py.errors import UserError
from mu2py.processes.child import die_with_parent, limit_memory, receive, send, silence_output
from mu2py.processes.confine import Confinement, make_mirror, remove_mirror
from mu2py.processes.supervisor import Child

# verdict codes in the shared array: 0 not reached yet, then one per outcome
_CODES: list[KillReason | None] = [None, None, *KillReason]
_CODE_OF = {reason: k for k, reason in enumerate(_CODES) if reason is not None}
_SURVIVED = 1
# progress slots: batch number, position of the mutant in flight, its start (monotonic), phase
_BATCH, _POSITION, _STARTED, _PHASE = range(4)
DEFAULT_MEMORY_MB = 4096
# a host stuck past a mutant's own timeout by more than this is killed (SIGALRM could not reach it)
GRACE = 1.0
# the original's run on one input, in the host, before any mutant (it ran already in the supervisor)
ORIGINAL_DEADLINE = 60.0


# -- the messages between supervisor and host (pickled on their pipe; None from the supervisor ends the host) --


@dataclass(frozen=True)
class HostReady:
    """Host to supervisor, once: the target is loaded (its modules' source hashes, to check against the
    supervisor's), and the seconds building one mutant copy may take."""

    hashes: dict[str, str]
    build_timeout: float


@dataclass(frozen=True)
class HostFailed:
    """Host to supervisor, instead of `HostReady`: the target could not be loaded (why, in one line)."""

    why: str


@dataclass(frozen=True)
class AddMutants:
    """Supervisor to host: what the host needs to build these mutants (each sent once per host life)."""

    payloads: list[Payload]


@dataclass(frozen=True)
class RunBatch:
    """Supervisor to host: judge the mutants `indices` (all added before) on the input `value`, against
    `original` (the original's result on it) unless None (the host runs the original itself)."""

    batch: int
    value: object
    indices: list[int]
    timeout: float
    differential: bool
    deadline: Deadline
    original: RunResult | None


@dataclass(frozen=True)
class BatchDone:
    """Host to supervisor: the verdicts of batch `batch`, in order (fewer than asked when its deadline came or the
    host retired), the mutant copies built so far, why the host retired after it (None: it goes on), and the
    original's result when the host retired after running it (for the next host)."""

    batch: int
    verdicts: list[Verdict]
    copies_built: int
    retired: str | None
    original: RunResult | None


def host_main(conn: Any, progress: Any, verdicts: Any, target: Any, memory_mb: int, copy_cache: int,
              confinement: Confinement | None = None) -> None:
    """A host process: load the target once, then judge batches until the pipe closes.

    `target` is the supervisor's `Target` (inherited when forked) or a `(spec, prefixes)` pair to resolve.
    With `confinement`, the host first becomes a session leader, silences its output and confines itself.
    """
    die_with_parent()
    from mu2py.target.modules import resolve_target

    me = os.getpid()
    if confinement is not None:
        os.setsid()
        silence_output()
        confinement.install()
    try:
        if isinstance(target, tuple):
            target = resolve_target(*target)

        def on_progress(position: int, phase: int) -> None:
            if position >= 0:
                progress[_POSITION] = position
                progress[_STARTED] = time.monotonic()
            progress[_PHASE] = phase

        engine = Engine(target, copy_cache=copy_cache, progress=on_progress)
        if confinement is not None:
            confinement.settle()
    except BaseException as exc:  # noqa: BLE001 - reported to the supervisor as one line
        leave_if_forked(me)
        send(conn, HostFailed(f"{type(exc).__name__}: {exc}"))
        return
    # what the host inherited and loaded lives as long as it does: the collector need not scan it again.  A full
    # collection over the supervisor's heap (Hypothesis, a grammar, the campaign's memory of tried inputs) takes
    # tens of ms, as long as a short mutant's whole CPU budget: it would land in some run and time it out
    gc.freeze()
    send(conn, HostReady({m.name: m.source_hash for m in target.modules}, engine.build_timeout))
    limit_memory(memory_mb)
    # no terminal's Ctrl-C reaches a host (it leads its own session): a KeyboardInterrupt is the program's own
    runs.interrupt_is_outcome = True
    # the host's own set-up (frozen heap, memory limit, silenced output) is what every run starts from
    if confinement is not None:
        engine.watch(confinement.leftovers)
    else:
        engine.settle()

    def on_verdict(position: int, verdict: Verdict) -> None:
        verdicts[position] = _CODE_OF[verdict.reason] if verdict.reason is not None else _SURVIVED

    while True:
        try:
            message = receive(conn)
        except (EOFError, OSError):
            return
        if message is None:
            return
        if isinstance(message, AddMutants):
            engine.add(message.payloads)
            continue
        run: RunBatch = message
        # no need to clear the verdict slots: the supervisor reads only those before the mutant in flight
        progress[_BATCH] = run.batch
        result = engine.judge(run.value, run.indices, run.timeout, differential=run.differential,
                              deadline=run.deadline, on_verdict=on_verdict, original=run.original)
        leave_if_forked(me)  # a child forked by the program never answers on the supervisor's pipe
        # retired after the original: its result goes back, so the next host judges the batch without rerunning it
        again = engine.last_original if engine.retired is not None and not result else None
        try:
            send(conn, BatchDone(run.batch, list(result), engine.copies_built, engine.retired, again))
        except Exception:  # noqa: BLE001 - an original's output that cannot be pickled: the supervisor skips the input
            send(conn, BatchDone(run.batch, list(result), engine.copies_built, engine.retired, None))
        if engine.retired is not None:
            return  # the supervisor kills this host's process group, and what the run left running with it


class HostRunner:
    """The supervisor's side: judges batches on a host process, restarting it after a crash or a hang.

    A crash or hang is a verdict only when it happened in a fresh host (no mutant ran before it there), or
    happened again in one: a mutant lost after others is judged once more, alone, in a new host.

    `payload(index)` gives what the host needs for a mutant (sent once per host life).
    """

    def __init__(self, target: Any, payload: Any, capacity: int, *, memory_mb: int = DEFAULT_MEMORY_MB,
                 copy_cache: int = 256) -> None:
        self.target = target
        self.spec = f"{target.driver.module}:{target.driver.name}"
        self.hashes = {m.name: m.source_hash for m in target.modules}
        self.payload = payload
        self.memory_mb = memory_mb
        self.copy_cache = copy_cache
        self.capacity = max(capacity, 1)
        self.restarts = 0
        self.copies_built = 0
        self.retirements: list[str] = []  # why each retired host was no longer trustworthy
        self._root = os.getcwd()  # the user's directory: hosts work in a mirror of it, and may not change it
        self._scratch: str | None = None
        self._original: RunResult | None = None  # the original's result on the input being judged, once known
        # forked, a host starts in milliseconds with the target already imported; a restart after a crash
        # then costs little.  Elsewhere than Linux, fork is unsafe: a spawned host imports the target anew.
        self._fork = sys.platform == "linux"
        self._ctx = mp.get_context("fork" if self._fork else "spawn")
        self._batch = 0
        self._child: Child | None = None  # the host's process and pipe, while one runs
        self._sent: set[int] = set()
        self._build_timeout = 10.0
        self._judged = 0  # mutants the running host judged since it started (0: the next one runs in a fresh host)
        self._doubted: int | None = None  # a mutant lost after others ran in its host (see `_lost`)
        self.rejudged = 0  # how many such mutants a fresh host judged again
        self._progress = self._ctx.Array("d", 4, lock=False)
        self._verdicts = self._ctx.Array("b", self.capacity, lock=False)

    # -- host life --------------------------------------------------------------------

    def _start(self) -> None:
        target = self.target if self._fork else (self.spec, self.target.prefixes)
        self._scratch = make_mirror(self._root)
        # removed by _kill, or at the latest when this runner goes (a caller that never closes it)
        self._unmirror = weakref.finalize(self, remove_mirror, self._scratch)
        confinement = Confinement(self._root, self._scratch, os.getpid())
        # the host leads a session of its own (`host_main`): what its runs leave running is swept with it
        self._child = Child.start(self._ctx, host_main, (self._progress, self._verdicts, target, self.memory_mb,
                                                         self.copy_cache, confinement), daemon=True)
        process, parent = self._child.process, self._child.conn
        self._sent = set()
        self._judged = 0
        while True:
            ready = wait([parent, process.sentinel], timeout=120)
            if not ready:
                self._kill()
                raise UserError("the mutant host did not start within 120 s")
            message: HostReady | HostFailed | None = None
            if parent in ready:
                try:
                    message = receive(parent)
                except (EOFError, OSError):
                    message = None  # it died
            if isinstance(message, HostReady):
                self._build_timeout = message.build_timeout
                if message.hashes != self.hashes:
                    self._kill()
                    raise UserError("the target's source changed while loading it: run again")
                return
            process.join(1)
            why = message.why if isinstance(message, HostFailed) else self._child.exit_detail()
            self._kill()
            raise UserError(f"the mutant host could not load {self.spec}: {why}")

    def _kill(self) -> None:
        if self._child is not None:
            self._child.end()  # the host's process group with it: what its runs left running goes too
        if self._scratch is not None:
            self._unmirror()
        self._child = self._scratch = None

    def close(self) -> None:
        """Stop the host."""
        if self._child is not None:
            self._child.stop(2)
        self._kill()

    # -- judging ----------------------------------------------------------------------

    def judge(self, value: Any, indices: Sequence[int], timeout: float, *, differential: bool = True,
              deadline: Deadline = Deadline.never(), original: RunResult | None = None) -> list[Verdict]:
        """Verdicts for `indices` on `value` (see the module docstring); fewer when `deadline` passed.

        With `original` (the original's result on `value`, run by the caller) the host judges against it
        and does not run the original itself, unless it cannot be pickled.
        """
        out: list[Verdict] = []
        remaining = list(indices)
        self._original = original
        try:
            while remaining:
                done, finished = self._judge_once(value, remaining[:self.capacity], timeout, differential, deadline)
                if self._doubted is not None and done and done[-1].index == self._doubted:
                    # the host died or hung on a mutant after others had run in it: a fresh host judges it alone
                    self._doubted = None
                    self.rejudged += 1
                    again, _ = self._judge_once(value, [done[-1].index], timeout, differential, deadline)
                    if again and not again[0].cut:
                        done[-1] = again[0]
                self._doubted = None
                out.extend(done)
                if not finished:
                    break
                remaining = remaining[len(done):]
                if deadline.expired():
                    break
        finally:
            self._original = None  # it belongs to this input only
        return out

    def _judge_once(self, value: Any, indices: list[int], timeout: float, differential: bool,
                    deadline: Deadline) -> tuple[list[Verdict], bool]:
        """Judge one batch; on a crash or hang, the verdicts so far plus the lost mutant's, then restart.

        Returns (verdicts, finished): finished is False when the host stopped at `deadline`.  A host that
        reports itself retired (a run left a thread or process behind) is killed after its verdicts.
        """
        if self._child is None:
            self._start()
        child = self._child
        assert child is not None
        new = [i for i in indices if i not in self._sent]
        if new:
            send(child.conn, AddMutants([self.payload(i) for i in new]))
            self._sent.update(new)
        self._batch += 1
        progress = self._progress
        progress[_PHASE] = 0
        progress[_POSITION] = -1
        try:
            self._send_run(child.conn, RunBatch(self._batch, value, list(indices), timeout, differential, deadline,
                                                None))
        except (OSError, BrokenPipeError):
            return self._lost(indices, "crash", "the host was gone")
        except Exception as exc:  # an input the pipe cannot carry
            raise UserError(f"an input cannot be sent to the mutant host: {type(exc).__name__}: {exc}") from exc
        conn, sentinel = child.conn, child.sentinel
        sent = time.monotonic()
        while True:
            ready = wait([conn, sentinel], timeout=0.05)
            if conn in ready:
                try:
                    message = receive(conn)
                except (EOFError, OSError):
                    return self._lost(indices, "crash", self._exit_detail())
                done: BatchDone = message
                if done.batch != self._batch:
                    continue
                self.copies_built = done.copies_built
                verdicts, retired, original = done.verdicts, done.retired, done.original
                self._judged += len(verdicts)
                if retired is not None:
                    self._kill()
                    self.restarts += 1
                    self.retirements.append(retired)
                    if original is not None:
                        self._original = original
                    elif not verdicts:
                        # the original left something behind and its result could not come back: skip the input
                        return [], False
                    # the host stopped after a run that left something behind, not at `deadline`: go on
                    return verdicts, not deadline.expired()
                return verdicts, len(verdicts) == len(indices)
            if sentinel in ready:
                child.process.join(1)
                return self._lost(indices, "crash", self._exit_detail())
            phase = progress[_PHASE] if progress[_BATCH] == self._batch else 0
            how = "timeout"
            if phase == 1:
                since = progress[_STARTED]
                # the host ran it on what was left of the batch (see Engine.judge): a hang past that is a cut
                budget, cut = deadline.allot(timeout, since)
                assert budget is not None
                if cut:
                    how = "cut"
                limit = budget + max(GRACE, budget)
            elif phase == 2:
                limit, since = self._build_timeout + 2 * GRACE + timeout, progress[_STARTED]
            elif progress[_BATCH] == self._batch and progress[_POSITION] >= 0:  # done, sending its verdicts
                limit, since = ORIGINAL_DEADLINE, progress[_STARTED]
            else:  # the original's run (or a batch not yet picked up)
                limit, since = ORIGINAL_DEADLINE + timeout, sent
            # the host caps its own memory (`limit_memory`: a mutant past it gets MemoryError): only its deadline
            # is watched here
            child.watch.set(limit, since)
            overrun = child.overrun()
            if overrun is not None:
                return self._lost(indices, how, overrun.detail)

    def _send_run(self, conn: Any, run: RunBatch) -> None:
        """Send a batch on `conn`, with the original's result when known; when that result cannot be pickled,
        without it (the host then runs the original itself)."""
        try:
            send(conn, replace(run, original=self._original))
        except OSError:  # the host is gone (a broken pipe): the caller restarts it
            raise
        except Exception:
            if self._original is None:
                raise
            # pickling fails before anything is written: the pipe holds no partial message
            self._original = None
            send(conn, run)

    def _exit_detail(self) -> str:
        return self._child.exit_detail() if self._child is not None else "exit code None"

    def _lost(self, indices: list[int], how: str, detail: str) -> tuple[list[Verdict], bool]:
        """The host died or hung on the mutant in flight: keep what it finished, judge that one, restart.

        `how` is "crash", "timeout" or "cut" (a hang past what was left of the batch: no verdict, and the
        batch ends there)."""
        started = self._progress[_BATCH] == self._batch
        position = int(self._progress[_POSITION]) if started else -1
        self._kill()
        self.restarts += 1
        if position < 0 or position >= len(indices):
            # it died (or hung) on the original, or after the last mutant: no mutant is to blame, the input is skipped
            return [], False
        verdicts = []
        for k in range(position):
            code = self._verdicts[k]
            verdicts.append(Verdict(indices[k], _CODES[code] if code > 1 else None))
        if how == "cut":
            verdicts.append(Verdict.cut_short(indices[position]))
            return verdicts, False
        reason = KillReason.TIMEOUT if how == "timeout" else KillReason.CRASH
        verdicts.append(Verdict(indices[position], reason, detail))
        if self._judged + position > 0:
            # other mutants ran in this host before it: what they left may have decided this one (see `judge`)
            self._doubted = indices[position]
        return verdicts, True


def make_runner(program: Any, **kwargs: Any) -> HostRunner:
    """A HostRunner for a `Program` whose target has a driver."""
    assert program.target.driver is not None
    return HostRunner(program.target, program.payload, len(program.mutants), **kwargs)

