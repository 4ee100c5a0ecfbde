"""Lean decoding equals Hypothesis' own: same values, same realized choices, same rng use, same limits."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.database import choices_to_bytes

from mu2py.inputs.generators import StrategySource
from mu2py.inputs.mutator import havoc
from tests.mu2py.inputs.conftest import ANY_CHOICE, DEEP, STRATEGIES, same, stock_decode


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(STRATEGIES)), prefix=st.lists(ANY_CHOICE, max_size=30), seed=st.integers(0, 99))
def test_lean_decoding_equals_stock_on_arbitrary_sequences(name: str, prefix: list[Any], seed: int) -> None:
    strategy = STRATEGIES[name]
    fast_rng, slow_rng = random.Random(seed), random.Random(seed)
    fast = StrategySource(strategy, checks=0).decode(tuple(prefix), fast_rng)
    slow = stock_decode(strategy, tuple(prefix), slow_rng)
    assert (fast is None) == (slow is None)
    if fast is not None and slow is not None:
        assert same(fast.value, slow[0])
        assert choices_to_bytes(fast.choices) == choices_to_bytes(slow[1])
    assert fast_rng.getstate() == slow_rng.getstate()  # the tail drew the same numbers


@pytest.mark.parametrize("name", sorted(STRATEGIES))
def test_lean_decoding_equals_stock_on_havoc_children(name: str) -> None:
    """Children of realized sequences (what the loop decodes) are mostly aligned: the common case."""
    strategy = STRATEGIES[name]
    source = StrategySource(strategy, checks=0)
    rng = random.Random(7)
    pool: list[tuple[Any, ...]] = [()]
    compared = 0
    for _ in range(150):
        child = tuple(havoc(rng.choice(pool), source, rng, rng.choice(pool)))
        seed = rng.randrange(1 << 30)
        fast = source.decode(child, random.Random(seed))
        slow = stock_decode(strategy, child, random.Random(seed))
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            assert same(fast.value, slow[0]) and fast.choices == slow[1]
            pool.append(fast.choices)
            compared += 1
    assert compared > 100


def test_lean_decoding_keeps_the_overrun_limit() -> None:
    """One bytes choice of n bytes takes n + 3 of Hypothesis' 8 KiB: both decoders overrun past n = 8189."""
    outcomes = []
    for n in range(8185, 8195):
        strategy = st.binary(min_size=n, max_size=n)
        fast = StrategySource(strategy, checks=0).decode((), random.Random(n))
        slow = stock_decode(strategy, (), random.Random(n))
        assert (fast is None) == (slow is None)
        outcomes.append(fast is None)
    assert outcomes == [False] * 5 + [True] * 5


def test_lean_decoding_keeps_the_depth_limit() -> None:
    """Nesting `k` tuples deep: both decoders give up at Hypothesis' maximum draw depth, at the same k."""
    outcomes = []
    for k in range(40, 56):
        prefix = (1,) * k + (0,)
        fast = StrategySource(DEEP).decode(prefix, random.Random(0))
        slow = stock_decode(DEEP, prefix, random.Random(0))
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            assert fast.value == slow[0]
        outcomes.append(fast is None)
    assert False in outcomes and True in outcomes
