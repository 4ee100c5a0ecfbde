"""The fuzzing loop's fast paths: lean decoding equals Hypothesis' own, and a seeded campaign is reproducible."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.control import BuildContext
from hypothesis.database import choices_to_bytes
from hypothesis.errors import UnsatisfiedAssumption
from hypothesis.internal.conjecture.data import ConjectureData, StopTest
from hypothesis.strategies import SearchStrategy

from mu2py.cli.main import main
from mu2py.inputs.generators import SeededProvider, StrategySource, _LeanData, choice_size
from mu2py.inputs.mutator import havoc
from targets.json_decoder.driver import json_texts
from targets.toml.driver import parse as toml_parse


def _stock_decode(strategy: Any, choices: tuple[Any, ...], rng: random.Random) -> tuple[Any, ...] | None:
    """What StrategySource.decode returned before its fast path: a stock ConjectureData."""
    data = ConjectureData(prefix=choices, random=rng, max_choices=10_000, provider=SeededProvider)
    try:
        with BuildContext(data, is_final=False, wrapped_test=lambda: None):
            value = data.draw(strategy)
    except (StopTest, UnsatisfiedAssumption):
        return None
    finally:
        if not data.frozen:
            data.freeze()
    return value, tuple(data.choices)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[int, str]:
    n = draw(st.integers(0, 5))
    return n, draw(st.text(max_size=n))


class _EmptyOnOddLengths(SearchStrategy[int]):
    """A strategy that is sometimes empty *now* (as stateful Bundles are): one_of must filter it out then."""

    def is_currently_empty(self, data: Any) -> bool:
        return len(data.nodes) % 2 == 1

    def do_draw(self, data: Any) -> int:
        return data.draw_integer(0, 3)


STRATEGIES = {
    "json_texts": json_texts(),
    "toml_documents": toml_parse.__mu2py_driver__.source,
    "lists": st.lists(st.integers(-5, 5), max_size=6),
    "recursive": st.recursive(st.booleans() | st.none(), lambda s: st.lists(s, max_size=3) | st.tuples(s, s),
                              max_leaves=6),
    "filtered_one_of": st.one_of(st.integers(0, 9).filter(lambda x: x % 3), st.floats(), st.binary(max_size=3)),
    "sampled_and_mapped": st.tuples(st.sampled_from("abc").map(str.upper), st.dictionaries(st.text(max_size=2),
                                                                                           st.booleans())),
    "composite": _pairs(),
    "deep": st.deferred(lambda: st.none() | st.tuples(DEEP)),
    "currently_empty": st.lists(st.one_of(_EmptyOnOddLengths(), st.booleans()), max_size=5),
}
DEEP = STRATEGIES["deep"]

_ANY_CHOICE = st.one_of(st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=40),
                        st.binary(max_size=40))


def _same(a: Any, b: Any) -> bool:
    # repr: NaN payloads and -0.0 compare as they print; values of every strategy here have faithful reprs
    return repr(a) == repr(b)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(STRATEGIES)), prefix=st.lists(_ANY_CHOICE, max_size=30), seed=st.integers(0, 99))
def test_lean_decoding_equals_stock_on_arbitrary_sequences(name: str, prefix: list[Any], seed: int) -> None:
    strategy = STRATEGIES[name]
    fast_rng, slow_rng = random.Random(seed), random.Random(seed)
    fast = StrategySource(strategy, checks=0).decode(tuple(prefix), fast_rng)
    slow = _stock_decode(strategy, tuple(prefix), slow_rng)
    assert (fast is None) == (slow is None)
    if fast is not None and slow is not None:
        assert _same(fast.value, slow[0])
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
        slow = _stock_decode(strategy, child, random.Random(seed))
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            assert _same(fast.value, slow[0]) and fast.choices == slow[1]
            pool.append(fast.choices)
            compared += 1
    assert compared > 100


@given(_ANY_CHOICE)
@example("x" * 30)
@example("x" * 31)
@example(b"y" * 127)
@example(b"y" * 128)
@example("\u00e9" * 16)
@example(2**247)
def test_choice_size_is_hypothesis_serialized_size(choice: Any) -> None:
    assert choice_size(choice) == len(choices_to_bytes([choice]))


def test_lean_decoding_keeps_the_overrun_limit() -> None:
    """One bytes choice of n bytes takes n + 3 of Hypothesis' 8 KiB: both decoders overrun past n = 8189."""
    outcomes = []
    for n in range(8185, 8195):
        strategy = st.binary(min_size=n, max_size=n)
        fast = StrategySource(strategy, checks=0).decode((), random.Random(n))
        slow = _stock_decode(strategy, (), random.Random(n))
        assert (fast is None) == (slow is None)
        outcomes.append(fast is None)
    assert outcomes == [False] * 5 + [True] * 5


def test_lean_decoding_keeps_the_depth_limit() -> None:
    """Nesting `k` tuples deep: both decoders give up at Hypothesis' maximum draw depth, at the same k."""
    outcomes = []
    for k in range(40, 56):
        prefix = (1,) * k + (0,)
        fast = StrategySource(DEEP).decode(prefix, random.Random(0))
        slow = _stock_decode(DEEP, prefix, random.Random(0))
        assert (fast is None) == (slow is None)
        if fast is not None and slow is not None:
            assert fast.value == slow[0]
        outcomes.append(fast is None)
    assert False in outcomes and True in outcomes


def _outputs(out: Path) -> dict[str, bytes]:
    """Every corpus and failure file of a campaign, by relative path."""
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*"))
            if p.is_file() and p.parent.name in ("corpus", "failures")}


def _fuzz(out: Path, target: str, guidance: str, trials: int) -> dict[str, bytes]:
    assert main(["fuzz", target, "--guidance", guidance, "--trials", str(trials),
                 "--seed", "4", "--out", str(out), "--quiet"]) == 0
    return _outputs(out)


JSON, SORT = "targets.json_decoder.driver:parse", "targets.insertion_sort.driver:sort"


@pytest.mark.parametrize(("target", "guidance", "trials"), [(JSON, "coverage", 300), (SORT, "mutation", 80)])
def test_same_seed_and_trials_give_the_same_corpus(tmp_path: Path, target: str, guidance: str, trials: int) -> None:
    first = _fuzz(tmp_path / "a", target, guidance, trials)
    second = _fuzz(tmp_path / "b", target, guidance, trials)
    assert first == second
    assert sum(name.endswith(".bin") for name in first) > 2


def test_the_loop_keeps_the_corpus_of_stock_decoding(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast decoding path changes nothing a campaign does: same corpus as with Hypothesis' own ConjectureData."""
    from mu2py.inputs.source import Decoded

    fast = _fuzz(tmp_path / "fast", JSON, "coverage", 300)

    def stock(self: StrategySource, choices: Any, rng: random.Random) -> Decoded | None:
        decoded = _stock_decode(self.strategy, tuple(choices), rng)
        if decoded is None:
            return None
        # what each choice was drawn as, for havoc: stock keeps no such record; realized choices decode alike
        # whatever the rng, so the lean decoder reads them off the realized sequence without touching `rng`
        kinds = self._decode(_LeanData, decoded[1], random.Random(0))
        assert kinds is not None and kinds.choices == decoded[1]
        return Decoded(value=decoded[0], choices=decoded[1], kinds=kinds.kinds)

    monkeypatch.setattr(StrategySource, "decode", stock)
    assert _fuzz(tmp_path / "stock", JSON, "coverage", 300) == fast


def test_a_lean_decoder_that_disagrees_with_stock_is_dropped_for_stock(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first decodes are checked against stock: a Hypothesis whose internals moved cannot skew the loop."""
    import mu2py.inputs.generators as generators

    strategy = STRATEGIES["sampled_and_mapped"]
    real_draw = generators._LeanData._draw

    def skewed(self: Any, choice_type: Any, constraints: Any, *, observe: bool, forced: Any) -> Any:
        value = real_draw(self, choice_type, constraints, observe=observe, forced=forced)
        return (not value) if choice_type == "boolean" else value

    monkeypatch.setattr(generators._LeanData, "_draw", skewed)
    checked, plain = StrategySource(strategy), StrategySource(strategy, checks=0)
    rng, twin = random.Random(3), random.Random(3)
    decoded = [checked.decode((), rng) for _ in range(40)]
    expected = [_stock_decode(strategy, (), twin) for _ in range(40)]
    assert [(_same(d.value, e[0]), d.choices == tuple(e[1])) for d, e in zip(decoded, expected, strict=True)] == \
        [(True, True)] * 40
    assert not checked._lean
    assert any(not _same(plain.decode((), random.Random(k)).value, _stock_decode(strategy, (), random.Random(k))[0])
               for k in range(40))  # the skew is real: unchecked, the lean decoder would have used it


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
    from hypothesis.internal.conjecture.choice import choice_permitted
    from hypothesis.strategies._internal.lazy import unwrap_strategies

    from mu2py.inputs.generators import _permitted

    constraints = {"intervals": unwrap_strategies(_ALPHABETS[name]).intervals, "min_size": low, "max_size": high}
    expected = choice_permitted(text, constraints)
    assert _permitted(text, "string", constraints) == expected
    assert _permitted(text, "string", constraints) == expected


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(["json_texts", "toml_documents", "lists", "filtered_one_of", "sampled_and_mapped"]),
       seed=st.integers(0, 10**6))
def test_a_typed_change_is_a_value_its_draw_permits(name: str, seed: int) -> None:
    """mutate_within keeps integers of small ranges in range and different, strings in their alphabet and sizes."""
    from mu2py.inputs.generators import _permitted, mutate_within

    source = StrategySource(STRATEGIES[name], checks=0)
    rng = random.Random(seed)
    decoded = source.decode((), rng)
    assert decoded is not None and decoded.kinds is not None and len(decoded.kinds) == len(decoded.choices)
    for choice, kind in zip(decoded.choices, decoded.kinds, strict=True):
        changed = mutate_within(choice, kind, rng)
        choice_type, constraints = kind
        if choice_type == "integer" and constraints["min_value"] is not None and constraints["max_value"] is not None \
                and constraints["max_value"] - constraints["min_value"] <= 32:
            assert changed != choice or constraints["max_value"] == constraints["min_value"]
            assert _permitted(changed, choice_type, constraints)
        if choice_type == "string" and len(constraints["intervals"]) and constraints["max_size"] > 0:
            assert _permitted(changed, choice_type, constraints)


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
