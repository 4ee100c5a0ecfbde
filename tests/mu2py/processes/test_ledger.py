"""The ledger of interpreter-wide state: each hazard a unit may leave is put back, or retires the process."""

import asyncio
import atexit
import gc
import logging
import os
import resource
import signal
import sys
import threading
import warnings

import pytest

from mu2py.processes.ledger import FD_MARGIN, Ledger, own_tool


@pytest.fixture
def ledger():
    """A ledger the test settles itself (pytest sets PYTEST_CURRENT_TEST anew in each phase of a test)."""
    found = Ledger()
    yield found
    phase = os.environ.get("PYTEST_CURRENT_TEST")
    found.check()  # a failing test must not leave its hazard to the next one
    found.release()
    if phase is not None:
        os.environ["PYTEST_CURRENT_TEST"] = phase


def _noop(*args):
    return None


HAZARDS = {
    "recursion limit": lambda: sys.setrecursionlimit(300),
    "gc settings": lambda: (gc.set_debug(gc.DEBUG_SAVEALL), gc.set_threshold(1, 1, 1), gc.disable()),
    "gc.callbacks": lambda: gc.callbacks.append(_noop),
    "trace and profile functions": lambda: sys.setprofile(_noop),
    "threading trace and profile hooks": lambda: threading.settrace(_noop),
    "exception and display hooks": lambda: (setattr(sys, "excepthook", _noop),
                                            setattr(threading, "excepthook", _noop)),
    # what pytest keeps of a failing test: its traceback holds the failure's frames, and so the objects they read
    "sys.last_exc and sys.last_value, last_type, last_traceback": lambda: (
        setattr(sys, "last_value", ValueError()), setattr(sys, "last_type", ValueError)),
    "sys.stdin, sys.stdout, sys.stderr": lambda: setattr(sys, "stdout", open(os.devnull, "w")),
    "descriptors 0-2": lambda: os.dup2(os.pipe()[0], 0),
    "resource limits": lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (
        resource.getrlimit(resource.RLIMIT_NOFILE)[0] - 1, resource.getrlimit(resource.RLIMIT_NOFILE)[1])),
    "atexit handlers": lambda: atexit.register(_noop),
    "asyncio loop and policy": lambda: asyncio.set_event_loop(asyncio.new_event_loop()),
    "sys.modules": lambda: sys.modules.pop("json", None),
    "sys.path": lambda: sys.path.insert(0, "/nowhere"),
    "sys.meta_path": lambda: sys.meta_path.pop(),
    "warnings filters": lambda: warnings.simplefilter("error"),
    "umask": lambda: os.umask(0o077),
    "working directory": lambda: os.chdir("/"),
    "environment variables": lambda: os.environ.update(MU2PY_LEDGER_TEST="1"),
    "signal handlers": lambda: signal.signal(signal.SIGUSR1, _noop),
    "thread switch interval": lambda: sys.setswitchinterval(0.5),
    "int max str digits": lambda: sys.set_int_max_str_digits(1000),
    "loggers": lambda: (logging.root.addHandler(logging.NullHandler()), logging.disable(logging.CRITICAL),
                        logging.getLogger("asyncio").setLevel(logging.DEBUG),
                        logging.getLogger("asyncio").addHandler(logging.NullHandler())),
}


@pytest.mark.parametrize("name", sorted(HAZARDS))
def test_each_hazard_is_put_back(ledger, name):
    ledger.settle()
    import json  # noqa: F401 - in sys.modules for the hazard that removes it

    HAZARDS[name]()
    drift = ledger.check()
    assert name in drift.restored
    assert drift.retire is None
    assert not ledger.check().restored  # put back as it was: nothing left to restore
    assert ledger.restores[name] == 1


def test_a_quiet_unit_costs_no_restore(ledger):
    ledger.settle()
    sum(range(100))
    assert ledger.check().restored == [] and ledger.check(full=False).restored == []


def test_a_logger_made_since_the_snapshot_is_put_back_as_made(ledger):
    """A test names a logger after itself and adds a handler on its captured stream (colorlog's suite): the next run
    of that test must not find it; a library's NullHandler, added at its import, stays."""
    ledger.settle()
    made = logging.getLogger("mu2py-ledger-test.made-since")
    library = logging.NullHandler()
    made.addHandler(library)
    made.addHandler(logging.StreamHandler())
    made.setLevel(logging.DEBUG)
    made.propagate = False
    assert "loggers" in ledger.check().restored
    assert made.handlers == [library] and made.level == logging.NOTSET and made.propagate
    assert logging.getLogger("mu2py-ledger-test.made-since") is made  # whoever holds it keeps the same logger
    assert not ledger.check().restored


def test_a_handler_reconfigured_in_place_is_put_back(ledger):
    """logzero's `setup_logger` sets a new formatter and level on the handler its default logger got at import."""
    logger = logging.getLogger("mu2py-ledger-test.reconfigured")
    handler = logging.StreamHandler()
    formatter = logging.Formatter("%(message)s")
    handler.setFormatter(formatter)
    logger.addHandler(handler)
    try:
        ledger.settle()
        handler.setFormatter(logging.Formatter("changed %(message)s"))
        handler.setLevel(logging.ERROR)
        handler.addFilter(logging.Filter("x"))
        assert "loggers" in ledger.check().restored
        assert logger.handlers == [handler] and handler.formatter is formatter
        assert handler.level == logging.NOTSET and handler.filters == []
    finally:
        logger.removeHandler(handler)
        ledger.settle()  # the fixture's last check must not add it back


def test_the_collectors_saved_garbage_is_dropped(ledger):
    ledger.settle()
    gc.set_debug(gc.DEBUG_SAVEALL)

    class Node:
        pass

    node = Node()
    node.me = node
    del node
    gc.collect()
    assert gc.garbage
    ledger.check()
    assert gc.get_debug() == 0 and not gc.garbage


def test_a_thread_left_running_retires_the_process(ledger):
    ledger.settle()
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        assert ledger.check().retire == "left a thread running"
    finally:
        stop.set()
        thread.join()
    assert ledger.check().retire is None


def test_leaked_descriptors_retire_past_the_margin_and_the_reserve_is_released(ledger):
    ledger.settle()
    small = [os.open(os.devnull, os.O_RDONLY) for _ in range(3)]
    try:
        assert ledger.check().retire is None  # a small leak: counted, not worth a new process
        many = [os.open(os.devnull, os.O_RDONLY) for _ in range(FD_MARGIN + 1)]
        try:
            assert "file descriptors" in ledger.check().retire
        finally:
            for fd in many:
                os.close(fd)
    finally:
        for fd in small:
            os.close(fd)


def test_an_exit_handler_registered_by_reference_retires(ledger):
    ledger.settle()
    register = atexit.register.__wrapped__  # taken before the ledger's wrapper, as `from atexit import register`
    register(_noop)
    try:
        assert "atexit handlers" in ledger.check().retire
    finally:
        atexit.unregister(_noop)


def test_a_frozen_heap_retires(ledger):
    ledger.settle()
    gc.freeze()
    try:
        assert "gc.freeze" in ledger.check().retire
    finally:
        gc.unfreeze()


def test_the_quick_check_leaves_system_calls_out(ledger):
    ledger.settle()
    os.umask(0o077)
    assert ledger.check(full=False).restored == []
    assert ledger.check().restored == ["umask"]


def _open(fd):
    try:
        os.fstat(fd)
        return True
    except OSError:
        return False


def test_a_process_that_used_up_its_descriptors_reclaims_them_to_retire(ledger):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 256), hard))
    try:
        ledger.settle()
        leaked = []
        with pytest.raises(OSError):
            while True:
                leaked.append(os.open(os.devnull, os.O_RDONLY))
        assert ledger.check().retire == "used up every file descriptor"
        ledger.reclaim()
        assert all(not _open(fd) for fd in leaked)
        os.close(os.open(os.devnull, os.O_RDONLY))  # mu2py's own clean-up can open files again
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_frozen_objects_dying_are_no_change(ledger):
    gc.freeze()
    try:
        ledger.settle()
        garbage = [object() for _ in range(1000)]
        gc.freeze()
        assert "gc.freeze" in ledger.check().retire  # frozen again: more objects in the permanent generation
        ledger.settle()
        del garbage  # frozen objects that die leave the permanent generation: its count falls
        assert ledger.check().retire is None
    finally:
        gc.unfreeze()


@pytest.mark.skipif(sys.version_info < (3, 12), reason="sys.monitoring is Python 3.12+")
def test_a_monitoring_tool_retires_unless_it_is_mu2py_s_own(ledger):
    monitoring = sys.monitoring
    ledger.settle()
    monitoring.use_tool_id(4, "a unit's")
    try:
        assert ledger.check().retire == "registered a sys.monitoring tool"
    finally:
        monitoring.free_tool_id(4)
    ledger.settle()
    with own_tool(4):
        monitoring.use_tool_id(4, "mu2py's")
        try:
            drift = ledger.check()
            assert drift.retire is None and not drift.restored
        finally:
            monitoring.free_tool_id(4)
    assert not ledger.check().restored and ledger.check().retire is None
