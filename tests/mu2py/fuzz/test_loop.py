"""The fuzzing loop: a seeded campaign is reproducible, and lean decoding leaves its corpus as stock decoding does."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from mu2py.cli.main import main
from mu2py.inputs.generators import StrategySource
from mu2py.inputs.lean import LeanData
from tests.mu2py.inputs.conftest import stock_decode


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
        decoded = stock_decode(self.strategy, tuple(choices), rng)
        if decoded is None:
            return None
        # what each choice was drawn as, for havoc: stock keeps no such record; realized choices decode alike
        # whatever the rng, so the lean decoder reads them off the realized sequence without touching `rng`
        kinds = self._decode(LeanData, decoded[1], random.Random(0))
        assert kinds is not None and kinds.choices == decoded[1]
        return Decoded(value=decoded[0], choices=decoded[1], kinds=kinds.kinds)

    monkeypatch.setattr(StrategySource, "decode", stock)
    assert _fuzz(tmp_path / "stock", JSON, "coverage", 300) == fast
