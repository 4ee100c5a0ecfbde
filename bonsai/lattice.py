"""The Bonsai lattice: coverage-guided bounded fuzzers F(m,n,d) that pass their corpora upward.

F(1,1,1) starts from one random seed; every other node starts from the union of its
predecessors' corpora sorted by size ascending (so the smallest input that reaches a
location is the one that keeps it) and runs after all of them.  Nodes of one
topological generation are independent and may run in parallel.  The top's corpus is the
result.  A node is mu2py's fuzzing loop with the bounded generator as its input source.

Invariant: a node's coverage is at least each predecessor's.  Three things keep it so: every
seed is replayed before the node's own budget starts (a budget smaller than the seed list
would otherwise skip some), coverage is collected completely (see `mu2py.coverage`), and
every node measures the same modules (resolved once per lattice, not from whatever a
process happens to have imported: a target that imports modules lazily would otherwise be
measured over more modules in a process that already ran it than in a fresh worker).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar
from mu2py.driver import DRIVER_ATTR, Driver, import_module, split_spec
from mu2py.engine.runs import run
from mu2py.errors import UserError
from mu2py.fuzzer import FuzzConfig, Fuzzer
from mu2py.storage import write_atomic, write_json
from mu2py.target import Target, TargetModule, default_prefixes, read_module, resolve_modules

Node = tuple[int, int, int]


WARM_UP_TIMEOUT = 10.0
"""Seconds the one warm-up call of a target (see `function_target`) may take."""


def check_top(top: Bounds) -> None:
    """Raise ValueError (one line) unless every bound of the lattice's top is at least 1."""
    if min(top.idents, top.items, top.depth) < 1:
        raise ValueError(f"lattice bounds must all be >= 1 (the bottom node is 1,1,1), got {top}")


def lattice(top: Bounds) -> nx.DiGraph:
    """The lattice C(M,N,D): nodes (m,n,d) ≤ top, an edge to each immediate successor."""
    check_top(top)
    graph = nx.DiGraph()
    for m in range(1, top.idents + 1):
        for n in range(1, top.items + 1):
            for d in range(1, top.depth + 1):
                graph.add_node((m, n, d))
                for succ in ((m + 1, n, d), (m, n + 1, d), (m, n, d + 1)):
                    if succ[0] <= top.idents and succ[1] <= top.items and succ[2] <= top.depth:
                        graph.add_edge((m, n, d), succ)
    return graph


def function_target(spec: str, source: Any, prefixes: tuple[str, ...] | None = None,
                    modules: Sequence[str] | None = None) -> Target:
    """A Target for a plain `module:function` taking the generated text (a driver's function works too).

    `modules` names the modules under test exactly (as `run_lattice` does for every node).  Without
    it they are the loaded modules matching the prefixes, after one warm-up call of the function on
    a generated input (when `source` can generate one), so that modules the function imports lazily
    are loaded and counted the same way in every process.
    """
    module_name, fn_name = split_spec(spec)
    module = import_module(module_name)
    fn = getattr(module, fn_name, None)
    if fn is None or not callable(fn):
        raise UserError(f"function {fn_name!r} not found in module {module_name!r}")
    inner = getattr(fn, DRIVER_ATTR, None)
    drv = Driver(fn=inner.fn if inner else fn, source=source, targets=inner.targets if inner else None,
                 name=fn_name, module=module_name)
    chosen = tuple(prefixes) if prefixes else default_prefixes(drv)
    resolved: tuple[TargetModule, ...]
    if modules is not None:
        resolved = tuple(read_module(name) for name in modules)
    else:
        if isinstance(source, BoundedGenerator):
            run(drv.fn, source.generate(random.Random(0)).text, WARM_UP_TIMEOUT)  # outcome irrelevant
        resolved = resolve_modules(chosen, exclude=module_name)
    return Target(driver=drv, driver_module=read_module(module_name), modules=resolved, prefixes=chosen)


@dataclass
class NodeStats:
    """What a node produced: corpus size, mean input size (characters), coverage, trials."""

    node: Node
    inputs: int
    mean_size: float
    coverage: int
    trials: int


def _node_dir(out: Path, node: Node) -> Path:
    return out / "nodes" / "{}_{}_{}".format(*node)


def run_node(grammar_path: str, target_spec: str, node: Node, seeds: list[tuple[int, ...]], trials: int | None,
             seconds: float | None, seed: int, out: Path, start: str | None = None,
             guidance: str = "coverage",
             modules: Sequence[str] | None = None) -> tuple[NodeStats, list[tuple[int, ...]]]:
    """Run F(node) from `seeds`; returns its stats and its corpus (realized choices), size ascending.

    Every seed is replayed first; `trials`/`seconds` then bound the node's own fuzzing, so the
    stats' `trials` count the replays too.  `modules`: the modules under test (see `function_target`).
    """
    grammar = load_grammar(grammar_path, start=start)
    generator = BoundedGenerator(grammar, Bounds(*node), start=start)
    target = function_target(target_spec, generator, modules=modules)
    folder = _node_dir(out, node)
    done = folder / "done.json"
    if done.is_file():  # resumed: this node finished in an earlier run
        saved = json.loads(done.read_text())
        corpus = [tuple(c) for c in saved["corpus"]]
        return NodeStats(**{**saved["stats"], "node": tuple(saved["stats"]["node"])}), corpus
    config = FuzzConfig(trials=None if trials is None else trials + len(seeds), seconds=seconds, seed=seed,
                        guidance=guidance, out=folder, initial=seeds, plot_every=5.0)
    fuzzer = Fuzzer(target, config, source=generator)
    for _ in seeds:
        # replayed before `run` starts its clock: a node keeps all its predecessors' coverage whatever its budget
        fuzzer.trial()
    result = fuzzer.run()
    entries = sorted(result.corpus, key=lambda e: (e.size, e.name))
    stats = NodeStats(node=node, inputs=len(entries),
                      mean_size=round(sum(e.size for e in entries) / len(entries), 2) if entries else 0.0,
                      coverage=result.coverage, trials=result.stats.trials)
    corpus = [tuple(e.choices) for e in entries]
    write_json(done, {"stats": asdict(stats), "corpus": [list(c) for c in corpus]})
    return stats, corpus


def remote_node(job: tuple[Any, ...]) -> tuple[NodeStats, list[tuple[int, ...]]]:
    """Run a node on a cluster worker: its files go to a scratch folder there, its results come back as data."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bonsai-node-") as scratch:
        return run_node(*job[:7], Path(scratch), *job[8:])


def _run_jobs(jobs: list[tuple[Any, ...]], workers: int, cluster: Any) -> list[tuple[NodeStats, list[Any]]]:
    """Run one generation's nodes: on a Dask cluster, on local processes, or here."""
    if cluster is not None:
        results: list[Any] = [None] * len(jobs)
        remote = []
        for i, job in enumerate(jobs):
            if (_node_dir(job[7], job[2]) / "done.json").is_file():
                results[i] = run_node(*job)  # finished in an earlier run: read back, nothing to compute
            else:
                remote.append(i)
        for k, (stats, corpus) in cluster.map_unordered(remote_node, [jobs[i] for i in remote]):
            i = remote[k]
            # the client keeps the resumable record, as a local node would have written it
            write_json(_node_dir(jobs[i][7], jobs[i][2]) / "done.json",
                       {"stats": asdict(stats), "corpus": [list(c) for c in corpus]})
            results[i] = (stats, corpus)
        return results
    if workers > 1 and len(jobs) > 1:
        import multiprocess

        with multiprocess.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            return list(pool.starmap(run_node, jobs))
    return [run_node(*job) for job in jobs]


def run_lattice(grammar_path: str, target_spec: str, top: Bounds, *, trials: int | None = None,
                seconds: float | None = None, seed: int = 0, out: Path, workers: int = 1,
                start: str | None = None, guidance: str = "coverage",
                progress: Callable[[str], None] | None = None, cluster: Any = None) -> dict[str, Any]:
    """Run the whole lattice up to `top`; write per-node corpora, lattice.json and final/ under `out`.

    `cluster`: an executor with `map_unordered` (e.g. `mu2py.cluster.DaskExecutor`) that runs the
    nodes of a generation; nodes then need nothing of this machine but the installed packages.
    Raises ValueError for bounds under 1, GrammarLoadError for a grammar that cannot be used,
    UserError for a target that cannot be loaded (each with a one-line message).
    """
    check_top(top)
    grammar = load_grammar(grammar_path, start=start)  # fail early, with a one-line error, on a bad grammar
    generator = BoundedGenerator(grammar, top, start=start)
    # resolved once here, then named to every node: all nodes measure exactly the same modules
    modules = tuple(m.name for m in function_target(target_spec, generator).modules)
    graph = lattice(top)
    corpora: dict[Node, list[tuple[int, ...]]] = {}
    stats: dict[Node, NodeStats] = {}
    for generation in nx.topological_generations(graph):
        jobs = []
        for node in sorted(generation):
            preds = sorted(graph.predecessors(node))
            union: dict[tuple[int, ...], int] = {}
            for p in preds:
                for choices in corpora[p]:
                    if choices not in union:
                        union[choices] = len(generator.decode_sample(choices, None).text)
            # smallest first across all predecessors: the smallest input reaching a location keeps it
            seeds = sorted(union, key=lambda c: (union[c], c))
            # every node gets its own seed, derived from the campaign's one seed
            node_seed = seed * 1_000_003 + node[0] * 10_007 + node[1] * 101 + node[2]
            jobs.append((grammar_path, target_spec, node, seeds, trials, seconds, node_seed, out, start,
                         guidance, modules))
        results = _run_jobs(jobs, workers, cluster)
        for job, (node_stats, corpus) in zip(jobs, results, strict=True):
            node = job[2]
            corpora[node] = corpus  # already sorted by size ascending: passed upward in that order
            stats[node] = node_stats
            if progress:
                progress(f"F{node}: {node_stats.inputs} inputs, mean size {node_stats.mean_size}, "
                         f"coverage {node_stats.coverage}")
    top_node = (top.idents, top.items, top.depth)
    final = out / "final"
    texts = []
    for i, choices in enumerate(corpora[top_node]):
        sample = generator.decode(choices, random.Random(0))
        assert sample is not None
        texts.append(sample.value)
        write_atomic(final / f"input_{i:04d}.txt", sample.value)
    summary = {
        "grammar": grammar_path, "target": target_spec, "top": list(top_node), "modules": list(modules),
        "nodes": [asdict(stats[n]) for n in sorted(stats)],
        "final": {"inputs": len(texts), "mean_size": round(sum(map(len, texts)) / len(texts), 2) if texts else 0,
                  "coverage": stats[top_node].coverage},
        "edges": [[list(a), list(b)] for a, b in sorted(graph.edges)],
    }
    write_json(out / "lattice.json", summary)
    return summary
