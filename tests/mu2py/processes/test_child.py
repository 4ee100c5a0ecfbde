"""A pipe's two ends (`child.send`, `child.receive`): what is sent is what arrives, however it had to be pickled."""

from __future__ import annotations

import inspect
import json.decoder
import types
import urllib.parse
import warnings
from typing import Any

import multiprocess as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.engine.copies import build_copies, compile_module, driver_function
from mu2py.engine.oracle import compare
from mu2py.processes.child import _DILL, _PLAIN, _dumps, receive, send
from mu2py.target.modules import resolve_target

_plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    | st.tuples(inner, inner),
    max_leaves=20,
)


def _round_trip(message: Any) -> Any:
    a, b = mp.Pipe()
    try:
        send(a, message)
        return receive(b)
    finally:
        a.close()
        b.close()


@settings(max_examples=50, deadline=None)
@given(_plain)
def test_plain_data_arrives_equal_through_the_c_pickler(value: Any) -> None:
    assert _dumps(value)[:1] == _PLAIN
    assert _round_trip(("run", value)) == ("run", value)


def test_what_the_c_pickler_refuses_goes_by_dill() -> None:
    square = lambda x: x * x  # noqa: E731 - a lambda is what only dill pickles
    assert _dumps(square)[:1] == _DILL
    assert _round_trip(("add", square))[1](7) == 49


def test_a_class_of_a_module_copy_goes_by_name_and_arrives_as_the_receivers_class() -> None:
    # a mutant host's module copies hold classes under the names of modules in sys.modules that are not
    # theirs: the C pickler's lookup by name finds another object and refuses; the class goes by that name
    copy = types.ModuleType("json.decoder")
    exec(compile(inspect.getsource(json.decoder), json.decoder.__file__, "exec"), copy.__dict__)
    error = copy.JSONDecodeError("bad", "[1,", 3)
    assert type(error) is not json.decoder.JSONDecodeError
    assert _dumps(error)[:1] == _PLAIN
    back = _round_trip(error)
    assert type(back) is json.decoder.JSONDecodeError and (back.msg, back.doc, back.pos) == ("bad", "[1,", 3)


def test_an_output_of_a_real_targets_copy_is_sent_plainly_and_silently() -> None:
    # urllib.parse's results are namedtuples with mixins: dill, pickling the copy's class by value, hit a
    # RecursionError, printed warnings on every message and refused: the host then ran the original again
    target = resolve_target("targets.urlparse.driver:split")
    copies = build_copies(target, {m.name: compile_module(m) for m in target.copied})
    out = driver_function(target, copies)("http://a/b;p?q=1#f")
    assert type(out[0]) is not urllib.parse.SplitResult  # the copy's own class
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning fails the test
        assert _dumps(out)[:1] == _PLAIN
        back = _round_trip(("run", out))
    assert type(back[1][0]) is urllib.parse.SplitResult and back[1] == out
    assert compare(out, back[1]) is True


def test_a_class_no_module_name_leads_to_goes_by_dill_without_a_warning() -> None:
    copy = types.ModuleType("mu2py_no_such_module")
    exec("class Token:\n    def __init__(self, text):\n        self.text = text\n", copy.__dict__)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert _dumps(copy.Token("x"))[:1] == _DILL
        back = _round_trip(copy.Token("x"))
    assert type(back).__name__ == "Token" and back.text == "x"


def test_a_deep_value_is_sent_within_a_raised_recursion_limit() -> None:
    deep: list[Any] = []
    for _ in range(20_000):
        deep = [deep]
    back = _round_trip(deep)
    depth = 0
    while back:
        back, depth = back[0], depth + 1
    assert depth == 20_000


def test_a_value_too_deep_for_any_limit_writes_nothing() -> None:
    a, b = mp.Pipe()
    with a, b:
        deep: list[Any] = []
        for _ in range(200_000):
            deep = [deep]
        with pytest.raises(RecursionError):
            send(a, deep)
        assert not b.poll(0.1)  # nothing half-written: the pipe is still usable
        send(a, "next")
        assert receive(b) == "next"
