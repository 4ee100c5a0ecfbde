"""A test called without pytest's per-test protocol, where that protocol cannot change its outcome.

pytest runs each test through three phases of hooks (setup, call, teardown), each with its own
report, capture switch, log handler and warnings catcher: about 0.3 ms on this machine, where
the data-driven tests of a parsing or naming package take 0.02 ms.  A mutant faces dozens of
such tests and a score run hundreds of mutants, so the protocol is most of the time.

A test is *lean* when nothing but its own call can decide its outcome: a plain function (at
module level or in a plain test class; not a coroutine, not a `@given` test), marked with nothing
but `parametrize` and `filterwarnings`, asking for no fixture but its direct parameters (so no
autouse fixture, no xunit `setup_function` or `setup_method`), every runtest hook it meets
implemented by pytest itself or by plugins known not to touch the outcome.  Such a test is called
directly, with its parameters, under the session's global capture (so its output and stdin are
what a plain run gives it) and the warning filters pytest would give it (see `warned`).  A
unittest method qualifies on the same terms, its class's `setUpClass` being the only fixture
pytest gives it: it runs as unittest runs it, between `setUpClass` and `tearDownClass`, and its
result is read as pytest reads it (an expected failure passes; an unexpected success, a failing
subtest or an error in a class cleanup fails).

Invariant: a lean run never decides a kill by itself: the runner confirms a lean failure through
the full protocol (see `runner.run_test`); a test the protocol then passes is never run lean again.
A lean pass stands: under the conditions above the protocol would add nothing that can fail.
"""

from __future__ import annotations

import inspect
import unittest
from typing import Any

from mu2py.score.warned import filters_of

# the hooks of one test's run; an implementation of any of them from elsewhere may change its outcome
_RUNTEST_HOOKS = ("pytest_runtest_protocol", "pytest_runtest_setup", "pytest_runtest_call",
                  "pytest_runtest_teardown", "pytest_runtest_makereport", "pytest_pyfunc_call",
                  "pytest_fixture_setup", "pytest_runtest_logstart", "pytest_runtest_logfinish")
# pytest's own plugins, Hypothesis' (it acts on `@given` tests only, which are never lean), this tool's,
# pytest-cov's (it pauses or labels coverage around a call) and anyio's (it runs a test that asks for its
# `anyio_backend` fixture, which a lean test does not)
_KNOWN_PLUGINS = ("_pytest.", "pytest", "_hypothesis_pytestplugin", "hypothesis.", "mu2py.", "pytest_cov.",
                  "anyio.")

_verdicts: dict[Any, bool] = {}  # per item: whether it may run lean (decided once per worker)


def _plugin_module(plugin: Any) -> str:
    """The module a plugin (a module or an instance) comes from."""
    return getattr(plugin, "__name__", None) if inspect.ismodule(plugin) else type(plugin).__module__  # type: ignore[return-value]  # a module has a __name__


def _decide(item: Any) -> bool:
    from _pytest.python import Function
    from _pytest.unittest import TestCaseFunction

    if type(item) is TestCaseFunction:
        return _decide_unittest(item)
    # a method of a plain test class is called as the protocol calls it (`item.obj`, bound to the item's own
    # instance); xunit `setup_method` and the like are autouse fixtures, which the closure check below refuses
    if type(item) is not Function:
        return False
    function = getattr(item, "obj", None)
    if (function is None or inspect.iscoroutinefunction(function) or inspect.isgeneratorfunction(function)
            or inspect.isasyncgenfunction(function) or hasattr(function, "hypothesis")):
        return False
    if any(mark.name not in ("parametrize", "filterwarnings") for mark in item.iter_markers()):
        return False
    params = getattr(getattr(item, "callspec", None), "params", {})
    info = item._fixtureinfo
    if not set(info.names_closure) <= set(params) or not set(info.argnames) <= set(params):
        return False
    for name in info.names_closure:  # direct parameters only: an indirect one runs its fixture
        if any(getattr(d.func, "__name__", "") != "get_direct_param_fixture_func"
               for d in info.name2fixturedefs.get(name, ())):
            return False
    return _known_hooks(item)


def _known_hooks(item: Any) -> bool:
    """Whether every runtest hook `item` meets comes from pytest or a plugin known not to touch an outcome."""
    for hook in _RUNTEST_HOOKS:
        caller = getattr(item.ihook, hook, None)
        for impl in caller.get_hookimpls() if caller is not None else ():
            if not (_plugin_module(impl.plugin) or "").startswith(_KNOWN_PLUGINS):
                return False
    return True


def _decide_unittest(item: Any) -> bool:
    """A unittest method whose class pytest would only set up and tear down (`setUpClass`, `tearDownClass`)."""
    cls = getattr(item.parent, "obj", None)
    if not isinstance(cls, type) or not issubclass(cls, unittest.TestCase) or getattr(cls, "__unittest_skip__", False):
        return False
    if inspect.iscoroutinefunction(item.obj) or item.config.getoption("usepdb", False):
        return False  # an async method runs in its case's own loop; --pdb postpones tearDown
    if any(mark.name != "filterwarnings" for mark in item.iter_markers()):
        return False
    class_fixture = f"_unittest_setUpClass_fixture_{cls.__qualname__}"
    if any(name not in (class_fixture, "request") for name in item._fixtureinfo.names_closure):
        return False  # an autouse fixture, xunit's setup_method
    return _known_hooks(item)


def eligible(item: Any) -> bool:
    """Whether `item` may run lean (see the module docstring); decided once per item, False on any doubt."""
    verdict = _verdicts.get(item)
    if verdict is None:
        try:
            verdict = _decide(item)
        except Exception:  # noqa: BLE001 - an item of a shape pytest's internals here do not expect: no doubt allowed
            verdict = False
        _verdicts[item] = verdict
    return verdict


def distrust(item: Any) -> None:
    """Never run `item` lean again (its lean run failed where the full protocol passed)."""
    _verdicts[item] = False


class SubtestDecided(BaseException):
    """Raised into a test judging a mutant when one of its subtests failed: nothing later changes the verdict."""


class _Decisive(unittest.TestResult):
    """A unittest result that ends the test at its first failing subtest (see `SubtestDecided`)."""

    def addSubTest(self, test: Any, subtest: Any, err: Any) -> None:
        super().addSubTest(test, subtest, err)
        if err is not None:
            raise SubtestDecided()


def call(item: Any, decisive: bool = False) -> str:
    """Call the lean test `item` once: "passed", "failed" or "skipped" (pytest.skip or pytest.xfail inside it).

    With `decisive` (the test judges a mutant) a unittest case ends at its first failing subtest.

    Exceptions the caller owns (the runner's timeout, a wait to bind an address) propagate, as do
    KeyboardInterrupt and pytest.exit.
    """
    from _pytest.outcomes import Exit, Skipped, XFailed
    from _pytest.unittest import TestCaseFunction

    capture = item.config.pluginmanager.getplugin("capturemanager")
    capturing = capture is not None and capture.is_globally_capturing()
    if capturing:
        capture.resume_global_capture()
    try:
        with filters_of(item):
            if type(item) is TestCaseFunction:  # as `_decide` told them apart
                return lean_case(item.parent.obj, item.name, decisive)  # type: ignore[union-attr]  # its parent: the class
            params = item.callspec.params if hasattr(item, "callspec") else {}
            return lean_call(item.obj, {name: params[name] for name in item._fixtureinfo.argnames})
    except (Skipped, XFailed):
        return "skipped"
    except (KeyboardInterrupt, Exit):
        raise
    finally:
        if capturing:
            capture.suspend_global_capture(in_=False)
            capture.read_global_capture()  # nobody reads it: dropped, as the protocol's reports would be


def lean_call(function: Any, args: dict[str, Any]) -> str:
    """The test's own call: "passed", or "failed" on any exception but the ones `call` lets through.

    Its frame marks a lean test's call phase for the runner's alarm (see `runner.interrupted_test_code`).
    """
    from _pytest.outcomes import Exit, Skipped, XFailed

    from mu2py.engine.runs import Timeout
    from mu2py.score.ports import Busy

    try:
        result = function(**args)
    except (Timeout, Busy, Skipped, XFailed, KeyboardInterrupt, Exit):
        raise
    except BaseException:  # noqa: BLE001 - pytest fails a test on SystemExit and every other exception alike
        return "failed"
    # a coroutine or async iterator returned: pytest fails the test (no async plugin is known here)
    return "failed" if hasattr(result, "__await__") or hasattr(result, "__aiter__") else "passed"


def lean_case(cls: type[unittest.TestCase], name: str, decisive: bool = False) -> str:
    """A unittest method run as pytest runs it, its class set up and torn down around it (pytest's class fixture
    does so for each of a worker's runs, which end with a full teardown): "passed", "failed" or "skipped".

    Its frame marks a lean test's call phase for the runner's alarm (see `runner.interrupted_test_code`);
    the runner's timeout, raised inside the case, is one of its errors, as under pytest.
    """
    try:
        cls.setUpClass()
    except Exception:  # noqa: BLE001 - pytest's class fixture fails every test of the class
        cls.doClassCleanups()
        return "failed"
    result = _Decisive() if decisive else unittest.TestResult()
    torn = True
    try:
        cls(name).run(result)
    finally:
        try:
            cls.tearDownClass()
        except Exception:  # noqa: BLE001 - an error in the class fixture's teardown is an error of the test
            torn = False
        finally:
            cls.doClassCleanups()  # its errors: in `tearDown_exceptions`, as pytest's fixture reads them
    if result.failures or result.errors or result.unexpectedSuccesses or not torn \
            or getattr(cls, "tearDown_exceptions", None):
        return "failed"
    return "skipped" if result.skipped or result.expectedFailures else "passed"

