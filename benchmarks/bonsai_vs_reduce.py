"""Bonsai lattice vs fuzz-then-reduce (the Bonsai paper's comparison): corpus files, input size, coverage, CPU.

Run from the repository root::

    python benchmarks/bonsai_vs_reduce.py [--grammar G] [--target MODULE:FUNCTION]
        [--node-trials N | --node-time T] [--bounds M,N,D] [--seed S] [--out DIR] [--json]

Bonsai: the lattice of coverage-guided bounded fuzzers up to the bounds (`run_lattice`, one
process), whose top corpus is the result.  Baseline: ONE coverage-guided fuzzer with the bounded
generator at the top bound (mu2py's Fuzzer set up as a lattice node is), run for exactly the
lattice's CPU seconds; then every input of its corpus is reduced on its own with picire's ddmin (lines,
then characters).  A candidate is kept when it still parses with the grammar and still reaches
every line and line-to-line transition (so every branch) of the target that the original input
reached on its own, so the reduced corpus covers at least what the fuzzed one did.  Input size
counts non-whitespace characters; coverage (lines + branches of the target's modules, the
fuzzer's own unit) is measured by replaying each final corpus on a fresh instrumented copy.
The paper reports inputs 16-45% smaller, ~18% fewer files, coverage within ~1%.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterable
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # targets/ and grammars/ are importable from a checkout without installing
    sys.path.insert(0, str(ROOT))

with warnings.catch_warnings():
    # picire imports pkg_resources (hence setuptools<81 in the extras), which warns that it is deprecated
    warnings.filterwarnings("ignore", message="pkg_resources is deprecated", category=UserWarning)
    import picire

from bonsai.bounds import Bounds  # noqa: E402
from bonsai.generator import BoundedGenerator  # noqa: E402
from bonsai.grammar import Grammar, load_grammar  # noqa: E402
from bonsai.lattice import run_lattice  # noqa: E402
from bonsai.target import function_target  # noqa: E402
from mu2py.cli.argtypes import parse_duration  # noqa: E402
from mu2py.engine.runs import run  # noqa: E402
from mu2py.feedback.coverage import corpus_coverage  # noqa: E402
from mu2py.fuzz.config import FuzzConfig  # noqa: E402
from mu2py.fuzz.fuzzer import Fuzzer  # noqa: E402

DEFAULT_GRAMMAR = "grammars/json.lark"
DEFAULT_TARGET = "targets.json_decoder.driver:parse"
DEFAULT_NODE_TRIALS = 300
RUN_TIMEOUT = 5.0
"""Seconds one run of a reduction candidate may take (a reduced input could loop where the original did not)."""

Arc = tuple[str, int, int]


def _resolve(grammar: str) -> str:
    path = Path(grammar)
    if not path.exists() and (ROOT / grammar).exists():
        return str(ROOT / grammar)
    return grammar


def mean_size(texts: list[str]) -> float:
    """Mean size of `texts` in non-whitespace characters (0 for no texts)."""
    if not texts:
        return 0.0
    return sum(len("".join(t.split())) for t in texts) / len(texts)


def trace_coverage(fn: Callable[[str], Any], text: str, files: frozenset[str]) -> frozenset[Arc]:
    """Arcs (file, from line, to line) that `fn(text)` runs in `files`; a function's entry and exit are arcs too.

    Every line reached is the end of some arc, and every branch taken is an arc, so keeping an
    input's arcs keeps its lines and branches.
    """
    arcs: set[Arc] = set()

    def global_trace(frame: FrameType, event: str, arg: object) -> Callable[..., Any] | None:
        code = frame.f_code
        if code.co_filename not in files:
            return None  # no line events for library frames: their cost stays low
        filename = code.co_filename
        last = -code.co_firstlineno  # negative: the function's entry

        def local_trace(frame: FrameType, event: str, arg: object) -> Callable[..., Any]:
            nonlocal last
            if event == "line":
                arcs.add((filename, last, frame.f_lineno))
                last = frame.f_lineno
            elif event == "return":
                arcs.add((filename, last, -code.co_firstlineno))
            return local_trace

        return local_trace

    previous = sys.gettrace()
    sys.settrace(global_trace)
    try:
        run(fn, text, RUN_TIMEOUT)
    finally:
        sys.settrace(previous)
    return frozenset(arcs)


def ddmin(units: list[str], keep: Callable[[str], bool]) -> list[str]:
    """A 1-minimal sublist of `units` whose concatenation `keep` accepts (picire's ddmin); `units` if none."""
    def test(config: list[int], config_id: tuple[str, ...]) -> picire.Outcome:
        # picire's convention: FAIL means "still interesting", the configuration is kept
        return picire.Outcome.FAIL if keep("".join(units[i] for i in config)) else picire.Outcome.PASS

    try:
        kept = picire.DD(test, cache=picire.ConfigCache())(list(range(len(units))))
    except AssertionError:  # the whole input was not interesting (a target whose coverage varies): keep it
        return units
    return [units[i] for i in kept]


def reduce_text(text: str, keep: Callable[[str], bool]) -> str:
    """Reduce `text` under `keep`: ddmin over lines, then over characters."""
    lines = ddmin(text.splitlines(keepends=True), keep)
    return "".join(ddmin(list("".join(lines)), keep))


def reduce_corpus(texts: Iterable[str], fn: Callable[[str], Any], files: frozenset[str],
                  grammar: Grammar) -> list[str]:
    """Reduce every input on its own: it must parse and reach every arc it reached before (duplicates dropped)."""
    texts = list(texts)
    for text in texts:
        run(fn, text, RUN_TIMEOUT)  # warm up lazy state (parser built on first use...) before any arc set is taken
    reduced: dict[str, None] = {}
    for text in texts:
        wanted = trace_coverage(fn, text, files)

        def keep(candidate: str, wanted: frozenset[Arc] = wanted) -> bool:
            try:
                grammar.parse(candidate)
            except Exception:  # noqa: BLE001 - any parse failure makes the candidate uninteresting
                return False
            return wanted <= trace_coverage(fn, candidate, files)

        reduced.setdefault(reduce_text(text, keep), None)
    return list(reduced)


def fuzz_baseline(generator: BoundedGenerator, target: str, cpu_seconds: float, seed: int, out: Path,
                  modules: list[str]) -> list[str]:
    """ONE coverage-guided fuzzer at the generator's bounds, set up as `run_node` sets up a node, for `cpu_seconds`.

    The budget is this process's CPU time, not wall-clock time as in a node's `seconds`: on a shared
    machine wall-clock budgets would hand the two campaigns different amounts of CPU.  Returns the
    corpus texts, smallest first.
    """
    fuzz_target = function_target(target, generator, modules=modules)
    # the trial count only satisfies FuzzConfig; the CPU check below ends the campaign
    fuzzer = Fuzzer(fuzz_target, FuzzConfig(trials=2**62, seed=seed, guidance="coverage", out=out),
                    source=generator)
    began = time.process_time()
    while time.process_time() - began < cpu_seconds:
        fuzzer.trial()  # one step of mu2py's loop: pick, mutate, run, keep on new coverage
    entries = sorted(fuzzer.corpus.entries, key=lambda e: (e.size, e.name))
    return [generator.decode_sample(e.choices, None).text for e in entries]


def _stats(texts: list[str], coverage: int) -> dict[str, Any]:
    return {"inputs": len(texts), "mean_size": round(mean_size(texts), 2), "coverage": coverage}


def run_comparison(grammar: str, target: str, *, bounds: tuple[int, int, int] = (3, 3, 3),
                   node_seconds: float | None = None, node_trials: int | None = None, seed: int = 0,
                   out: Path) -> dict[str, Any]:
    """Run the Bonsai lattice and fuzz-then-reduce at equal CPU; return {"bonsai", "reduce", "ratios", ...}.

    Exactly one of `node_seconds`/`node_trials` bounds each lattice node; the baseline fuzzer
    gets the lattice's CPU seconds.  `out` receives both campaigns (bonsai/, reduce/) and
    result.json; it must not hold an earlier comparison (a resumed lattice would cost no CPU).
    """
    if (node_seconds is None) == (node_trials is None):
        raise ValueError("give exactly one of node_seconds and node_trials")
    out = Path(out)
    if (out / "bonsai").exists() or (out / "reduce").exists():
        raise ValueError(f"{out} already holds a comparison: give an empty output directory")
    grammar_path = _resolve(grammar)
    top = Bounds(*bounds)
    loaded = load_grammar(grammar_path)
    generator = BoundedGenerator(loaded, top)

    began = time.process_time()
    summary = run_lattice(grammar_path, target, top, trials=node_trials, seconds=node_seconds, seed=seed,
                          out=out / "bonsai")
    lattice_cpu = time.process_time() - began
    modules = summary["modules"]
    bonsai_texts = [p.read_text() for p in sorted((out / "bonsai" / "final").glob("*.txt"))]

    began = time.process_time()
    fuzzed = fuzz_baseline(generator, target, lattice_cpu, seed, out / "reduce" / "fuzz", modules)
    fuzz_cpu = time.process_time() - began

    measured = function_target(target, None, modules=modules)
    assert measured.driver is not None and measured.driver_module is not None
    files = frozenset({m.file for m in measured.modules} | {measured.driver_module.file})
    began = time.process_time()
    reduced = reduce_corpus(fuzzed, measured.driver.fn, files, loaded)
    reduce_cpu = time.process_time() - began
    for i, text in enumerate(reduced):
        path = out / "reduce" / "reduced" / f"input_{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    bonsai = _stats(bonsai_texts, corpus_coverage(measured, bonsai_texts))
    bonsai["cpu_seconds"] = round(lattice_cpu, 2)
    before = _stats(fuzzed, corpus_coverage(measured, fuzzed))
    baseline = _stats(reduced, corpus_coverage(measured, reduced))
    baseline.update(cpu_seconds=round(fuzz_cpu, 2), reduction_cpu_seconds=round(reduce_cpu, 2), before=before)
    size_ratio = bonsai["mean_size"] / baseline["mean_size"] if baseline["mean_size"] else float("nan")
    files_ratio = bonsai["inputs"] / baseline["inputs"] if baseline["inputs"] else float("nan")
    coverage_diff = (100.0 * (bonsai["coverage"] - baseline["coverage"]) / baseline["coverage"]
                     if baseline["coverage"] else float("nan"))
    result = {
        "grammar": grammar, "target": target, "bounds": list(bounds), "seed": seed,
        "node_trials": node_trials, "node_seconds": node_seconds, "modules": modules,
        "bonsai": bonsai, "reduce": baseline,
        "ratios": {"size_ratio": round(size_ratio, 3), "files_ratio": round(files_ratio, 3),
                   "coverage_diff_pct": round(coverage_diff, 2)},
    }
    (out / "result.json").write_text(json.dumps(result, indent=2) + "\n")
    return result


def format_report(result: dict[str, Any]) -> str:
    """The comparison as a readable table plus the ratios the paper reports."""
    b, r, q = result["bonsai"], result["reduce"], result["ratios"]
    budget = (f"{result['node_trials']} trials/node" if result["node_trials"] is not None
              else f"{result['node_seconds']:g} s/node")
    rows = [
        ("Bonsai lattice", b["inputs"], b["mean_size"], b["coverage"], f"{b['cpu_seconds']:.1f}"),
        ("fuzz (before reduce)", r["before"]["inputs"], r["before"]["mean_size"], r["before"]["coverage"],
         f"{r['cpu_seconds']:.1f}"),
        ("fuzz-then-reduce", r["inputs"], r["mean_size"], r["coverage"],
         f"{r['cpu_seconds']:.1f} + {r['reduction_cpu_seconds']:.1f} reduction"),
    ]
    lines = [
        f"Bonsai vs fuzz-then-reduce: {result['grammar']} -> {result['target']}",
        f"bounds {','.join(map(str, result['bounds']))}, {budget}, seed {result['seed']}; "
        f"baseline fuzzer given the lattice's CPU seconds",
        "",
        f"{'corpus':<22}{'inputs':>8}{'mean size':>11}{'coverage':>10}  CPU seconds",
        f"{'':<22}{'':>8}{'(non-ws)':>11}{'(lin+br)':>10}",
    ]
    for name, inputs, size, coverage, cpu in rows:
        lines.append(f"{name:<22}{inputs:>8}{size:>11.2f}{coverage:>10}  {cpu}")
    lines += [
        "",
        f"size ratio (Bonsai / reduced)  {q['size_ratio']:.3f}  ({100 * (1 - q['size_ratio']):.1f}% smaller)",
        f"files ratio (Bonsai / reduced) {q['files_ratio']:.3f}  ({100 * (1 - q['files_ratio']):.1f}% fewer)",
        f"coverage difference            {q['coverage_diff_pct']:+.2f}%",
        "paper: inputs 16-45% smaller, ~18% fewer files, coverage within ~1%",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Command line: run one comparison and print the table (or the JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammar", default=DEFAULT_GRAMMAR)
    parser.add_argument("--target", default=DEFAULT_TARGET, metavar="MODULE:FUNCTION")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--node-trials", type=int, help=f"trials per lattice node ({DEFAULT_NODE_TRIALS})")
    budget.add_argument("--node-time", help="time per lattice node, e.g. 2s")
    parser.add_argument("--bounds", default="3,3,3", help="top of the lattice (3,3,3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="output directory (default: a new temporary directory)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    args = parser.parse_args(argv)
    node_seconds = parse_duration(args.node_time) if args.node_time else None
    node_trials = None if node_seconds is not None else (args.node_trials or DEFAULT_NODE_TRIALS)
    bounds = Bounds.parse(args.bounds)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bonsai_vs_reduce_"))
    result = run_comparison(args.grammar, args.target, bounds=(bounds.idents, bounds.items, bounds.depth),
                            node_seconds=node_seconds, node_trials=node_trials, seed=args.seed, out=out)
    print(json.dumps(result, indent=2) if args.json else format_report(result), flush=True)
    print(f"(outputs in {out})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
