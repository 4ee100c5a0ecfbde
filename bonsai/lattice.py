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
import os
import random
import sys
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import networkx as nx

from bonsai.bounds import Bounds
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar
from mu2py.engine.runs import run
from mu2py.errors import UserError
from mu2py.store.atomic import write_atomic, write_json
from mu2py.target.driver import DRIVER_ATTR, Driver, import_module, split_spec
from mu2py.target.modules import Target, TargetModule, read_module, resolve_modules

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
    it they are the loaded modules matching `prefixes` (default: the driver's `targets`, else the
    function's own package), after one warm-up call of the function on a generated input (when
    `source` can generate one), so that modules the function imports lazily are loaded and counted
    the same way in every process.  Raises UserError (one line) when nothing measurable is named.
    """
    module_name, fn_name = split_spec(spec)
    module = import_module(module_name)
    fn = getattr(module, fn_name, None)
    if fn is None or not callable(fn):
        raise UserError(f"function {fn_name!r} not found in module {module_name!r}")
    inner = getattr(fn, DRIVER_ATTR, None)
    drv = Driver(fn=inner.fn if inner else fn, source=source, targets=inner.targets if inner else None,
                 name=fn_name, module=module_name)
    resolved: tuple[TargetModule, ...]
    if modules is not None:
        chosen = tuple(prefixes) if prefixes else tuple(modules)
        resolved = tuple(read_module(name) for name in modules)
    else:
        chosen = tuple(prefixes) if prefixes else _default_prefixes(drv)
        if isinstance(source, BoundedGenerator):
            run(drv.fn, source.generate(random.Random(0)).text, WARM_UP_TIMEOUT)  # outcome irrelevant
        try:
            resolved = resolve_modules(chosen, exclude=module_name)
        except UserError as exc:
            raise UserError(_why_nothing_measurable(chosen, module_name, exc)) from None
    return Target(driver=drv, driver_module=read_module(module_name), modules=resolved, prefixes=chosen)


def _default_prefixes(drv: Driver) -> tuple[str, ...]:
    """The driver's `targets`, else its own package; outside a package the user must say (--targets)."""
    if drv.targets:
        return drv.targets
    package = drv.module.rpartition(".")[0]
    if not package:
        imported = _imported_python_modules(drv.module)
        hint = f"--targets {','.join(imported)}" if imported else "--targets json"
        raise UserError(
            f"target module {drv.module!r} is not in a package, so bonsai cannot guess whose coverage counts: "
            f"name the modules the function exercises with --targets MOD[,MOD...] (e.g. {hint})"
        )
    return (package,)


def _imported_python_modules(module_name: str) -> list[str]:
    """Top-level modules with Python source that `module_name` imported (names or their functions/classes)."""
    found: set[str] = set()
    for value in vars(sys.modules[module_name]).values():
        name = value.__name__ if isinstance(value, types.ModuleType) else getattr(value, "__module__", None)
        top = name.partition(".")[0] if isinstance(name, str) else ""
        module = sys.modules.get(top)
        origin = getattr(getattr(module, "__spec__", None), "origin", None) or ""
        if top and top != module_name and origin.endswith(".py") and top not in ("builtins", "typing"):
            found.add(top)
    return sorted(found)[:5]


def _why_nothing_measurable(prefixes: tuple[str, ...], own: str, exc: UserError) -> str:
    """`exc`'s message, or a better one when a named module is compiled (slipcover sees Python only) or is the
    function's own module (run as the driver, never measured)."""
    if own in prefixes:
        return (f"--targets names only {own!r}, the module the target function is taken from, which runs as the "
                "driver and is not measured: name the modules the function calls (for a function defined in the "
                "module under test, write a one-line wrapper in a module of your own)")
    for prefix in prefixes:
        module = sys.modules.get(prefix)
        origin = getattr(getattr(module, "__spec__", None), "origin", None) if module else None
        if module is not None and not (origin or "").endswith(".py"):
            kind = "built into the interpreter" if origin in (None, "built-in", "frozen") else f"compiled ({origin})"
            return (f"module {prefix!r} is {kind}: coverage is measured by slipcover on Python source only; "
                    "name Python modules the function runs with --targets")
    return str(exc)


def invisible_code_warning(spec: str) -> str | None:
    """A warning when the target function itself is not Python code (a builtin or C function), else None.

    Such a function runs no line slipcover can see: coverage can come only from Python code it calls back.
    """
    module_name, fn_name = split_spec(spec)
    fn = getattr(sys.modules.get(module_name), fn_name, None)
    inner = getattr(fn, DRIVER_ATTR, None)
    fn = inner.fn if inner else fn
    if isinstance(fn, _BUILTIN_TYPES):
        return (f"{spec} is a builtin or C function: slipcover sees Python code only, so coverage can come only "
                "from Python code it calls; wrap it in a Python function or target a pure-Python implementation")
    return None


_BUILTIN_TYPES = (types.BuiltinFunctionType, types.BuiltinMethodType, types.MethodWrapperType,
                  types.WrapperDescriptorType, types.MethodDescriptorType, types.ClassMethodDescriptorType)


@dataclass
class NodeStats:
    """What a node produced: corpus size, mean input size (characters), coverage (lines + branches), trials,
    and failures (distinct exception type and location pairs on which the target raised)."""

    node: Node
    inputs: int
    mean_size: float
    coverage: int
    trials: int
    failures: int = 0  # records written before failures were counted have none


NodeResult = tuple[NodeStats, list[tuple[int, ...]]]
"""A node's stats and its corpus (realized choices), size ascending."""


def _node_dir(out: Path, node: Node) -> Path:
    return out / "nodes" / "{}_{}_{}".format(*node)


def read_done(out: Path, node: Node) -> NodeResult | None:
    """The result a finished node recorded under `out` (its `done.json`), or None if it has not finished.

    Reads only that file: resuming a finished node loads neither the grammar nor the target.
    """
    done = _node_dir(out, node) / "done.json"
    if not done.is_file():
        return None
    saved = json.loads(done.read_text())
    corpus = [tuple(c) for c in saved["corpus"]]
    return NodeStats(**{**saved["stats"], "node": tuple(saved["stats"]["node"])}), corpus


def _write_done(out: Path, stats: NodeStats, corpus: list[tuple[int, ...]]) -> None:
    write_json(_node_dir(out, stats.node) / "done.json",
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
    Inputs on which the target raised are under `<out>/nodes/<m_n_d>/failures/`.
    """
    finished = read_done(out, node)
    if finished is not None:
        return finished
    from mu2py.fuzz.fuzzer import FuzzConfig, Fuzzer  # imported here: a resume that runs no node never pays for it

    generator = BoundedGenerator(_grammar(grammar_path, start), Bounds(*node), start=start)
    target = function_target(target_spec, generator, modules=modules)
    folder = _node_dir(out, node)
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
                      coverage=result.coverage, trials=result.stats.trials, failures=result.stats.failures)
    corpus = [tuple(e.choices) for e in entries]
    _write_done(out, stats, corpus)
    return stats, corpus


def remote_node(job: tuple[Any, ...]) -> tuple[NodeStats, list[tuple[int, ...]], dict[str, bytes]]:
    """Run a node on a cluster worker: its files go to a scratch folder there; its results and its
    failure files (name -> bytes) come back as data."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="bonsai-node-") as scratch:
        stats, corpus = run_node(*job[:7], Path(scratch), *job[8:])
        failures = _node_dir(Path(scratch), job[2]) / "failures"
        files = {f.name: f.read_bytes() for f in sorted(failures.iterdir())} if failures.is_dir() else {}
        return stats, corpus, files


def _indexed_node(item: tuple[int, tuple[Any, ...]]) -> tuple[int, NodeResult]:
    """`run_node` on a pool worker, tagged with the job's index (results come back in completion order)."""
    k, job = item
    return k, run_node(*job)


class _Runner:
    """Runs one generation's unfinished nodes: on a Dask cluster, on a process pool (made once, on first
    need, and kept for every later generation), or here."""

    def __init__(self, workers: int, cluster: Any) -> None:
        self.workers = workers
        self.cluster = cluster
        self.pool: Any = None

    def run(self, jobs: list[tuple[Any, ...]]) -> Iterator[tuple[int, NodeResult]]:
        """(job index, result) of each job, as each finishes: progress is reported node by node."""
        if self.cluster is not None:
            for k, (stats, corpus, files) in self.cluster.map_unordered(remote_node, jobs):
                out = jobs[k][7]
                # the client keeps the resumable record and the failing inputs, as a local node would have
                for name, data in files.items():
                    write_atomic(_node_dir(out, stats.node) / "failures" / name, data)
                _write_done(out, stats, corpus)
                yield k, (stats, corpus)
        elif self.workers > 1 and len(jobs) > 1:
            if self.pool is None:
                import multiprocess

                # one pool for the whole lattice: a spawned worker imports the toolkit and the target once
                self.pool = multiprocess.get_context("spawn").Pool(self.workers)
            yield from self.pool.imap_unordered(_indexed_node, list(enumerate(jobs)))
        else:
            for k, job in enumerate(jobs):
                yield k, run_node(*job)

    def close(self) -> None:
        """Stop the pool, if one was made."""
        if self.pool is not None:
            self.pool.terminate()
            self.pool.join()
            self.pool = None


def _measured_modules(grammar_path: str, target_spec: str, generator: BoundedGenerator,
                      targets: Sequence[str] | None, start: str | None, out: Path, pending: bool) -> list[str]:
    """The modules every node measures, resolved once per lattice (and kept in `out/run.json` for resumes).

    A resumed lattice must be the same experiment as its finished nodes: another grammar text, start
    rule, target, --targets or measured module set is refused (one-line UserError).  A lattice with
    every node finished loads no target at all (the record names the modules).
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
    modules = [m.name for m in function_target(target_spec, generator, prefixes=tuple(targets) if targets else None)
               .modules]
    if saved is not None and list(saved["modules"]) != modules:
        raise UserError(f"{out} holds a lattice measured on modules {', '.join(saved['modules'])}, but this run "
                        f"measures {', '.join(modules)}: give the same --target/--targets or another --out")
    write_json(record, {"grammar": grammar_path, **identity, "modules": modules})
    return modules


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


def run_lattice(grammar_path: str, target_spec: str, top: Bounds, *, trials: int | None = None,
                seconds: float | None = None, seed: int = 0, out: Path, workers: int = 1,
                start: str | None = None, guidance: str = "coverage",
                progress: Callable[[str], None] | None = None, cluster: Any = None,
                targets: Sequence[str] | None = None, warn: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Run the whole lattice up to `top`; write per-node corpora, lattice.json and final/ under `out`.

    `targets`: module prefixes whose coverage counts (default: the driver's targets, else the function's
    package).  Finished nodes of an earlier run into `out` are read back, not run (`progress` says how
    many).  `cluster`: an executor with `map_unordered` (e.g. `mu2py.engine.cluster.DaskExecutor`) that runs the
    nodes of a generation; nodes then need nothing of this machine but the installed packages.  `warn`
    hears when coverage cannot grow (target code slipcover cannot see) or stayed 0.
    Raises ValueError for bounds under 1, GrammarLoadError for a grammar that cannot be used,
    UserError for a target that cannot be loaded (each with a one-line message).
    """
    check_top(top)
    grammar = load_grammar(grammar_path, start=start)  # fail early, with a one-line error, on a bad grammar
    generator = BoundedGenerator(grammar, top, start=start)
    graph = lattice(top)
    finished = {node: r for node in graph if (r := read_done(out, node)) is not None}
    modules = _measured_modules(grammar_path, target_spec, generator, targets, start, out,
                                len(finished) < len(graph))
    if warn and (note := invisible_code_warning(target_spec)):
        warn(note)
    if progress and finished:
        progress(f"resumed: {len(finished)} of {len(graph)} nodes already done in {out}")
    corpora: dict[Node, list[tuple[int, ...]]] = {}
    stats: dict[Node, NodeStats] = {}
    runner = _Runner(workers, cluster)
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
                    progress(f"node {len(stats)}/{len(graph)} F({node[0]},{node[1]},{node[2]}): "
                             f"{node_stats.inputs} inputs, mean size {node_stats.mean_size} chars, "
                             f"coverage {node_stats.coverage} lines+branches{failed}")
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
    summary = {
        "grammar": grammar_path, "target": target_spec, "top": list(top_node), "modules": list(modules),
        "nodes": [asdict(stats[n]) for n in sorted(stats)],
        "final": {"inputs": len(texts), "mean_size": round(sum(map(len, texts)) / len(texts), 2) if texts else 0,
                  "coverage": stats[top_node].coverage},
        "failures": failures,
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
