"""The papers' experiment on the ChocoPy type checker: Mu2 vs coverage-only fuzzing, then Bonsai vs fuzz-then-reduce.

(a) Both fuzzers run `targets.chocopy.driver:typecheck` for the same trials and seed, with
    the bonsai bounded generator over grammars/chocopy.lark at --bounds as input source (the
    driver declares no strategy of its own). Each corpus is then judged by one independent
    mutation analysis (execution + infection pruning over all its inputs, as `mu2py mutate`
    does) and one independent coverage replay, so both variants are measured alike.
(b) Bonsai lattice vs fuzz-then-reduce, from benchmarks/bonsai_vs_reduce.py when present.
(c) PNG plots under --out: judged kills over trials, final kills, input size distributions.

Usage: python benchmarks/chocopy_experiment.py [--trials 200] [--seed 0] [--repeat 1] [--bounds 3,3,3]
       [--mutate checker|all] [--node-trials 10] [--skip-bonsai] [--out DIR]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import signal
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
# run as a script, sys.path[0] is benchmarks/: put the checkout first so that `grammars`
# (a top-level package the ChocoPy parser imports) resolves even in an older editable install
sys.path.insert(0, str(ROOT))

from bonsai.bounds import Bounds  # noqa: E402
from bonsai.generator import BoundedGenerator  # noqa: E402
from bonsai.grammar import load_grammar  # noqa: E402
from bonsai.target import function_target  # noqa: E402
from mu2py.engine.runs import Status, Timeout, run  # noqa: E402
from mu2py.feedback.analysis import Analysis  # noqa: E402
from mu2py.fuzz.config import FuzzConfig  # noqa: E402
from mu2py.fuzz.fuzzer import Fuzzer  # noqa: E402
from mu2py.mutants.catalog import Program  # noqa: E402
from mu2py.target.modules import Target  # noqa: E402

GRAMMAR = str(ROOT / "grammars" / "chocopy.lark")
TARGET = "targets.chocopy.driver:typecheck"
VARIANTS = (("Mu2", "mutation"), ("coverage-only", "coverage"))
# the semantic analysis (the papers' ChocoPy target); `--mutate all` adds the parser and the AST
CHECKER = ("targets.chocopy.typecheck", "targets.chocopy.declarations", "targets.chocopy.scopes",
           "targets.chocopy.types")


T = TypeVar("T")
ESCAPED: list[str] = []


def shielded(what: str, step: Callable[[], T]) -> T:
    """Run `step`; when a mutant's timeout escapes mu2py's executor, clear the alarm and run it again.

    mu2py.engine.runs re-arms SIGALRM 50 ms after raising a Timeout; if that alarm fires after the
    Timeout was caught but before the timer is cleared, it leaves `run` and would end the campaign.
    Repeating the step is safe: the fuzzer continues its budget, and an analysis keeps its kills.
    """
    for _ in range(10):
        try:
            return step()
        except Timeout:
            signal.setitimer(signal.ITIMER_REAL, 0)
            ESCAPED.append(what)
    return step()


def size(text: str) -> int:
    """Input size as the Bonsai paper counts it: characters other than whitespace."""
    return len("".join(text.split()))


def semantically_valid(program: Program, text: str) -> bool:
    """The original checker accepts `text` with an empty error list (a syntax error is invalid)."""
    result = run(program.original(), text, None)
    return result.status is Status.OK and not result.output["errors"]["errors"]


def judged_coverage(program: Program, texts: list[str]) -> tuple[int, int]:
    """Lines and arcs (branches) of the modules under test that `texts` reach on the original.

    Measured with coverage.py, independently of the fuzzers' own (slipcover) feedback, so
    that both corpora are counted alike; module-level code run at import is not counted.
    """
    import coverage

    cov = coverage.Coverage(data_file=None, branch=True, config_file=False,
                            include=[m.file for m in program.target.modules])
    cov.start()
    try:
        for text in texts:
            run(program.original(), text, None)
    finally:
        cov.stop()
    data = cov.get_data()
    files = data.measured_files()
    return sum(len(data.lines(f) or ()) for f in files), sum(len(data.arcs(f) or ()) for f in files)


def fuzz_variant(label: str, guidance: str, seed: int, target: Target, program: Program,
                 generator: BoundedGenerator, args: argparse.Namespace) -> dict[str, Any]:
    """One campaign, then its corpus judged by mutation analysis, coverage replay and the checker."""
    out = args.out / f"seed_{seed}" / guidance
    config = FuzzConfig(trials=args.trials, seed=seed, guidance=guidance, out=out, plot_every=0.5)
    start = time.perf_counter()
    fuzzer = Fuzzer(target, config, source=generator, program=program)
    result = shielded(f"{label} seed {seed} fuzzing", fuzzer.run)
    fuzz_seconds = time.perf_counter() - start
    entries = sorted(result.corpus, key=lambda e: (e.trial, e.name))
    texts = [generator.render(e.value) for e in entries]
    start = time.perf_counter()
    judge = Analysis(program)
    curve: list[tuple[int, int]] = [(0, 0)]
    for entry in entries:
        shielded(f"{label} seed {seed} judging", lambda e=entry: judge.analyse(e.value, e.name))
        curve.append((entry.trial, len(judge.kills)))
    curve.append((result.stats.trials, len(judge.kills)))
    judge_seconds = time.perf_counter() - start
    sizes = [size(t) for t in texts]
    valid = sum(semantically_valid(program, t) for t in texts)
    return {
        "label": label, "guidance": guidance, "seed": seed, "out": out, "inputs": len(texts), "sizes": sizes,
        "mean_size": statistics.mean(sizes) if sizes else 0.0,
        "validity": valid / len(texts) if texts else 0.0,
        "coverage": judged_coverage(program, texts),
        "killed": len(judge.kills), "mutants": len(program.mutants), "curve": curve,
        "fuzz_seconds": fuzz_seconds, "judge_seconds": judge_seconds,
        "in_run_killed": result.report["summary"]["killed"] if result.report else None,
    }


def print_table(rows: list[dict[str, Any]]) -> None:
    """The figures of every campaign, one line each, then per-variant totals when there are several seeds."""
    head = (f"{'variant':<14}{'seed':>5}{'inputs':>7}{'mean size':>10}{'sem. valid':>11}{'lines':>7}{'arcs':>6}"
            f"{'killed':>20}{'fuzz s':>8}{'judge s':>8}")
    print(head)
    print("-" * len(head))
    for r in rows:
        killed = f"{r['killed']}/{r['mutants']} ({r['killed'] / r['mutants']:.1%})"
        lines, arcs = r["coverage"]
        print(f"{r['label']:<14}{r['seed']:>5}{r['inputs']:>7}{r['mean_size']:>10.1f}{r['validity']:>11.1%}"
              f"{lines:>7}{arcs:>6}{killed:>20}{r['fuzz_seconds']:>8.1f}{r['judge_seconds']:>8.1f}")


def summarize(rows: list[dict[str, Any]]) -> None:
    """Totals over seeds per variant and the Mu2 / coverage-only ratios."""
    total: dict[str, dict[str, float]] = {}
    for label, _ in VARIANTS:
        mine = [r for r in rows if r["label"] == label]
        sizes = [x for r in mine for x in r["sizes"]]
        total[label] = {
            "killed": sum(r["killed"] for r in mine), "arcs": sum(r["coverage"][1] for r in mine),
            "inputs": sum(r["inputs"] for r in mine), "mean_size": statistics.mean(sizes) if sizes else 0.0,
            "validity": statistics.mean(r["validity"] for r in mine),
        }
        if len(mine) > 1:
            t = total[label]
            print(f"{label} over {len(mine)} seeds: {t['inputs']} inputs, mean size {t['mean_size']:.1f}, "
                  f"semantic validity {t['validity']:.1%}, arcs {t['arcs']}, killed {t['killed']}")
    mu2, cov = total["Mu2"], total["coverage-only"]
    print(f"Mu2 / coverage-only: kills {mu2['killed'] / max(cov['killed'], 1):.3f}x, "
          f"arcs {mu2['arcs'] / max(cov['arcs'], 1):.3f}x, inputs {mu2['inputs']} vs {cov['inputs']}, "
          f"mean size {mu2['mean_size']:.1f} vs {cov['mean_size']:.1f}")


def read_plot(out: Path) -> list[tuple[int, int]]:
    """(trials, killed) rows of a campaign's plot_data.csv (kills are counted only under mutation guidance)."""
    path = out / "plot_data.csv"
    if not path.is_file():
        return []
    with path.open() as f:
        return [(int(r["trials"]), int(r["killed"])) for r in csv.DictReader(f)]


def plot(rows: list[dict[str, Any]], comparison: dict[str, Any] | None, out: Path) -> list[Path]:
    """Write the PNG figures; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    paths = []
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [2, 1]})
    colors = {"Mu2": "tab:red", "coverage-only": "tab:blue"}
    labelled: set[str] = set()
    for r in rows:
        color = colors[r["label"]]
        xs, ys = zip(*r["curve"], strict=True)
        first = r["label"] not in labelled
        labelled.add(r["label"])
        ax.step(xs, ys, where="post", color=color, label=f"{r['label']} (judged)" if first else None)
        in_run = read_plot(r["out"])
        if r["guidance"] == "mutation" and in_run:
            ax.plot(*zip(*in_run, strict=True), color=color, linestyle=":",
                    label=f"{r['label']} (counted in run)" if first else None)
    ax.set_xlabel("trials")
    ax.set_ylabel("mutants killed")
    ax.set_title("Mutants killed by the corpus saved up to each trial")
    ax.legend()
    for i, (label, _) in enumerate(VARIANTS):
        kills = [r["killed"] for r in rows if r["label"] == label]
        mean = statistics.mean(kills)
        bx.bar(i, mean, color=colors[label])
        bx.scatter([i] * len(kills), kills, color="black", s=10, zorder=3)
        bx.text(i, max(kills), f"mean {mean:.0f}", ha="center", va="bottom")
    bx.set_xticks(range(len(VARIANTS)), [label for label, _ in VARIANTS])
    bx.set_title(f"Final judged kills (of {rows[0]['mutants']})")
    fig.tight_layout()
    paths.append(out / "kills.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)

    series: dict[str, list[int]] = {}
    for r in rows:
        series.setdefault(r["label"], []).extend(r["sizes"])
    for name, label in (("bonsai", "Bonsai lattice"), ("reduce", "fuzz-then-reduce")):
        part = (comparison or {}).get(name)
        if isinstance(part, dict) and isinstance(part.get("sizes"), list) and part["sizes"]:
            series[label] = part["sizes"]
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.boxplot(list(series.values()), showmeans=True)
    ax.set_xticks(range(1, len(series) + 1), list(series))
    ax.set_ylabel("input size (non-whitespace characters)")
    ax.set_title("Corpus input sizes")
    fig.tight_layout()
    paths.append(out / "sizes.png")
    fig.savefig(paths[-1], dpi=110)
    plt.close(fig)
    return paths


def bonsai_vs_reduce(args: argparse.Namespace, program: Program) -> dict[str, Any] | None:
    """Part (b): benchmarks/bonsai_vs_reduce.py's comparison (if that file exists), plus semantic validity."""
    path = ROOT / "benchmarks" / "bonsai_vs_reduce.py"
    if not path.is_file():
        print(f"(b) skipped: {path.relative_to(ROOT)} does not exist yet")
        return None
    spec = importlib.util.spec_from_file_location("bonsai_vs_reduce", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    bounds = Bounds.parse(args.bounds)
    out = args.out / "bonsai_vs_reduce"
    try:
        result: dict[str, Any] = module.run_comparison(
            GRAMMAR, TARGET, bounds=(bounds.idents, bounds.items, bounds.depth), node_trials=args.node_trials,
            seed=args.seed, out=out,
        )
    except Exception as exc:  # noqa: BLE001 - another benchmark's failure must not lose (a) and (c)
        print(f"(b) failed: {type(exc).__name__}: {exc}")
        return None
    if hasattr(module, "format_report"):
        print(module.format_report(result))
    else:
        for name in ("bonsai", "reduce", "ratios"):
            print(f"  {name:<7} {result.get(name)}")
    # the paper's third figure, semantic validity, from the corpora the comparison wrote
    for name, folder in (("bonsai", out / "bonsai" / "final"), ("reduce", out / "reduce" / "reduced")):
        texts = [p.read_text() for p in sorted(folder.glob("*.txt"))]
        part = result.get(name)
        if not texts or not isinstance(part, dict):
            continue
        part["sizes"] = [size(t) for t in texts]
        part["validity"] = sum(semantically_valid(program, t) for t in texts) / len(texts)
    valid = {n: result[n].get("validity") for n in ("bonsai", "reduce") if isinstance(result.get(n), dict)}
    if all(v is not None for v in valid.values()) and len(valid) == 2:
        print(f"semantic validity: Bonsai {valid['bonsai']:.1%}, fuzz-then-reduce {valid['reduce']:.1%} "
              f"({100 * (valid['bonsai'] - valid['reduce']):+.1f} points; paper: +21% on ChocoPy)")
    return result


def main() -> None:
    """Run (a), (b) and (c) and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=200, help="trials per fuzzer in (a) (200)")
    parser.add_argument("--seed", type=int, default=0, help="first seed (0)")
    parser.add_argument("--repeat", type=int, default=1, help="campaigns per variant in (a), seeds seed.. (1)")
    parser.add_argument("--bounds", default="3,3,3", help="generator bounds m,n,d (3,3,3)")
    parser.add_argument("--node-trials", type=int, default=10, help="trials per lattice node in (b) (10)")
    parser.add_argument("--mutate", choices=("checker", "all"), default="checker",
                        help="modules to mutate: the type checker's (default) or the whole front end")
    parser.add_argument("--skip-bonsai", action="store_true", help="run (a) and (c) only")
    parser.add_argument("--out", type=Path, default=None,
                        help="output directory (default: a fresh one under /tmp); an existing campaign resumes")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    args.out = args.out or Path(tempfile.mkdtemp(prefix="chocopy_experiment_"))
    args.out.mkdir(parents=True, exist_ok=True)

    generator = BoundedGenerator(load_grammar(GRAMMAR), Bounds.parse(args.bounds))
    target = function_target(TARGET, generator, prefixes=CHECKER if args.mutate == "checker" else None)
    program = Program(target)
    print(f"ChocoPy type checker {TARGET}: {len(program.mutants)} mutants in {len(target.modules)} modules "
          f"({args.mutate}); "
          f"inputs from bonsai ({args.bounds}) over grammars/chocopy.lark; {args.trials} trials per campaign")
    print("(a) Mu2 vs coverage-only fuzzing, each corpus judged by one mutation analysis "
          "(execution+infection pruning) and one coverage replay")
    rows = [fuzz_variant(label, guidance, seed, target, program, generator, args)
            for seed in range(args.seed, args.seed + args.repeat) for label, guidance in VARIANTS]
    print_table(rows)
    summarize(rows)
    if ESCAPED:
        print(f"note: {len(ESCAPED)} mutant timeout(s) escaped mu2py's executor and the step was repeated: "
              + ", ".join(sorted(set(ESCAPED))))

    comparison = None
    if args.skip_bonsai:
        print("(b) skipped: --skip-bonsai")
    else:
        print(f"(b) Bonsai lattice vs fuzz-then-reduce at {args.bounds}, {args.node_trials} trials per node")
        comparison = bonsai_vs_reduce(args, program)
    paths = plot(rows, comparison, args.out)
    print("(c) plots: " + ", ".join(str(p) for p in paths))


if __name__ == "__main__":
    main()
