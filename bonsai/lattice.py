"""The Bonsai lattice: coverage-guided bounded fuzzers F(m,n,d) that pass their corpora upward.

F(1,1,1) starts from one random seed; every other node starts from the union of its
predecessors' corpora sorted by size ascending (so the smallest input that reaches a
location is the one that keeps it) and runs after all of them.  Nodes of one
topological generation are independent and may run in parallel.  The top's corpus is the
result.  A node is mu2py's fuzzing loop with the bounded generator as its input source.

Invariant: a node's coverage is at least each predecessor's.  Three things keep it so: every
seed is replayed before the node's own budget starts (a budget smaller than the seed list
would otherwise skip some), coverage is collected completely (see `mu2py.feedback.coverage`), and
every node measures the same modules (resolved once per lattice, not from whatever a
process happens to have imported: a target that imports modules lazily would otherwise be
measured over more modules in a process that already ran it than in a fresh worker).

Resuming: a node that finished writes `nodes/<m_n_d>/done.json`; a later run into the same folder
reads those first and loads nothing for them (a finished lattice imports no target and starts no
process pool).  `run.json` names the experiment (grammar hash, start, target, --targets, modules):
a resume that differs is refused rather than mixing two experiments in one lattice.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import networkx as nx

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar
from bonsai.node import Node, NodeStats, failure_records, read_done
from bonsai.runner import NodeRunner
from bonsai.target import function_target, invisible_code_warning
from mu2py.errors import UserError
from mu2py.steps import Step
from mu2py.store.atomic import write_atomic, write_json
from mu2py.target.driver import split_spec

__all__ = ["check_top", "lattice", "run_lattice"]


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


def _measured_modules(grammar_path: str, target_spec: str, generator: BoundedGenerator,
                      targets: Sequence[str] | None, start: str | None, out: Path, pending: bool,
                      warning_counts: Counter[str]) -> list[str]:
    """The modules every node measures, resolved once per lattice (and kept in `out/run.json` for resumes).

    A resumed lattice must be the same experiment as its finished nodes: another grammar text, start
    rule, target, --targets or measured module set is refused (one-line UserError).  A lattice with
    every node finished loads no target at all (the record names the modules).  The warm-up call's
    warnings go to `warning_counts`.
    """
    record = out / "run.json"
    identity = {"grammar_sha256": hashlib.sha256(Path(grammar_path).read_bytes()).hexdigest(), "start": start,
                "target": target_spec, "targets": list(targets) if targets else None}
    saved = json.loads(record.read_text()) if record.is_file() else None
    if saved is not None:
        changed = [key for key, value in identity.items() if saved.get(key, value) != value]
        if changed:
            names = {"grammar_sha256": "grammar text", "start": "--start", "target": "--target", "targets": "--targets"}
            raise UserError(f"{out} holds a lattice grown with another {', '.join(names[k] for k in changed)}: give "
                            "the same arguments to resume it, or another --out")
    elif (out / "lattice.json").is_file():
        saved = json.loads((out / "lattice.json").read_text())  # finished before run.json was kept
    if not pending and saved is not None:
        return list(saved["modules"])
    prefixes = tuple(targets) if targets else None
    modules = [m.name for m in function_target(target_spec, generator, prefixes=prefixes,
                                               warning_counts=warning_counts).modules]
    if saved is not None and list(saved["modules"]) != modules:
        raise UserError(f"{out} holds a lattice measured on modules {', '.join(saved['modules'])}, but this run "
                        f"measures {', '.join(modules)}: give the same --target/--targets or another --out")
    write_json(record, {"grammar": grammar_path, **identity, "modules": modules})
    return modules



def run_lattice(grammar_path: str, target_spec: str, top: Bounds, *, trials: int | None = None,
                seconds: float | None = None, seed: int = 0, out: Path, workers: int = 1,
                start: str | None = None, guidance: str = "coverage",
                progress: Callable[[str], None] | None = None, cluster: Any = None,
                targets: Sequence[str] | None = None, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the whole lattice up to `top`; write per-node corpora, lattice.json and final/ under `out`.

    `targets`: module prefixes whose coverage counts (default: the driver's targets, else the function's
    package).  Finished nodes of an earlier run into `out` are read back, not run (`progress` says how
    many); each line `progress` hears is a `mu2py.steps.Step` counting the nodes done of all.  `cluster`: an
    executor with `map_unordered` (e.g. `mu2py.processes.cluster.DaskExecutor`) that runs the nodes of a
    generation; nodes then need nothing of this machine but the installed packages (the grammar travels as text,
    the target's modules from this machine's folders are shipped: see `DaskExecutor.ship`).  `warn`
    hears when coverage cannot grow (target code slipcover cannot see) or stayed 0.  The target's warnings
    are never shown: the summary's `target_warnings` counts them by category (every node's and the warm-up's).
    Raises ValueError for bounds under 1, GrammarLoadError for a grammar that cannot be used,
    UserError for a target that cannot be loaded (each with a one-line message).
    """
    check_top(top)
    grammar = load_grammar(grammar_path, start=start)  # fail early, with a one-line error, on a bad grammar
    generator = BoundedGenerator(grammar, top, start=start)
    graph = lattice(top)
    finished = {node: r for node in graph if (r := read_done(out, node)) is not None}
    warm_up: Counter[str] = Counter()
    modules = _measured_modules(grammar_path, target_spec, generator, targets, start, out,
                                len(finished) < len(graph), warm_up)
    if warn and (note := invisible_code_warning(target_spec)):
        warn(note)
    if progress and finished:
        progress(Step(f"resumed: {len(finished)} of {len(graph)} nodes already done in {out}", "resumed", len(finished),
                      len(graph), "nodes"))
    corpora: dict[Node, list[tuple[int, ...]]] = {}
    stats: dict[Node, NodeStats] = {}
    if cluster is not None and hasattr(cluster, "ship"):
        # modules of the client's folders (a target module in the current directory) travel with the job
        cluster.ship([split_spec(target_spec)[0], *modules])
    runner = NodeRunner(workers, cluster)
    try:
        for generation in nx.topological_generations(graph):
            jobs = []
            for node in sorted(generation):
                if node in finished:
                    stats[node], corpora[node] = finished[node]
                    continue
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
            for k, (node_stats, corpus) in runner.run(jobs) if jobs else ():
                node = jobs[k][2]
                corpora[node] = corpus  # already sorted by size ascending: passed upward in that order
                stats[node] = node_stats
                if progress:
                    n = node_stats.failures
                    failed = f", {n} failure{'s' if n > 1 else ''}" if n else ""
                    progress(Step(f"node {len(stats)}/{len(graph)} F({node[0]},{node[1]},{node[2]}): "
                                  f"{node_stats.inputs} inputs, mean size {node_stats.mean_size} chars, "
                                  f"coverage {node_stats.coverage} lines+branches{failed}", "growing the lattice",
                                  len(stats), len(graph), "nodes"))
    finally:
        runner.close()
    top_node = (top.idents, top.items, top.depth)
    final = out / "final"
    texts = []
    for i, choices in enumerate(corpora[top_node]):
        sample = generator.decode(choices, random.Random(0))
        assert sample is not None
        texts.append(sample.value)
        write_atomic(final / f"input_{i:04d}.txt", sample.value)
    failures = failure_records(out)
    target_warnings = sum((Counter(stats[n].warnings) for n in stats), warm_up)
    summary: dict[str, Any] = {
        "grammar": grammar_path, "target": target_spec, "top": list(top_node), "modules": list(modules),
        "nodes": [asdict(stats[n]) for n in sorted(stats)],
        "final": {"inputs": len(texts), "mean_size": round(sum(map(len, texts)) / len(texts), 2) if texts else 0,
                  "coverage": stats[top_node].coverage},
        "failures": failures,
        "target_warnings": dict(target_warnings.most_common()),
        "edges": [[list(a), list(b)] for a, b in sorted(graph.edges)],
    }
    if warn and summary["final"]["coverage"] == 0:
        warn(_zero_coverage_warning(target_spec, modules, targets))
    elif warn and summary["final"]["inputs"] == 1 and stats[top_node].trials > 1:
        # one input keeps all the coverage: no line reached depends on the input
        warn(f"coverage never grew past the first input ({summary['final']['coverage']} lines+branches over "
             f"{stats[top_node].trials} trials at the top node): the inputs may reach no Python code of "
             f"{', '.join(modules)} that depends on them, e.g. when the work is done in C (json.loads uses the "
             "_json accelerator); target a pure-Python path or name other modules with --targets")
    write_json(out / "lattice.json", summary)
    return summary


def _zero_coverage_warning(target_spec: str, modules: Sequence[str], targets: Sequence[str] | None) -> str:
    module_name = split_spec(target_spec)[0]
    hint = ("name the modules the function exercises with --targets MOD[,MOD...]" if not targets
            else "check that --targets names the modules the function runs, as Python source")
    own = (f"; without --targets a plain function is measured on its own package ({module_name.rpartition('.')[0]}) "
           "only, never on the module it is defined in" if not targets and "." in module_name else "")
    return (f"coverage stayed 0: no input ran a line of the measured modules ({', '.join(modules)}), so the "
            f"corpus is empty{own}; {hint}")
