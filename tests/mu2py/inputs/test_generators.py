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
