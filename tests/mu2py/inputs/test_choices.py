"""Single choices: their buffer size, the permission check, and typed changes that stay within their draw."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.database import choices_to_bytes
from hypothesis.internal.conjecture.choice import choice_permitted
from hypothesis.strategies._internal.lazy import unwrap_strategies

from mu2py.inputs.choices import choice_size, mutate_within, permitted
from mu2py.inputs.generators import StrategySource
from mu2py.inputs.mutator import havoc
from tests.mu2py.inputs.conftest import ANY_CHOICE, STRATEGIES, stock_decode


@given(ANY_CHOICE)
@example("x" * 30)
@example("x" * 31)
@example(b"y" * 127)
@example(b"y" * 128)
@example("\u00e9" * 16)
@example(2**247)
def test_choice_size_is_hypothesis_serialized_size(choice: Any) -> None:
    assert choice_size(choice) == len(choices_to_bytes([choice]))


_ALPHABETS = {
    "ascii letters": st.characters(min_codepoint=97, max_codepoint=122),
    "no surrogates": st.characters(codec="utf-8", exclude_categories=("Cs",)),
    "printable latin": st.characters(min_codepoint=32, max_codepoint=0x24F, exclude_characters='"\\'),
}


@settings(max_examples=200, deadline=None)
@given(name=st.sampled_from(sorted(_ALPHABETS)), text=st.text(st.characters(max_codepoint=0x2FF), max_size=12),
       low=st.integers(0, 4), high=st.integers(0, 12))
def test_the_string_check_agrees_with_hypothesis(name: str, text: str, low: int, high: int) -> None:
    """The remembered-characters check answers as choice_permitted, asked twice (the second from memory)."""
    constraints = {"intervals": unwrap_strategies(_ALPHABETS[name]).intervals, "min_size": low, "max_size": high}
    expected = choice_permitted(text, constraints)
    assert permitted(text, "string", constraints) == expected
    assert permitted(text, "string", constraints) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(["json_texts", "toml_documents", "lists", "filtered_one_of", "sampled_and_mapped"]),
       seed=st.integers(0, 10**6))
def test_a_typed_change_is_a_value_its_draw_permits(name: str, seed: int) -> None:
    """mutate_within keeps integers of small ranges in range and different, strings in their alphabet and sizes."""
    source = StrategySource(STRATEGIES[name], checks=0)
    rng = random.Random(seed)
    for _ in range(20):
        state = rng.getstate()
        decoded = source.decode((), rng)
        if decoded is not None:
            break
        # a filter may reject all its tries (filtered_one_of, about 2% of draws): decoding rejects only what
        # Hypothesis itself rejects; the next draw of the rng is then used
        twin = random.Random()
        twin.setstate(state)
        assert stock_decode(STRATEGIES[name], (), twin) is None
    assert decoded is not None and decoded.kinds is not None and len(decoded.kinds) == len(decoded.choices)
    for choice, kind in zip(decoded.choices, decoded.kinds, strict=True):
        changed = mutate_within(choice, kind, rng)
        choice_type, constraints = kind
        if choice_type == "integer" and constraints["min_value"] is not None and constraints["max_value"] is not None \
                and constraints["max_value"] - constraints["min_value"] <= 32:
            assert changed != choice or constraints["max_value"] == constraints["min_value"]
            assert permitted(changed, choice_type, constraints)
        if choice_type == "string" and len(constraints["intervals"]) and constraints["max_size"] > 0:
            assert permitted(changed, choice_type, constraints)


def test_typed_havoc_makes_fewer_children_the_decoder_must_repair() -> None:
    """Children of toml documents: with kinds, fewer changed choices are out of what their draw permits."""
    strategy = STRATEGIES["toml_documents"]
    source = StrategySource(strategy, checks=0)
    rng = random.Random(5)
    parents = [d for d in (source.decode((), rng) for _ in range(40)) if d is not None and d.choices]
    repaired = {}
    for typed in (False, True):
        count = 0
        for _ in range(400):
            parent = rng.choice(parents)
            child = havoc(parent.choices, source, rng, None, parent.kinds if typed else None)
            decoded = source.decode(child, rng)
            if decoded is not None:
                count += sum(a is not b and a != b for a, b in zip(child, decoded.choices, strict=False))
        repaired[typed] = count
    assert repaired[True] < repaired[False] * 0.8, repaired
