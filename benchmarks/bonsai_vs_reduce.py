"""Bonsai lattice vs fuzz-then-reduce (the Bonsai paper's comparison): corpus files, input size, coverage, CPU.

Run from the repository root::

    python benchmarks/bonsai_vs_reduce.py [--grammar G --target MODULE:FUNCTION [--start RULE] | --targets NAMES]
        [--node-trials N | --node-time T] [--bounds M,N,D] [--reduce-time T] [--seed S] [--out DIR] [--json]

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

`--targets json,chocopy` (or `all`) runs the named comparisons of COMPARISONS one after the other, each
in its own folder under --out, instead of one --grammar/--target pair.  Progress goes to stderr every few
seconds: the phase (lattice, fuzz, reduce, measure), what it has done and the time elapsed.
`--reduce-time T` bounds the reduction's wall-clock time: when it runs out, the input being reduced
keeps its smallest candidate that passed so far, the inputs not reached yet are kept as fuzzed, and
the result says the reduction was cut (`reduce.cut`, and a line of the report).  The target's warnings
are counted, not shown (`target_warnings`).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
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
from bonsai.node import count_target_warnings  # noqa: E402
from bonsai.target import captured_warnings, format_warning_counts, function_target  # noqa: E402
from bonsai.validity import bundled_grammar  # noqa: E402
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
PROGRESS_EVERY = 5.0
"""Seconds between two progress lines on stderr."""

Arc = tuple[str, int, int]


@dataclass(frozen=True)
class Comparison:
    """One grammar and the target its inputs go to, as `--targets` names it."""

    grammar: str
    target: str
    start: str | None = None


COMPARISONS = {
    "json": Comparison("grammars/json.lark", "targets.json_decoder.driver:parse"),
    "chocopy": Comparison("grammars/chocopy.lark", "targets.chocopy.driver:typecheck"),
    "expr": Comparison("grammars/expr.lark", "targets.expr.driver:evaluate"),
    "indent": Comparison("grammars/indent.lark", "targets.indent.driver:tokens"),
    # lark's bundled Python grammar against the stdlib's tokenizer (pure Python on 3.11; from 3.12 on it calls
    # the C tokenizer and little Python code is left to cover)
    "python": Comparison("python.lark", "targets.indent.driver:tokens", start="file_input"),
}
"""The comparisons `--targets` chooses from (`all`: every one, in this order)."""


class Progress:
    """Progress lines on stderr: one when a phase starts, then one every `every` seconds (from a background
    thread, so that a long node or one slow reduction still reports) with the phase's units done and the time.

    The main thread only sets attributes; the thread only reads them.
    """

    def __init__(self, label: str = "bonsai_vs_reduce", every: float = PROGRESS_EVERY, stream: Any = None) -> None:
        self.label = label
        self.every = every
        self.stream = stream if stream is not None else sys.stderr
        self.began = time.monotonic()
        self.phase_began = self.began
        self.name = ""
        self.done = 0
        self.total: int | None = None
        self.unit = ""
        self.detail = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def phase(self, name: str, total: int | None = None, unit: str = "") -> None:
        """Start phase `name` of `total` units (None: open-ended) and say so now."""
        self.name, self.total, self.unit, self.done, self.detail = name, total, unit, 0, ""
        self.phase_began = time.monotonic()
        self.say()
        if self._thread is None:
            self._thread = threading.Thread(target=self._loop, name="bonsai_vs_reduce-progress", daemon=True)
            self._thread.start()

    def advance(self, units: int = 1) -> None:
        """Count `units` more units of the phase done."""
        self.done += units

    def line(self) -> str:
        """The current progress line."""
        now = time.monotonic()
        done = f"{self.done}/{self.total}" if self.total is not None else str(self.done)
        detail = f", {self.detail}" if self.detail else ""
        return (f"{self.label}: {self.name}: {done} {self.unit}{detail}, {now - self.phase_began:.0f} s "
                f"(total {now - self.began:.0f} s)")

    def say(self) -> None:
        """Print the current line."""
        print(self.line(), file=self.stream, flush=True)

    def _loop(self) -> None:
        while not self._stop.wait(self.every):
            self.say()

    def close(self) -> None:
        """Stop the periodic lines."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None


def _resolve(grammar: str) -> str:
    """A grammar's path: as given, else under the checkout, else one of lark's bundled grammars (python.lark)."""
    path = Path(grammar)
    if not path.exists() and (ROOT / grammar).exists():
        return str(ROOT / grammar)
    if not path.exists() and bundled_grammar(grammar).exists():
        return str(bundled_grammar(grammar))
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


class _OutOfTime(Exception):
    """Raised into picire's ddmin when the reduction's time is up."""


def ddmin(units: list[str], keep: Callable[[str], bool], out_of_time: Callable[[], bool] | None = None) -> list[str]:
    """A 1-minimal sublist of `units` whose concatenation `keep` accepts (picire's ddmin); `units` if none.

    When `out_of_time()` turns true, the smallest sublist `keep` accepted so far is returned instead.
    """
    best = list(range(len(units)))

    def test(config: list[int], config_id: tuple[str, ...]) -> picire.Outcome:
        if out_of_time is not None and out_of_time():
            raise _OutOfTime
        if keep("".join(units[i] for i in config)):
            if len(config) < len(best):
                best[:] = config  # every accepted configuration is a valid reduction: the smallest is kept
            # picire's convention: FAIL means "still interesting", the configuration is kept
            return picire.Outcome.FAIL
        return picire.Outcome.PASS

    try:
        kept = picire.DD(test, cache=picire.ConfigCache())(list(range(len(units))))
    except _OutOfTime:
        return [units[i] for i in best]
    except AssertionError:  # the whole input was not interesting (a target whose coverage varies): keep it
        return units
    return [units[i] for i in kept]


def reduce_text(text: str, keep: Callable[[str], bool], out_of_time: Callable[[], bool] | None = None) -> str:
    """Reduce `text` under `keep`: ddmin over lines, then over characters (the best so far once out of time)."""
    lines = "".join(ddmin(text.splitlines(keepends=True), keep, out_of_time))
    if out_of_time is not None and out_of_time():
        return lines
    return "".join(ddmin(list(lines), keep, out_of_time))


@dataclass
class Reduction:
    """A reduced corpus: its texts, how many inputs were reduced to the end, whether the time limit cut it."""

    texts: list[str]
    finished: int
    cut: bool


def reduce_corpus(texts: Iterable[str], fn: Callable[[str], Any], files: frozenset[str], grammar: Grammar, *,
                  seconds: float | None = None, progress: Progress | None = None) -> Reduction:
    """Reduce every input on its own: it must parse and reach every arc it reached before (duplicates dropped).

    With `seconds`, the reduction stops after that much wall-clock time: the input being reduced keeps
    its best candidate so far, the rest stay as they are (the result says `cut`).
    """
    texts = list(texts)
    deadline = None if seconds is None else time.monotonic() + seconds

    def out_of_time() -> bool:
        return deadline is not None and time.monotonic() >= deadline

    if progress is not None:
        progress.phase("reduce", len(texts), "inputs")
    for text in texts:
        run(fn, text, RUN_TIMEOUT)  # warm up lazy state (parser built on first use...) before any arc set is taken
    reduced: dict[str, None] = {}
    finished = 0
    candidates = 0
    for text in texts:
        if out_of_time():
            reduced.setdefault(text, None)  # not reached: kept as fuzzed, which covers what it covered
            continue
        wanted = trace_coverage(fn, text, files)

        def keep(candidate: str, wanted: frozenset[Arc] = wanted) -> bool:
            nonlocal candidates
            candidates += 1
            if progress is not None:
                progress.detail = f"{candidates} candidates"
            try:
                grammar.parse(candidate)
            except Exception:  # noqa: BLE001 - any parse failure makes the candidate uninteresting
                return False
            return wanted <= trace_coverage(fn, candidate, files)

        reduced.setdefault(reduce_text(text, keep, out_of_time), None)
        if not out_of_time():
            finished += 1
        if progress is not None:
            progress.advance()
    return Reduction(list(reduced), finished, finished < len(texts))


def fuzz_baseline(generator: BoundedGenerator, target: str, cpu_seconds: float, seed: int, out: Path,
                  modules: list[str], *, warning_counts: Counter[str] | None = None,
                  progress: Progress | None = None) -> list[str]:
    """ONE coverage-guided fuzzer at the generator's bounds, set up as `run_node` sets up a node, for `cpu_seconds`.

    The budget is this process's CPU time, not wall-clock time as in a node's `seconds`: on a shared
    machine wall-clock budgets would hand the two campaigns different amounts of CPU.  Returns the
    corpus texts, smallest first.  The target's warnings go to `warning_counts`, as a node's do.
    """
    fuzz_target = function_target(target, generator, modules=modules)
    # the trial count only satisfies FuzzConfig; the CPU check below ends the campaign
    fuzzer = Fuzzer(fuzz_target, FuzzConfig(trials=2**62, seed=seed, guidance="coverage", out=out),
                    source=generator)
    count_target_warnings(fuzzer, Counter() if warning_counts is None else warning_counts)
    if progress is not None:
        progress.phase("fuzz", None, "trials")
    began = time.process_time()
    while (spent := time.process_time() - began) < cpu_seconds:
        fuzzer.trial()  # one step of mu2py's loop: pick, mutate, run, keep on new coverage
        if progress is not None:
            progress.done = fuzzer.stats.trials
            progress.detail = f"{spent:.0f}/{cpu_seconds:.0f} CPU s"
    entries = sorted(fuzzer.corpus.entries, key=lambda e: (e.size, e.name))
    return [generator.decode_sample(e.choices, None).text for e in entries]


def _stats(texts: list[str], coverage: int) -> dict[str, Any]:
    return {"inputs": len(texts), "mean_size": round(mean_size(texts), 2), "coverage": coverage}


def run_comparison(grammar: str, target: str, *, bounds: tuple[int, int, int] = (3, 3, 3),
                   node_seconds: float | None = None, node_trials: int | None = None, seed: int = 0,
                   out: Path, start: str | None = None, reduce_seconds: float | None = None,
                   progress: Progress | None = None) -> dict[str, Any]:
    """Run the Bonsai lattice and fuzz-then-reduce at equal CPU; return {"bonsai", "reduce", "ratios", ...}.

    Exactly one of `node_seconds`/`node_trials` bounds each lattice node; the baseline fuzzer
    gets the lattice's CPU seconds.  `start`: the grammar's start rule.  `reduce_seconds` bounds the
    reduction's wall-clock time (see `reduce_corpus`).  `progress` hears each phase.  `out` receives both
    campaigns (bonsai/, reduce/) and result.json; it must not hold an earlier comparison (a resumed lattice
    would cost no CPU).
    """
    if (node_seconds is None) == (node_trials is None):
        raise ValueError("give exactly one of node_seconds and node_trials")
    out = Path(out)
    if (out / "bonsai").exists() or (out / "reduce").exists():
        raise ValueError(f"{out} already holds a comparison: give an empty output directory")
    grammar_path = _resolve(grammar)
    top = Bounds(*bounds)
    loaded = load_grammar(grammar_path, start=start)
    generator = BoundedGenerator(loaded, top)
    counts: Counter[str] = Counter()

    if progress is not None:
        progress.phase("lattice", bounds[0] * bounds[1] * bounds[2], "nodes")

    def node_done(line: str) -> None:
        if progress is not None and line.startswith("node "):
            progress.advance()

    began = time.process_time()
    summary = run_lattice(grammar_path, target, top, trials=node_trials, seconds=node_seconds, seed=seed,
                          out=out / "bonsai", start=start, progress=node_done)
    lattice_cpu = time.process_time() - began
    counts.update(summary["target_warnings"])
    modules = summary["modules"]
    bonsai_texts = [p.read_text() for p in sorted((out / "bonsai" / "final").glob("*.txt"))]

    began = time.process_time()
    fuzzed = fuzz_baseline(generator, target, lattice_cpu, seed, out / "reduce" / "fuzz", modules,
                           warning_counts=counts, progress=progress)
    fuzz_cpu = time.process_time() - began

    measured = function_target(target, None, modules=modules)
    assert measured.driver is not None and measured.driver_module is not None
    files = frozenset({m.file for m in measured.modules} | {measured.driver_module.file})
    began = time.process_time()
    with captured_warnings(counts):
        reduction = reduce_corpus(fuzzed, measured.driver.fn, files, loaded, seconds=reduce_seconds,
                                  progress=progress)
    reduce_cpu = time.process_time() - began
    reduced = reduction.texts
    for i, text in enumerate(reduced):
        path = out / "reduce" / "reduced" / f"input_{i:04d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)

    if progress is not None:
        progress.phase("measure", 3, "corpora")
    with captured_warnings(counts):
        coverages = []
        for texts in (bonsai_texts, fuzzed, reduced):
            coverages.append(corpus_coverage(measured, texts))
            if progress is not None:
                progress.advance()
    bonsai = _stats(bonsai_texts, coverages[0])
    bonsai["cpu_seconds"] = round(lattice_cpu, 2)
    before = _stats(fuzzed, coverages[1])
    baseline = _stats(reduced, coverages[2])
    baseline.update(cpu_seconds=round(fuzz_cpu, 2), reduction_cpu_seconds=round(reduce_cpu, 2), before=before,
                    cut=reduction.cut, reduced_inputs=reduction.finished, fuzzed_inputs=len(fuzzed),
                    reduce_time_limit=reduce_seconds)
    size_ratio = bonsai["mean_size"] / baseline["mean_size"] if baseline["mean_size"] else float("nan")
    files_ratio = bonsai["inputs"] / baseline["inputs"] if baseline["inputs"] else float("nan")
    coverage_diff = (100.0 * (bonsai["coverage"] - baseline["coverage"]) / baseline["coverage"]
                     if baseline["coverage"] else float("nan"))
    result = {
        "grammar": grammar, "target": target, "start": start, "bounds": list(bounds), "seed": seed,
        "node_trials": node_trials, "node_seconds": node_seconds, "modules": modules,
        "bonsai": bonsai, "reduce": baseline,
        "ratios": {"size_ratio": round(size_ratio, 3), "files_ratio": round(files_ratio, 3),
                   "coverage_diff_pct": round(coverage_diff, 2)},
        "target_warnings": dict(counts.most_common()),
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
    start = f" from {result['start']}" if result.get("start") else ""
    lines = [
        f"Bonsai vs fuzz-then-reduce: {result['grammar']}{start} -> {result['target']}",
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
    if r.get("cut"):
        lines.append(f"reduction CUT by --reduce-time {r['reduce_time_limit']:g} s: {r['reduced_inputs']} of "
                     f"{r['fuzzed_inputs']} inputs reduced to the end (the one in progress keeps its best candidate, "
                     "the rest are kept as fuzzed): the reduced corpus is partial")
    if result.get("target_warnings"):
        lines.append(f"target warnings: {format_warning_counts(result['target_warnings'])} (captured, not shown)")
    return "\n".join(lines)


def _comparisons(args: argparse.Namespace, parser: argparse.ArgumentParser) -> dict[str, Comparison]:
    """The comparisons to run: those `--targets` names, else the one --grammar/--target/--start pair."""
    if args.targets is None:
        return {"": Comparison(args.grammar or DEFAULT_GRAMMAR, args.target or DEFAULT_TARGET, args.start)}
    if args.grammar or args.target or args.start:
        parser.error("--targets chooses the grammars and targets: give it without --grammar, --target, --start")
    names = list(COMPARISONS) if args.targets == "all" else [n.strip() for n in args.targets.split(",") if n.strip()]
    unknown = [n for n in names if n not in COMPARISONS]
    if unknown or not names:
        parser.error(f"--targets: unknown {', '.join(unknown) or 'empty list'} (choose from {', '.join(COMPARISONS)} "
                     "or all)")
    return {name: COMPARISONS[name] for name in names}


def main(argv: list[str] | None = None) -> int:
    """Command line: run the comparisons and print their tables (or the JSON with --json)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grammar", help=f"grammar of the one comparison ({DEFAULT_GRAMMAR})")
    parser.add_argument("--target", metavar="MODULE:FUNCTION", help=f"its target ({DEFAULT_TARGET})")
    parser.add_argument("--start", metavar="RULE", help="its start rule (default: start)")
    parser.add_argument("--targets", metavar="NAME[,NAME...]",
                        help=f"run these comparisons instead, one after the other: {', '.join(COMPARISONS)} or all")
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--node-trials", type=int, help=f"trials per lattice node ({DEFAULT_NODE_TRIALS})")
    budget.add_argument("--node-time", help="time per lattice node, e.g. 2s")
    parser.add_argument("--bounds", default="3,3,3", help="top of the lattice (3,3,3)")
    parser.add_argument("--reduce-time", metavar="T",
                        help="wall-clock limit of each reduction, e.g. 5m: past it the reduced corpus is partial")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="output directory (default: a new temporary directory)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON instead of the table")
    args = parser.parse_args(argv)
    comparisons = _comparisons(args, parser)
    node_seconds = parse_duration(args.node_time) if args.node_time else None
    node_trials = None if node_seconds is not None else (args.node_trials or DEFAULT_NODE_TRIALS)
    reduce_seconds = parse_duration(args.reduce_time) if args.reduce_time else None
    bounds = Bounds.parse(args.bounds)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="bonsai_vs_reduce_"))
    results = {}
    for name, comparison in comparisons.items():
        progress = Progress(f"bonsai_vs_reduce {name}" if name else "bonsai_vs_reduce")
        try:
            result = run_comparison(comparison.grammar, comparison.target,
                                    bounds=(bounds.idents, bounds.items, bounds.depth), node_seconds=node_seconds,
                                    node_trials=node_trials, seed=args.seed, out=out / name if name else out,
                                    start=comparison.start, reduce_seconds=reduce_seconds, progress=progress)
        finally:
            progress.close()
        results[name] = result
        if not args.json:
            print(format_report(result) + ("\n" if len(comparisons) > 1 else ""), flush=True)
    if args.json:
        print(json.dumps(results if args.targets else results[""], indent=2), flush=True)
    print(f"(outputs in {out})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
