"""A pipe's two ends (`child.send`, `child.receive`): what is sent is what arrives, however it had to be pickled."""

from __future__ import annotations

import types
from typing import Any

import multiprocess as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.engine.child import _DILL, _PLAIN, _dumps, receive, send

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


def test_a_class_of_a_module_copy_goes_by_value() -> None:
    # a mutant host's module copies hold classes under the names of modules in sys.modules that are not
    # theirs: the C pickler's lookup by name finds another object and refuses; dill pickles the class itself
    copy = types.ModuleType("json.decoder")
    exec("class JSONDecodeError(ValueError):\n    pass\n", copy.__dict__)
    error = copy.JSONDecodeError("bad")
    assert _dumps(error)[:1] == _DILL
    back = _round_trip(error)
    assert type(back).__name__ == "JSONDecodeError" and back.args == ("bad",)


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
