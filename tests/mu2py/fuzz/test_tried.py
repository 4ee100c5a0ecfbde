"""The loop's memory of tried inputs: predictions from read prefixes agree with decoding, and change no campaign."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mu2py.fuzz.tried as tried_module
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.fuzz.tried import Tried
from mu2py.inputs.generators import StrategySource
from mu2py.inputs.mutator import havoc
from mu2py.target.modules import resolve_target
from targets.json_decoder.driver import json_texts
from targets.toml.driver import parse as toml_parse

STRATEGIES = {
    "json_texts": json_texts(),
    "toml_documents": toml_parse.__mu2py_driver__.source,
    "text": st.text(max_size=12),
    "mixed_scalars": st.lists(st.one_of(st.booleans(), st.integers(0, 3), st.floats(-1, 1)), max_size=5),
    "filtered": st.lists(st.integers(0, 9).filter(lambda x: x % 3), max_size=4),
}


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(name=st.sampled_from(sorted(STRATEGIES)), seed=st.integers(0, 10**6))
def test_a_prediction_is_what_decoding_answers(name: str, seed: int) -> None:
    """Whenever `predict` answers, decoding the child gives that answer and draws nothing from the rng."""
    source = StrategySource(STRATEGIES[name], checks=0)
    tried = Tried()
    rng = random.Random(seed)
    pool: list[tuple[Any, ...]] = [()]
    predicted = 0
    for _ in range(120):
        child = tuple(havoc(rng.choice(pool), source, rng, rng.choice(pool)))
        known = tried.predict(child)
        before = rng.getstate()
        decoded = source.decode(child, rng)
        if known is not None:
            predicted += 1
            assert rng.getstate() == before  # nothing drawn: skipping the decode leaves the rng where it was
            assert known == (decoded is not None)
            assert decoded is None or not tried.first_time(decoded.choices)  # valid: an input tried before
            continue
        if decoded is not None and tried.first_time(decoded.choices):
            pool.append(decoded.choices)
        tried.record(child, source.last_read, decoded is not None)
    if name in ("text", "mixed_scalars"):
        assert predicted > 0  # short sequences: children repeat read prefixes often


def test_choices_equal_under_eq_but_decoding_differently_are_told_apart() -> None:
    tried = Tried()
    tried.record((1, 0.0), 2, True)
    assert tried.predict((1, 0.0)) is True
    assert tried.predict((1, 0.0, "tail")) is True  # choices past the read ones change nothing
    for other in ((True, 0.0), (1.0, 0.0), (1, -0.0), (1, 0)):
        assert tried.predict(other) is None


def test_a_decode_that_drew_from_the_rng_predicts_nothing() -> None:
    tried = Tried()
    tried.record(("a",), None, True)
    tried.record(("b",), 2, True)  # read more than the child holds: it drew past its end
    assert tried.predict(("a",)) is None and tried.predict(("b",)) is None


def test_both_memories_start_afresh_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """A leaf saying "tried" stands for a hash in the set: forgetting one forgets the other."""
    monkeypatch.setattr(tried_module, "SEEN_BOUND", 2)
    tried = Tried()
    assert tried.first_time(("a",)) and tried.first_time(("b",))
    tried.record(("a",), 1, True)
    assert tried.predict(("a",)) is True
    assert tried.first_time(("c",))  # the bound: both memories cleared, then "c" remembered
    assert tried.predict(("a",)) is None and tried.first_time(("a",))


def _campaign(tmp_path: Path, name: str) -> tuple[list[bytes], int]:
    target = resolve_target("targets.toml.driver:parse")
    fuzzer = Fuzzer(target, FuzzConfig(trials=1500, seed=4, out=tmp_path / name, guidance="coverage"))
    stats = fuzzer.run().stats
    corpus = [p.read_bytes() for p in sorted((tmp_path / name / "corpus").glob("*.bin"))]
    assert stats.valid + stats.invalid + stats.duplicates == stats.trials
    return corpus, stats.predicted


def test_predictions_keep_the_corpus_of_a_campaign_that_decodes_every_child(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_predictions, predicted = _campaign(tmp_path, "predicted")
    assert predicted > 50
    monkeypatch.setattr(Tried, "predict", lambda self, child: None)
    without, none = _campaign(tmp_path, "decoded")
    assert none == 0
    assert without == with_predictions and len(without) > 5
