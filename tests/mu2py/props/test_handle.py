"""A @given test driven by buffers: the kill rule, database keys Hypothesis replays, `@example` lines."""

import os
import random
from types import SimpleNamespace

import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st
from hypothesis.database import InMemoryExampleDatabase

from mu2py.props.handle import PropertyHandle, why_not_fuzzable
from mu2py.props.loop import kills

DB = InMemoryExampleDatabase()


def clamp(x: int) -> int:
    return min(x, 10)


def _identity(x: int) -> int:
    return x


def _loop(x: int) -> int:
    while True:
        x += 1


def _prop(phases: tuple[Phase, ...] = tuple(Phase)) -> object:
    # one source for every variant, so every variant has the same database key (decorators are not part of it)
    @settings(database=DB, phases=phases)
    @given(x=st.integers(0, 20))
    def prop_clamped(x: int) -> None:
        assert clamp(x) <= 10

    return prop_clamped


prop_clamped = _prop()


@given(x=st.integers())
def prop_with_fixture(x: int, tmp_path: object) -> None:
    pass


def _handle(fn: object) -> PropertyHandle:
    return PropertyHandle(SimpleNamespace(obj=fn, nodeid=f"test_handle.py::{fn.__name__}"))  # type: ignore


class _Mutant:
    """`clamp` with another function's code swapped in, as props applies function-level mutants."""

    def __init__(self, code: object) -> None:
        self.code = code

    def __enter__(self) -> None:
        self.saved, clamp.__code__ = clamp.__code__, self.code

    def __exit__(self, *exc: object) -> None:
        clamp.__code__ = self.saved


def _passing_and_killing(handle: PropertyHandle) -> bytes:
    rng = random.Random(0)
    for _ in range(200):
        buffer = bytes(rng.randrange(256) for _ in range(64))
        result = handle.run(buffer, 1.0)
        with _Mutant(_identity.__code__):
            if result.output is not None and handle.run(result.output, 1.0).status != 0:
                return bytes(result.output)
    raise AssertionError("no input above 10 in 200 random buffers")


def test_kill_rule_passes_on_the_original_and_fails_or_hangs_on_the_mutant() -> None:
    handle = _handle(prop_clamped)
    buffer = _passing_and_killing(handle)
    original = handle.run(buffer, 1.0)
    assert original.status == 0 and original.output == buffer
    with _Mutant(_identity.__code__):
        assert kills(original, handle.run(buffer, 1.0)) == "exception"
    with _Mutant(_loop.__code__):
        assert kills(original, handle.run(buffer, 0.2)) == "timeout"
    assert kills(original, handle.run(buffer, 1.0)) is None  # the original itself does not kill
    invalid = handle.run(b"", 1.0)  # too short to draw from: not an input at all
    assert invalid.status == 0 and invalid.output is None
    with _Mutant(_identity.__code__):
        assert kills(invalid, handle.run(b"", 1.0)) is None
    assert kills(handle.run(os.urandom(0), 1.0), original) is None


def test_a_killing_input_saved_under_its_key_is_replayed_by_a_plain_run() -> None:
    handle = _handle(prop_clamped)
    buffer = _passing_and_killing(handle)
    assert handle.failing_choices(buffer, 1.0) is None  # passes on the original: nothing to save
    with _Mutant(_identity.__code__):
        key, value = handle.failing_choices(buffer, 1.0)
    assert not list(DB.fetch(key))  # fuzzing wrote nothing to the test's own database
    DB.save(key, value)
    replay = _prop((Phase.reuse,))  # the reuse phase alone: only saved inputs run
    with _Mutant(_identity.__code__), pytest.raises(AssertionError):
        replay()
    replay()  # the original passes it


def test_example_lines_evaluate_back_or_are_left_out() -> None:
    handle = _handle(prop_clamped)
    assert handle.example_line("prop_clamped(\n    x=1_000,\n)") == "@example(x=1_000)"
    assert handle.example_line("prop_clamped(x=st.integers())") == "@example(x=st.integers())"  # module name
    assert handle.example_line("prop_clamped(x=<object at 0x1>)") is None
    assert handle.example_line("prop_clamped(x=Unknown(3))") is None


def test_only_plain_given_functions_are_fuzzable() -> None:
    assert why_not_fuzzable(prop_clamped) is None
    assert "fixtures (tmp_path)" in why_not_fuzzable(prop_with_fixture)
    assert why_not_fuzzable(clamp) == "not a @given test"
