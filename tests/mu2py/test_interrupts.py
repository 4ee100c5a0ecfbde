"""A Ctrl-C swallowed where Python ignores exceptions still stops a loop that checks NoteInterrupts."""

import gc
import os
import signal

import pytest

from mu2py.interrupts import NoteInterrupts


class _Interrupting:
    def __del__(self) -> None:
        # SIGINT while Python runs a finalizer: the KeyboardInterrupt is printed as "ignored" and dropped
        os.kill(os.getpid(), signal.SIGINT)


@pytest.fixture
def python_sigint():
    """Python's own SIGINT handler for one test: a suite started in the background (`cmd &` in a script)
    inherits SIGINT ignored, which NoteInterrupts rightly leaves alone."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_a_swallowed_interrupt_is_seen_at_the_next_check(python_sigint) -> None:
    with NoteInterrupts() as interrupts:
        _Interrupting()  # finalized at once: its KeyboardInterrupt does not reach this frame
        gc.collect()
        assert interrupts.seen
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_an_interrupt_check_does_nothing_and_a_callers_handler_is_kept() -> None:
    def own(signum: int, frame: object) -> None:
        raise RuntimeError

    previous = signal.signal(signal.SIGINT, own)
    try:
        with NoteInterrupts() as interrupts:
            interrupts.check()
            assert signal.getsignal(signal.SIGINT) is own
    finally:
        signal.signal(signal.SIGINT, previous)
