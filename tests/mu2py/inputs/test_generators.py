"""StrategySource: its first decodes are checked against Hypothesis' own, and a disagreement falls back to it."""

from __future__ import annotations

import random
from typing import Any

import pytest

from mu2py.inputs.generators import StrategySource
from mu2py.inputs.lean import LeanData
from tests.mu2py.inputs.conftest import STRATEGIES, same, stock_decode


def test_a_lean_decoder_that_disagrees_with_stock_is_dropped_for_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first decodes are checked against stock: a Hypothesis whose internals moved cannot skew the loop."""
    strategy = STRATEGIES["sampled_and_mapped"]
    real_draw = LeanData._draw

    def skewed(self: Any, choice_type: Any, constraints: Any, *, observe: bool, forced: Any) -> Any:
        value = real_draw(self, choice_type, constraints, observe=observe, forced=forced)
        return (not value) if choice_type == "boolean" else value

    monkeypatch.setattr(LeanData, "_draw", skewed)
    checked, plain = StrategySource(strategy), StrategySource(strategy, checks=0)
    rng, twin = random.Random(3), random.Random(3)
    decoded = [checked.decode((), rng) for _ in range(40)]
    expected = [stock_decode(strategy, (), twin) for _ in range(40)]
    assert [(same(d.value, e[0]), d.choices == tuple(e[1])) for d, e in zip(decoded, expected, strict=True)] == \
        [(True, True)] * 40
    assert not checked._lean
    assert any(not same(plain.decode((), random.Random(k)).value, stock_decode(strategy, (), random.Random(k))[0])
               for k in range(40))  # the skew is real: unchecked, the lean decoder would have used it


def test_shrink_finds_the_simplest_input_the_predicate_keeps_within_its_calls() -> None:
    from hypothesis import strategies as st

    source = StrategySource(st.fixed_dictionaries({"x": st.integers(), "items": st.lists(st.integers())}))
    rng = random.Random(3)
    start = next(d for d in iter(lambda: source.decode((), rng), 0)
                 if d is not None and d.value["x"] > 1000 and len(d.value["items"]) > 2)
    calls = []

    def keeps(value: Any) -> bool:
        calls.append(value)
        return bool(value["x"] > 1000 and len(value["items"]) > 2)

    shrunk = source.shrink(start.choices, keeps, calls=500)
    assert shrunk is not None and shrunk.value == {"x": 1001, "items": [0, 0, 0]}
    assert len(calls) <= 500
    assert source.shrink(start.choices, keeps, calls=500) == shrunk  # the same start gives the same result
    # a budget of a few calls stops early: the best so far, never worse than the start, still kept
    calls.clear()
    early = source.shrink(start.choices, keeps, calls=3)
    assert early is not None and keeps(early.value) and len(calls) == 4
    assert len(early.choices) <= len(start.choices)
    # a start the predicate rejects gives nothing
    assert source.shrink(start.choices, lambda value: False, calls=50) is None
