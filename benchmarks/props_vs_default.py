"""`mu2py props` on a package's own @given tests: kills by the default run vs mutation- vs coverage-guided fuzzing.

Per property, at the same fuzzing time per test and the same seed: mutants reached, killed
by the default Hypothesis run (100 examples, `--hypothesis-seed`), killed after mutation-guided
fuzzing, killed by the corpus of coverage-guided fuzzing (lines, targets, events as feedback;
its kept inputs judged on the mutants after the time is up), and the survivors (weak spots).

Two packages, neither tuned for: `--package yarl` (its pure-Python quoting, `yarl==1.25.1`
from PyPI's sdist, which ships the tests; its dependencies multidict and propcache are in
the `bench` extra) and `--package bidict` (the tests come from its repository, as the sdist
and wheel ship none: `--src` is a checkout, or the mirror `fetch github:jab/bidict` leaves,
exported with `git archive`).

    python benchmarks/props_vs_default.py --package yarl --time 20s --workers 2
    python benchmarks/props_vs_default.py --package bidict --time 20s --workers 2
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from mu2py.cli.argtypes import parse_duration
from mu2py.props.run import PropsConfig, props, spec_for

MIRROR = Path("/work/.mirror/jab+bidict/repo")
TESTS = {
    "bidict": [f"tests/test_bidict.py::{name}" for name in (
        "test_inverted", "test_views_agree_with_iteration_order", "test_frozenbidicts_hashable",
        "test_orderedbidict_nodes_consistent", "test_equals_order_sensitive")],
    "yarl": ["tests/test_quoting_hypothesis.py"],
}
YARL = "yarl==1.25.1"


def yarl_project(into: Path) -> Path:
    """yarl's sdist (package and tests) in `into`, mutating its pure-Python quoting and query parsing."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
                    "--dest", str(into / "sdist"), YARL], check=True)
    [archive] = (into / "sdist").glob("yarl-*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(into / "sdist", filter="data")
    [src] = (into / "sdist").glob("yarl-*/")
    shutil.copytree(src / "yarl", into / "yarl", ignore=shutil.ignore_patterns("*.pyx", "*.c", "*.so"))
    shutil.copytree(src / "tests", into / "tests")
    (into / "pyproject.toml").write_text('[tool.mu2py]\npaths = ["yarl/_quoting_py.py", "yarl/_query.py"]\n\n'
                                         '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    os.environ["YARL_NO_EXTENSIONS"] = "1"  # the pure-Python quoters (the workers inherit it)
    return into


def project(src: Path | None, into: Path) -> Path:
    """bidict's package and tests in `into`, with a pyproject that mutates `bidict` and runs `tests/`."""
    if src is not None:
        shutil.copytree(src / "bidict", into / "bidict")
        shutil.copytree(src / "tests", into / "tests")
    else:
        archive = subprocess.run(["git", "--git-dir", str(MIRROR), "archive", "HEAD", "bidict", "tests"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    # bidict's own pytest options need xdist and its doc files; the mutation run needs neither
    (into / "pyproject.toml").write_text('[tool.mu2py]\npackage = "bidict"\n\n'
                                         '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n')
    return into


def main() -> None:
    """Run both campaigns and print one line per property, then the totals."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", choices=sorted(TESTS), default="yarl")
    parser.add_argument("--src", type=Path, help="a bidict checkout (default: the fetched mirror)")
    parser.add_argument("--time", default="20s", help="fuzzing time per property and guidance")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tests", nargs="+", help="node ids or files (default: the package's @given tests)")
    parser.add_argument("--skip-default", action="store_true",
                        help="no default runs (fast): fuzzing's kills alone, mutation- vs coverage-guided")
    parser.add_argument("--out", type=Path, help="write each run's JSON report here")
    args = parser.parse_args()
    args.tests = args.tests or TESTS[args.package]
    seconds = parse_duration(args.time)
    with tempfile.TemporaryDirectory(prefix=f"props-{args.package}-") as tmp:
        root = yarl_project(Path(tmp)) if args.package == "yarl" else project(args.src, Path(tmp))
        spec = spec_for(root, None, None, args.tests)
        runs = {}
        for guidance in ("mutation", "coverage"):
            start = time.perf_counter()
            config = PropsConfig(seconds=seconds, seed=args.seed, guidance=guidance, workers=args.workers,
                                 save=False, default_runs=guidance == "mutation" and not args.skip_default)
            runs[guidance] = props(spec, config, args.tests)
            print(f"{guidance}-guided run: {time.perf_counter() - start:.0f} s wall (default runs included: "
                  f"{config.default_runs})", flush=True)
            if args.out is not None:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"{guidance}.json").write_text(json.dumps(runs[guidance], indent=1))
    mutation = {e["test"]: e for e in runs["mutation"]["properties"]}
    coverage = {e["test"]: e for e in runs["coverage"]["properties"]}
    print(f"\n{args.package} @given tests, {args.time} of fuzzing per property and guidance, seed {args.seed}")
    head = f"{'property':<44} {'reached':>7} {'default':>7} {'mu2':>5} {'cov':>5} {'weak: survivors':>15}"
    print(head)
    totals = [0, 0, 0, 0]
    for test, m in mutation.items():
        c = coverage[test]
        # coverage-guided kills: its own corpus's kills plus the default run's, as for the mutation-guided run
        cov_killed = len({k["mutant"] for k in c.get("new_kills", ())} | set(m.get("default_kills", ())))
        reached = m["reached"]
        print(f"{test.split('::')[-1]:<44} {reached:>7} {m['killed_default']:>7} {m['killed']:>5} {cov_killed:>5} "
              f"{len(m['survivors']):>15}")
        for k, v in enumerate((reached, m["killed_default"], m["killed"], cov_killed)):
            totals[k] += v
    print(f"{'total':<44} {totals[0]:>7} {totals[1]:>7} {totals[2]:>5} {totals[3]:>5}")
    for test, m in mutation.items():
        new = [k["mutant"] for k in m["new_kills"]]
        if new:
            what = "fuzzing alone killed" if args.skip_default else "beyond the default run, fuzzing killed"
            print(f"{test.split('::')[-1]}: {what} {len(new)} mutants, e.g. "
                  f"{', '.join(new[:3])}; examples: {'; '.join(m['examples'][:2])}")
    weak = runs["mutation"]["summary"]["weak"]
    print(f"weak properties (reach mutants they never kill): {', '.join(t.split('::')[-1] for t in weak)}")
    for bug in runs["mutation"]["bugs"]:
        print(f"bug: {bug['test']}: {bug.get('error') or bug.get('exception')}")


if __name__ == "__main__":
    main()
