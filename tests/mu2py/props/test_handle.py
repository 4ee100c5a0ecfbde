"""A @given test driven by fuzzed inputs (choice sequences, or byte buffers): the kill rule, database keys
Hypothesis replays, `@example` lines."""

import os
import random
from types import SimpleNamespace

import hypothesis.core
import pytest
from hypothesis import Phase, assume, given, settings
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
def prop_never_valid(x: int) -> None:
    assume(False)


@given(x=st.integers())
def prop_with_fixture(x: int, tmp_path: object) -> None:
    pass


MODES = ("choices", "bytes")


def _handle(fn: object, mode: str = "choices") -> PropertyHandle:
    handle = PropertyHandle(SimpleNamespace(obj=fn, nodeid=f"test_handle.py::{fn.__name__}"))  # type: ignore
    assert handle.mode == "choices"  # this Hypothesis's fuzz target exposes its state: the default mode
    if mode == "bytes":  # the fallback when it does not
        handle.given, handle.mode = None, "bytes"
    return handle


class _Mutant:
    """`clamp` with another function's code swapped in, as props applies function-level mutants."""

    def __init__(self, code: object) -> None:
        self.code = code

    def __enter__(self) -> None:
        self.saved, clamp.__code__ = clamp.__code__, self.code

    def __exit__(self, *exc: object) -> None:
        clamp.__code__ = self.saved


def _passing_and_killing(handle: PropertyHandle) -> object:
    rng = random.Random(0)
    for _ in range(200):
        result = handle.run(handle.fresh_input(rng), 1.0, seed=rng.getrandbits(64))
        with _Mutant(_identity.__code__):
            if result.output is not None and handle.run(result.output, 1.0).status != 0:
                return result.output
    raise AssertionError("no input above 10 in 200 fresh inputs")


@pytest.mark.parametrize("mode", MODES)
def test_kill_rule_passes_on_the_original_and_fails_or_hangs_on_the_mutant(mode: str) -> None:
    handle = _handle(prop_clamped, mode)
    buffer = _passing_and_killing(handle)
    original = handle.run(buffer, 1.0)
    assert original.status == 0 and original.output == buffer
    with _Mutant(_identity.__code__):
        assert kills(original, handle.run(buffer, 1.0)) == "exception"
    with _Mutant(_loop.__code__):
        assert kills(original, handle.run(buffer, 0.2)) == "timeout"
    assert kills(original, handle.run(buffer, 1.0)) is None  # the original itself does not kill
    never = _handle(prop_never_valid, mode)
    invalid = never.run(never.fresh_input(random.Random(1)), 1.0)  # assume() rejects it: not an input at all
    assert invalid.status == 0 and invalid.output is None
    assert kills(invalid, original) is None
    if mode == "bytes":
        short = handle.run(os.urandom(0), 1.0)  # too short to draw from
        assert short.status == 0 and short.output is None


@pytest.fixture
def plain_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """A replay as a plain pytest run makes it: `--hypothesis-seed` given to this suite turns the database off."""
    monkeypatch.setattr(hypothesis.core, "global_force_seed", None)


@pytest.mark.parametrize("mode", MODES)
def test_a_killing_input_saved_under_its_key_is_replayed_by_a_plain_run(mode: str, plain_run: None) -> None:
    handle = _handle(prop_clamped, mode)
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
    item = lambda fn: SimpleNamespace(obj=fn)  # noqa: E731 - a collected test without parameters
    assert why_not_fuzzable(item(prop_clamped)) is None
    assert "fixtures (tmp_path)" in why_not_fuzzable(item(prop_with_fixture))
    assert why_not_fuzzable(item(clamp)) == "not a @given test"
    # a parametrized argument is given by pytest, not by a fixture
    parametrized = SimpleNamespace(obj=prop_with_fixture, callspec=SimpleNamespace(params={"tmp_path": "x"}))
    assert why_not_fuzzable(parametrized) is None


def test_fresh_choice_inputs_are_hypothesis_own_generation_where_bytes_are_uniform() -> None:
    # why choices mode is the default: Hypothesis favours small integers (and boundaries) as in its default run
    @given(x=st.integers())
    def prop_any(x: int) -> None:
        pass

    def small(mode: str) -> int:
        handle, rng, count = _handle(prop_any, mode), random.Random(2), 0
        for _ in range(100):
            result = handle.run(handle.fresh_input(rng), 1.0, seed=rng.getrandbits(64), observe=True)
            assert result.output is not None
            text = handle.describe(result.output, 1.0)
            count += "x=" in text and abs(int(text.split("x=")[1].rstrip(",)\n ").replace("_", ""))) < 2**32
        return count

    assert small("choices") >= 50 and small("bytes") == 0  # 128 uniform bits: never below 2**32


@pytest.mark.parametrize("mode", MODES)
def test_a_killing_input_is_shrunk_by_hypothesis_on_the_mutant(mode: str, plain_run: None) -> None:
    handle = _handle(prop_clamped, mode)
    buffer = _passing_and_killing(handle)
    with _Mutant(_identity.__code__):
        key, value = handle.failing_choices(buffer, 1.0)
        shrunk, text = handle.shrink(key, value, handle.settings, 10.0)
    assert "x=11" in text  # the least input above the clamp: what a maintainer would write
    assert handle.example_line(text) == "@example(x=11)"
    DB.save(key, shrunk)
    replay = _prop((Phase.reuse,))
    with _Mutant(_identity.__code__), pytest.raises(AssertionError):
        replay()
    assert handle.shrink(key, value, handle.settings, 10.0) is None  # on the original it passes: nothing
