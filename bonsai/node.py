"""One lattice node F(m,n,d): mu2py's fuzzing loop on the bounded generator, and what a node leaves on disk.

A node that finished writes `nodes/<m_n_d>/done.json` (its stats and corpus); reading it back loads
neither the grammar nor the target, which is what makes resuming a finished lattice cheap.  Inputs on
which the target raised are under `nodes/<m_n_d>/failures/`.  The target's warnings are counted per node
(`NodeStats.warnings`), never shown.
"""

from __future__ import annotations

import json
import os
import warnings
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar
from bonsai.target import count_run_warnings, function_target
from mu2py.store.atomic import write_json

__all__ = ["Node", "NodeResult", "NodeStats", "count_target_warnings", "failure_records", "node_dir", "read_done",
           "run_node", "write_done"]

Node = tuple[int, int, int]


@dataclass
class NodeStats:
    """What a node produced: corpus size, mean input size (characters), coverage (lines + branches), trials,
    failures (distinct exception type and location pairs on which the target raised), and the warnings the
    target emitted (count by category name, over every execution)."""

    node: Node
    inputs: int
    mean_size: float
    coverage: int
    trials: int
    failures: int = 0  # records written before failures were counted have none
    warnings: dict[str, int] = field(default_factory=dict)  # likewise for warnings


NodeResult = tuple[NodeStats, list[tuple[int, ...]]]
"""A node's stats and its corpus (realized choices), size ascending."""


def node_dir(out: Path, node: Node) -> Path:
    """The folder of `node` under the lattice folder `out`."""
    return out / "nodes" / "{}_{}_{}".format(*node)


def read_done(out: Path, node: Node) -> NodeResult | None:
    """The result a finished node recorded under `out` (its `done.json`), or None if it has not finished.

    Reads only that file: resuming a finished node loads neither the grammar nor the target.
    """
    done = node_dir(out, node) / "done.json"
    if not done.is_file():
        return None
    saved = json.loads(done.read_text())
    corpus = [tuple(c) for c in saved["corpus"]]
    return NodeStats(**{**saved["stats"], "node": tuple(saved["stats"]["node"])}), corpus


def write_done(out: Path, stats: NodeStats, corpus: list[tuple[int, ...]]) -> None:
    """Record that `stats.node` finished, with its corpus: what `read_done` reads back."""
    write_json(node_dir(out, stats.node) / "done.json",
               {"stats": asdict(stats), "corpus": [list(c) for c in corpus]})


_GRAMMARS: dict[tuple[str, str | None, int], Any] = {}
"""Grammars loaded in this process, by (path, start, mtime): a pool worker that runs many nodes parses once."""


def _grammar(path: str, start: str | None) -> Any:
    key = (os.path.abspath(path), start, os.stat(path).st_mtime_ns)
    grammar = _GRAMMARS.get(key)
    if grammar is None:
        grammar = _GRAMMARS[key] = load_grammar(path, start=start)
    return grammar


def run_node(grammar_path: str, target_spec: str, node: Node, seeds: list[tuple[int, ...]], trials: int | None,
             seconds: float | None, seed: int, out: Path, start: str | None = None,
             guidance: str = "coverage", modules: Sequence[str] | None = None) -> NodeResult:
    """Run F(node) from `seeds`; returns its stats and its corpus (realized choices), size ascending.

    A node that finished in an earlier run (its `done.json` exists) is read back, loading nothing.
    Every seed is replayed first; `trials`/`seconds` then bound the node's own fuzzing, so the
    stats' `trials` count the replays too.  `modules`: the modules under test (see `function_target`).
    Inputs on which the target raised are under `<out>/nodes/<m_n_d>/failures/`.  The target's warnings are
    counted in the stats' `warnings`, by category, and never shown.
    """
    finished = read_done(out, node)
    if finished is not None:
        return finished
    from mu2py.fuzz.config import FuzzConfig
    from mu2py.fuzz.fuzzer import Fuzzer  # imported here: a resume that runs no node never pays for it

    generator = BoundedGenerator(_grammar(grammar_path, start), Bounds(*node), start=start)
    counts: Counter[str] = Counter()
    target = function_target(target_spec, generator, modules=modules)
    folder = node_dir(out, node)
    config = FuzzConfig(trials=None if trials is None else trials + len(seeds), seconds=seconds, seed=seed,
                        guidance=guidance, out=folder, initial=seeds, plot_every=5.0)
    fuzzer = Fuzzer(target, config, source=generator)
    count_target_warnings(fuzzer, counts)
    with ExitStack() as stack:
        if guidance == "mutation":
            # the probed original re-runs inputs already counted above (mutants run in a host whose stderr is
            # /dev/null): silenced, not counted twice
            stack.enter_context(warnings.catch_warnings())
            warnings.simplefilter("ignore")
        for _ in seeds:
            # replayed before `run` starts its clock: a node keeps all its predecessors' coverage whatever its budget
            fuzzer.trial()
        result = fuzzer.run()
    entries = sorted(result.corpus, key=lambda e: (e.size, e.name))
    stats = NodeStats(node=node, inputs=len(entries),
                      mean_size=round(sum(e.size for e in entries) / len(entries), 2) if entries else 0.0,
                      coverage=result.coverage, trials=result.stats.trials, failures=result.stats.failures,
                      warnings=dict(counts))
    corpus = [tuple(e.choices) for e in entries]
    write_done(out, stats, corpus)
    return stats, corpus


def count_target_warnings(fuzzer: Any, counts: Counter[str]) -> None:
    """Make `fuzzer` (a mu2py Fuzzer, before it runs) count its target's warnings in `counts`, never show them."""
    # every input runs once on the original with coverage, in this process: counting there counts each input once.
    # mu2py's run records the warnings a run emits (they are outputs its oracle compares) and shows none: they are
    # counted from its result
    inner = fuzzer._run_original

    def counted(*args: Any, **kwargs: Any) -> Any:
        result = inner(*args, **kwargs)
        count_run_warnings(result, counts)
        return result

    fuzzer._run_original = counted


def failure_records(out: Path) -> list[dict[str, Any]]:
    """Every failure the lattice's nodes recorded: exception, location, message and the input's file.

    One record per distinct (exception, location), the first node (in lattice order) that met it.
    """
    seen: dict[tuple[str, str], dict[str, Any]] = {}
    for meta in sorted((out / "nodes").glob("*/failures/*.json"), key=lambda p: (_node_key(p.parts[-3]), p.name)):
        info = json.loads(meta.read_text())
        key = (info.get("exception", "?"), info.get("location", "?"))
        if key not in seen:
            seen[key] = {**info, "input": str(meta.with_suffix(".txt"))}
    return list(seen.values())


def _node_key(name: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in name.split("_"))
    except ValueError:
        return (1 << 30,)
