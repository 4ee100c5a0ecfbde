"""Executors: every unit answered once, in-process and on workers that crash, exit or hang."""

import sys

import pytest

from mu2py.processes.workers import InProcess, Lost, Processes, WorkerError

UNITS = '''
import ctypes, os, time

def bad_init():
    raise SystemExit(3)


def work(unit):
    kind, value = unit
    if kind == "exit":
        os._exit(3)
    if kind == "segv":
        ctypes.string_at(0)
    if kind == "hang":
        time.sleep(60)  # inside C: no signal-based timeout in this process would stop it
    if kind == "raise":
        raise ValueError("bug")
    if kind == "eat":  # holds ever more memory, slowly enough for the parent to look
        held = []
        for _ in range(200):
            held.append(bytearray(value))
            time.sleep(0.01)
        return len(held)
    if kind in ("child", "child-restart"):  # a process that spends CPU, then waits for its stdin to close
        import subprocess, sys
        from mu2py.processes.workers import ending, request_restart
        burn = ("import sys, time\\nend = time.process_time() + %r\\n"
                "while time.process_time() < end: pass\\nprint(flush=True)\\nsys.stdin.read()")
        child = subprocess.Popen([sys.executable, "-c", burn % value], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        ending(lambda: (child.kill(), child.wait()))
        if kind == "child-restart":
            request_restart()
        child.stdout.readline()  # it spent its CPU time (however loaded the machine)
        return 0
    if kind == "wait":  # waiting for another worker, saying so as it goes: no hang
        from mu2py.processes.workers import extend_deadline
        for _ in range(4):
            time.sleep(value / 4)
            extend_deadline(value / 4)
    return value * 2
'''


@pytest.fixture
def work(tmp_path, monkeypatch):
    (tmp_path / "executor_units_mod.py").write_text(UNITS)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("executor_units_mod", None)
    import executor_units_mod

    return executor_units_mod.work


def test_in_process_answers_in_order(work):
    assert list(InProcess().map_unordered(work, [("ok", 1), ("ok", 2)])) == [(0, 2), (1, 4)]


def test_processes_survive_exit_crash_and_hang(work):
    units = [("ok", 1), ("exit", 0), ("ok", 2), ("segv", 0), ("hang", 0), ("ok", 3)]
    with Processes(2, retries=1) as pool:
        results = dict(pool.map_unordered(work, units, deadline=1.5))
        assert sorted(results) == list(range(len(units)))
        assert [results[i] for i in (0, 2, 5)] == [2, 4, 6]
        for i, why in ((1, "exit code 3"), (3, "killed by SIGSEGV"), (4, "deadline")):
            assert isinstance(results[i], Lost) and why in results[i].reason and results[i].attempts == 2
        assert pool.restarts == 6
        # the pool is still usable after the losses
        assert dict(pool.map_unordered(work, [("ok", 5)])) == {0: 10}


def test_a_call_left_with_a_unit_in_flight_leaves_no_reply_for_the_next_call(work):
    """The parent gives up a call while a worker runs a unit (here its deadline function raises): the next call's
    unit gets its own result, not the reply to the abandoned one."""
    def broken(unit):
        raise KeyError("tests")

    with Processes(1, retries=0) as pool:
        with pytest.raises(KeyError):
            list(pool.map_unordered(work, [("wait", 0.8)], deadline=broken))
        assert dict(pool.map_unordered(work, [("ok", 21)])) == {0: 42}
        assert pool.restarts == 1


def test_unit_raising_is_a_worker_error(work):
    with Processes(1) as pool, pytest.raises(WorkerError, match="ValueError: bug"):
        list(pool.map_unordered(work, [("raise", 0)]))


def test_worker_that_cannot_start_is_an_error_not_a_restart_loop(work):
    import executor_units_mod

    with Processes(1, initializer=executor_units_mod.bad_init) as pool, pytest.raises(WorkerError, match="start"):
        list(pool.map_unordered(work, [("ok", 1)]))
    assert pool.restarts == 0


def test_a_unit_that_says_it_waited_gets_that_much_more_time(work):
    """A deadline is a backstop for a worker stuck in C; time a unit reports as waiting (for a lock another
    worker holds) moves it later as the wait goes on."""
    with Processes(1, retries=0) as pool:
        results = dict(pool.map_unordered(work, [("wait", 2.4), ("hang", 0)], deadline=1.5))
    assert results[0] == 4.8
    assert isinstance(results[1], Lost) and "deadline" in results[1].reason


def test_a_worker_holding_more_memory_than_allowed_is_killed(work):
    with Processes(1, retries=0) as pool:
        pool.memory_limit = 400 * 2**20
        results = dict(pool.map_unordered(work, [("eat", 4 * 2**20), ("ok", 1)]))
        assert isinstance(results[0], Lost) and "400 MB of memory" in results[0].reason
        assert results[1] == 2  # a new worker took over
        pool.memory_limit = 2**40
        assert dict(pool.map_unordered(work, [("eat", 2**20)])) == {0: 200}


@pytest.mark.parametrize("kind", ["child", "child-restart"])
def test_a_process_a_worker_started_is_reaped_by_it_and_its_cpu_time_counts(work, kind):
    # a worker ends what it was asked to (`ending`) before it exits, whether it is closed or replaced: the child is
    # reaped by the worker, and the worker by this process, so the child's CPU time reaches this process's own
    # children's (an orphan is reaped by init, and `time mu2py ...` would never see its CPU time)
    import resource

    def children_cpu():
        usage = resource.getrusage(resource.RUSAGE_CHILDREN)
        return usage.ru_utime + usage.ru_stime

    before = children_cpu()
    with Processes(1) as pool:
        assert dict(pool.map_unordered(work, [(kind, 1.0)], deadline=30)) == {0: 0}
    assert children_cpu() - before >= 0.95
