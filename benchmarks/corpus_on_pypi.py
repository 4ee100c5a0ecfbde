"""`mu2py corpus` on a PyPI package this project did not write: its generated tests against the package's own suite.

Downloads the package's sdist, installs it (no dependencies) into a scratch directory, takes
the sdist's tests as the package's suite, runs `mu2py corpus` with a wall-clock budget, and
prints the figures: per function inputs and mutants killed while fuzzing, then the mutation
score (`mu2py score`) of the generated tests alone, the suite alone, both together, and the
union of the first two.  Nothing is installed into the current environment.

    python benchmarks/corpus_on_pypi.py [--package inflection==0.5.1] [--time 3m] [--workers 2]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

# requirement -> (import name, test files or folders inside the sdist)
KNOWN = {
    "inflection": ("inflection", ["test_inflection.py"]),
    "python-slugify": ("slugify", ["test.py"]),
}


def run(cmd: list[str], **kwargs: object) -> None:
    print("$", " ".join(cmd), flush=True)
    subprocess.run(cmd, check=True, **kwargs)  # type: ignore[call-overload]


def prepare(requirement: str, tests: list[str], scratch: Path) -> tuple[Path, Path]:
    """The install folder (for PYTHONPATH) and the folder holding the package's own tests."""
    sdists = scratch / "sdist"
    if not any(sdists.glob("*.tar.gz")):
        run([sys.executable, "-m", "pip", "download", "--no-binary", ":all:", "--no-deps", "-q", requirement,
             "-d", str(sdists)])
    sdist = next(sdists.glob("*.tar.gz"))
    source = scratch / "src"
    if not source.exists():
        with tarfile.open(sdist) as tar:
            tar.extractall(source, filter="data")
    root = next(p for p in source.iterdir() if p.is_dir())
    site = scratch / "site"
    if not site.exists():
        run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(site), str(sdist)])
    # the suite is copied out of the source tree: next to it, its tests would import the sdist's copy
    suite = scratch / "suite"
    shutil.rmtree(suite, ignore_errors=True)
    suite.mkdir()
    for name in tests:
        src = root / name
        if src.is_dir():
            shutil.copytree(src, suite / src.name)
        else:
            shutil.copy2(src, suite / src.name)
    return site, suite


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--package", default="inflection==0.5.1", help="a pinned requirement (default %(default)s)")
    parser.add_argument("--import-name", help="the module to run `mu2py corpus` on (known packages: automatic)")
    parser.add_argument("--tests", nargs="+", help="test files or folders inside the sdist (known packages: automatic)")
    parser.add_argument("--time", default="3m", help="fuzzing budget for all functions (default %(default)s)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--scratch", default="/tmp/mu2py-corpus-pypi", help="scratch folder (default %(default)s)")
    args = parser.parse_args()
    name = args.package.split("==")[0].split(">")[0].split("<")[0].strip()
    import_name, tests = KNOWN.get(name, (None, None))
    import_name, tests = args.import_name or import_name, args.tests or tests
    if not import_name or not tests:
        parser.error(f"{name} is not a known package: give --import-name and --tests")
    scratch = Path(args.scratch).resolve()
    scratch.mkdir(parents=True, exist_ok=True)
    site, suite = prepare(args.package, tests, scratch)
    out = scratch / "out"
    shutil.rmtree(out, ignore_errors=True)  # a fresh campaign: an existing output would be resumed
    cmd = [sys.executable, "-m", "mu2py", "corpus", import_name, "--time", args.time, "--seed", str(args.seed),
           "--out", str(out), "--suite", str(suite), "--workers", str(args.workers)]
    env = dict(os.environ, PYTHONPATH=str(site), COLUMNS="140")
    start = time.perf_counter()
    run(cmd, cwd=scratch, env=env)
    seconds = time.perf_counter() - start
    report = json.loads((out / "report.json").read_text())
    functions = [f for f in report["functions"] if "qualname" in f]
    print(f"\n== {args.package}: `mu2py corpus {import_name} --time {args.time} --seed {args.seed} "
          f"--workers {args.workers} --suite <sdist tests>` in {seconds:.0f} s ==")
    print(f"functions fuzzed: {len(functions)}; left out: "
          f"{[f['function'] for f in report['functions'] if f.get('skipped')] or 'none'}")
    print(f"saved inputs: {sum(f['inputs'] for f in functions)} (+{sum(f['failures'] for f in functions)} failures), "
          f"test cases: {sum(f['cases'] for f in functions)}; killed while fuzzing, own mutants: "
          f"{sum(f['own_killed'] for f in functions)}/{sum(f['own_total'] for f in functions)}")
    for s in report["scores"]:
        if "error" in s:
            print(f"{s['tests']:>10}: could not score: {s['error']}")
            continue
        print(f"{s['tests']:>10}: {s['detected']}/{s['total']} mutants detected ({s['killed']} killed, "
              f"{s['timeout']} timed out; score {100 * (s['score'] or 0):.1f}%) by {s['test_count']} tests")
    union = report.get("union")
    if union:
        print(f"{'union':>10}: {union['detected']}/{union['total']} ({union['only_generated']} only by the "
              f"generated tests, {union['only_suite']} only by the suite)")


if __name__ == "__main__":
    main()
