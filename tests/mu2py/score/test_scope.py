"""Which mutants a run judges: changed lines, and a deterministic split into shards."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest

from mu2py.score.scope import Scope, shard_arg


def _mutants() -> list[SimpleNamespace]:
    return [SimpleNamespace(file=f"/p/{'a' if i < 6 else 'b'}.py", line=i + 1, end_line=i + 1 + (i == 3))
            for i in range(10)]


def test_shard_argument() -> None:
    assert shard_arg("2/3") == (2, 3)
    for bad in ("0/3", "4/3", "x/2", "3", "1/0"):
        with pytest.raises(argparse.ArgumentTypeError, match="I/N"):
            shard_arg(bad)


def test_shards_are_disjoint_and_cover_the_selection() -> None:
    mutants = _mutants()
    lines = {"/p/a.py": {5, 6}, "/p/b.py": {7, 8, 9, 10}}
    chosen = Scope(lines=lines).select(mutants)
    assert chosen == {3, 4, 5, 6, 7, 8, 9}  # mutant 3 spans lines 4-5: line 5 changed
    shards = [Scope(lines=lines, shard=(i, 3)).select(mutants) for i in (1, 2, 3)]
    assert set().union(*shards) == chosen and sum(len(s) for s in shards) == len(chosen)
    assert [len(s) for s in shards] == [3, 2, 2]  # round-robin: sizes differ by one at most
    assert shards == [Scope(lines=lines, shard=(i, 3)).select(mutants) for i in (1, 2, 3)]  # the same every time


def test_everything() -> None:
    assert Scope().everything and Scope(shard=(1, 1)).everything
    assert not Scope(shard=(1, 2)).everything and not Scope(lines={}).everything
    assert Scope(lines={}).select(_mutants()) == set()
