"""Which mutants one `score` run judges: those on changed lines (`--since`), and one shard of them (`--shard I/N`)."""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any


def shard_arg(text: str) -> tuple[int, int]:
    """An argparse type: `I/N`, shard I (from 1) of N."""
    index, _, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        i = n = 0
    if not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"must be I/N with 1 <= I <= N (e.g. 1/4), got {text!r}")
    return i, n


@dataclass(frozen=True)
class Scope:
    """A selection of mutants: changed lines per file (None: every line) and a shard (None: all of them)."""

    lines: dict[str, set[int]] | None = None
    shard: tuple[int, int] | None = None
    since: str | None = field(default=None, compare=False)  # the ref `lines` came from, for the report

    @property
    def everything(self) -> bool:
        """Whether this scope selects every mutant."""
        return self.lines is None and (self.shard is None or self.shard[1] == 1)

    def select(self, mutants: list[Any]) -> set[int]:
        """Indices of the mutants in scope: any line of the mutated span changed, then every N-th of those.

        The shard split is round-robin over the selected mutants in catalog order, which is the same in
        every job given the same sources: the N shards are disjoint and together hold every selected mutant.
        """
        chosen = [i for i, m in enumerate(mutants) if self.lines is None
                  or not self.lines.get(m.file, set()).isdisjoint(range(m.line, m.end_line + 1))]
        if self.shard is not None:
            index, count = self.shard
            chosen = chosen[index - 1::count]
        return set(chosen)

    def describe(self) -> dict[str, Any]:
        """The scope as the JSON report states it."""
        return {"since": self.since, "shard": f"{self.shard[0]}/{self.shard[1]}" if self.shard else None}
