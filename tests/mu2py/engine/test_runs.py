"""One run: what a failed or stopped run allocated is freed when the run returns, not when the collector runs."""

import gc
import weakref

import pytest

from mu2py.engine.runs import Status, run


class _Big:
    """Stands for a large allocation: what matters is whether it is still alive, not its size."""


def _raising(refs):
    def fn(value):
        big = _Big()
        refs.append(weakref.ref(big))
        raise ValueError("after allocating")

    return fn


def _looping(refs):
    def fn(value):
        big = _Big()
        refs.append(weakref.ref(big))
        while True:
            big.n = getattr(big, "n", 0) + 1

    return fn


@pytest.mark.parametrize(("make", "status"), [(_raising, Status.EXCEPTION), (_looping, Status.TIMEOUT)])
def test_a_failed_run_frees_its_allocations_without_the_collector(make, status):
    refs = []
    gc.disable()  # the cycle through the traceback must be broken by run itself
    try:
        result = run(make(refs), 0, 0.05)
        assert result.status is status
        assert refs[0]() is None, "the run's allocations outlived it (a cycle through its traceback)"
    finally:
        gc.enable()


def test_a_guarded_run_turns_os_exit_into_an_outcome_and_puts_it_back():
    import os

    real = os._exit
    result = run(lambda value: os._exit(4), 0, None, guard_exit=True)
    assert result.status is Status.EXCEPTION and result.exc_type.endswith("ProcessExit")
    assert result.exc_message == "os._exit(4) called" and os._exit is real


def test_a_handler_the_program_installs_does_not_outlive_the_run():
    import signal

    from mu2py.engine import runs

    def installs(value):
        signal.signal(signal.SIGALRM, lambda signum, frame: None)  # a program's own handler, swallowing alarms
        signal.setitimer(signal.ITIMER_REAL, 30)  # and its own timer, re-armed
        return value

    assert run(installs, 1, 1.0).status is Status.OK
    assert signal.getsignal(signal.SIGALRM) is runs._on_alarm
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert run(lambda v: [0 for _ in iter(int, 1)], 1, 0.2).status is Status.TIMEOUT  # the next loop still stops


@pytest.mark.parametrize("how", ["exits", "returns", "raises"])
def test_the_child_of_a_fork_inside_a_guarded_run_never_returns_into_the_caller(tmp_path, how):
    import os

    marks = tmp_path / "marks"

    def forks(value):
        pid = os.fork()
        if pid == 0:  # the child: whichever way it leaves the program, it must not come back here
            if how == "exits":
                os._exit(0)
            if how == "raises":
                raise ValueError("child")
            return "child"
        os.waitpid(pid, 0)
        return "parent"

    result = run(forks, 1, 2.0, guard_exit=True)
    with open(marks, "a") as f:  # a child that came back would write here too
        f.write(f"{os.getpid()}\n")
    assert result.status is Status.OK and result.output == "parent"
    assert marks.read_text().split() == [str(os.getpid())]
