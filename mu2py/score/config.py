"""What a scoring run is given (`ScoreConfig`) and the state it builds up (`ScoreRun`, which progress sees)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mu2py.mutants.catalog import Program
from mu2py.score.recorded import TestRecord
from mu2py.score.scope import Scope
from mu2py.score.verdicts import Verdict


@dataclass
class ScoreConfig:
    """How to score: workers, pruning, timeouts, and where the verdict cache lives."""

    workers: int = 1
    pruning: str = "infection"
    timeout_factor: float = 10.0
    min_timeout: float = 1.0
    cache: Path | None = None
    cluster: str | None = None  # a Dask address (tcp://HOST:PORT or local:N): units travel in shards
    shard_size: int = 25
    import_time: str = "reload"  # import-time mutants: "reload" in place, "fresh" interpreter each, or "skip"
    scope: Scope = field(default_factory=Scope)  # --since and --shard: the mutants this run judges


@dataclass
class ScoreRun:
    """The state of one scoring run (also what progress callbacks see)."""

    program: Program
    verdicts: dict[int, Verdict] = field(default_factory=dict)
    tests: list[TestRecord] = field(default_factory=list)
    seconds: float = 0.0
    baseline_seconds: float = 0.0
    test_names: frozenset[str] = frozenset()  # identifiers the test files use (for the survivors' triage)
    unimportable: dict[str, str] = field(default_factory=dict)  # module -> why the tests cannot import it here
    selected: set[int] | None = None  # indices of the mutants in scope (None: every one)
    scope: dict[str, Any] = field(default_factory=dict)  # the scope as the report states it

    @property
    def cached(self) -> int:
        """Verdicts taken from the cache."""
        return sum(1 for v in self.verdicts.values() if v.cached)

    @property
    def pruned_infection(self) -> int:
        """Survivors proved by infection analysis, without running."""
        return sum(1 for v in self.verdicts.values() if v.pruned == "infection")
