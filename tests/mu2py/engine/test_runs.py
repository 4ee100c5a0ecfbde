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
