"""`mu2py kill` on PyPI packages this project never used: score before/after, tests written, survivors killed.

For each package the pinned sdist is downloaded (no dependencies) into a scratch folder and
laid out as a project (the package and the sdist's own tests); `mu2py kill` runs there with
a fuzzing budget; the written tests are run once more with plain pytest on the original.
With `--pynguin BIN` (Pynguin 0.48 in its own virtual environment), Pynguin generates tests
for the same module with the same search time, and both test sets are scored by
`mu2py score`, alone and added to the suite, on the module's function-body mutants.

    python benchmarks/kill_survivors.py --package roman --time 30s --pynguin /tmp/pynguin-venv/bin/pynguin
    python benchmarks/kill_survivors.py --package webcolors --time 30s --pynguin /tmp/pynguin-venv/bin/pynguin
    python benchmarks/kill_survivors.py --package webcolors_normalization --time 30s --pynguin BIN
    python benchmarks/kill_survivors.py --package more_itertools --time 60s
    python benchmarks/kill_survivors.py --package jdcal --time 60s --pynguin BIN
    python benchmarks/kill_survivors.py --package hashids --time 60s --pynguin BIN
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Package:
    """A pinned sdist: what to copy into the project, what to mutate (`paths`), the tests, the module for Pynguin."""

    requirement: str
    copy: tuple[tuple[str, str], ...]  # (path in the sdist, path in the project)
    paths: str
    tests: str
    module: str


PACKAGES = {
    "roman": Package("roman==5.2", (("src/roman", "roman"), ("src/tests.py", "test_roman.py")),
                     "roman", "test_roman.py", "roman"),
    "more_itertools": Package("more-itertools==11.2.1", (("more_itertools", "more_itertools"),
                                                         ("tests/test_recipes.py", "tests/test_recipes.py")),
                              "more_itertools/recipes.py", "tests/test_recipes.py", "more_itertools.recipes"),
    "webcolors": Package("webcolors==25.10.0", (("src/webcolors", "webcolors"),
                                                ("tests/test_html5.py", "tests/test_html5.py")),
                         "webcolors/_html5.py", "tests/test_html5.py", "webcolors._html5"),
    # the same sdist, a module Pynguin 0.48 completes on (it segfaults in webcolors._html5 at seed 0)
    "webcolors_normalization": Package("webcolors==25.10.0", (("src/webcolors", "webcolors"),
                                                              ("tests/test_normalization.py",
                                                               "tests/test_normalization.py")),
                                       "webcolors/_normalization.py", "tests/test_normalization.py",
                                       "webcolors._normalization"),
    # no type hint anywhere in the module: six functions of ints and floats; its suite's round-trip test draws
    # 1000 dates from the unseeded `random`, so the suite's own score moves by a mutant or two between runs
    "jdcal": Package("jdcal==1.4.1", (("jdcal.py", "jdcal.py"), ("test_jdcal.py", "test_jdcal.py")),
                     "jdcal.py", "test_jdcal.py", "jdcal"),
    # the main class, Hashids(salt='', min_length=0, alphabet=ALPHABET), has unhinted constructor arguments
    # and the suite builds it in nearly every test
    "hashids": Package("hashids==1.3.1", (("hashids.py", "hashids.py"), ("test/test_hashids.py",
                                                                         "test/test_hashids.py")),
                       "hashids.py", "test/test_hashids.py", "hashids"),
}


def _env(*path: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHONPATH"] = os.pathsep.join([*path, str(ROOT)])
    return env


def project(pkg: Package, scratch: Path) -> Path:
    """The sdist unpacked and laid out as a project under `scratch/project`."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    pkg.requirement, "-d", str(scratch)], check=True, capture_output=True)
    [archive] = scratch.glob("*.tar.gz")
    with tarfile.open(archive) as tar:
        tar.extractall(scratch, filter="data")
    [unpacked] = [p for p in scratch.iterdir() if p.is_dir()]
    root = scratch / "project"
    for source, target in pkg.copy:
        (root / target).parent.mkdir(parents=True, exist_ok=True)
        copy = shutil.copytree if (unpacked / source).is_dir() else shutil.copy
        copy(unpacked / source, root / target)
    return root


def failing(root: Path, tests: list[str]) -> list[str]:
    """Node ids of the tests that fail when `tests` run together on the original (Pynguin's `parse_args()` test
    reads pytest's own argv): they are deselected, as `score` requires a suite passing on the original."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rf", "-p", "no:cacheprovider", *tests], cwd=root,
                          capture_output=True, text=True, env=_env(str(root)))
    return [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("FAILED ")]


def score(root: Path, paths: str, tests: list[str], workers: int) -> dict[str, Any]:
    """`mu2py score --json` of `tests` on `paths`: detected/total over all mutants and function-body mutants."""
    deselect = [arg for node in failing(root, tests) for arg in ("--deselect", node)]
    extra = ["--pytest-args", *deselect] if deselect else []
    proc = subprocess.run([sys.executable, "-m", "mu2py", "score", "--paths", paths, "--tests", *tests, "--json",
                           "--no-cache", "--workers", str(workers), *extra], cwd=root,
                          capture_output=True, text=True, env=_env(str(root)))
    if proc.returncode != 0:
        return {"error": proc.stderr.strip()[-300:]}
    from mu2py.survivors.kill import score_figures

    return score_figures(json.loads(proc.stdout))


def pynguin(bin_path: str, root: Path, module: str, seconds: int, seed: int) -> tuple[Path, str | None]:
    """Pynguin's tests for `module` (search time `seconds`), in `root/pynguin_tests`, and why there are none
    if Pynguin wrote no test file (its exit code and last log line)."""
    out = root / "pynguin_tests"
    proc = subprocess.run([bin_path, "--project-path", str(root), "--module-name", module, "--output-path", str(out),
                           "--maximum-search-time", str(seconds), "--seed", str(seed)], cwd=root,
                          capture_output=True, text=True, env=dict(_env(str(root)), PYNGUIN_DANGER_AWARE="1"))
    written = list(out.glob("test_*.py"))
    for path in written:  # a basename of the suite's own (test_roman.py) would clash in one session
        path.rename(path.with_name("test_pynguin_" + path.name.removeprefix("test_")))
    if written:
        return out, None
    log = [line.strip() for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    return out, f"Pynguin exited {proc.returncode} without writing tests ({log[-1] if log else 'no output'})"


def _pct(figure: dict[str, Any]) -> str:
    if "error" in figure:
        return f"error: {figure['error']}"
    return f"{100 * (figure['score'] or 0):.1f}% ({figure['detected']}/{figure['total']})"


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from mu2py.cli.argtypes import parse_duration

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--package", choices=sorted(PACKAGES), default="roman")
    parser.add_argument("--time", default="30s", help="fuzzing budget of `mu2py kill` (and Pynguin's search time)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pynguin", metavar="BIN", help="a pynguin 0.48 executable (its own virtual environment)")
    parser.add_argument("--keep", metavar="DIR", help="work in DIR and keep it (default: a temporary folder)")
    args = parser.parse_args()
    pkg = PACKAGES[args.package]
    seconds = int(parse_duration(args.time))
    scratch = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix=f"kill-{args.package}-"))
    scratch.mkdir(parents=True, exist_ok=True)
    try:
        root = project(pkg, scratch)
        command = ["mu2py", "kill", "--paths", pkg.paths, "--tests", pkg.tests, "--time", args.time,
                   "--seed", str(args.seed), "--workers", str(args.workers), "--out", "out"]
        print(f"== {pkg.requirement}: `{' '.join(command)}`", flush=True)
        start = time.monotonic()
        proc = subprocess.run([sys.executable, "-m", *command], cwd=root, capture_output=True, text=True,
                              env=_env(str(root)))
        kill_wall = time.monotonic() - start
        print("\n".join(line for line in proc.stdout.splitlines() if not line.startswith("  ")), flush=True)
        print(f"mu2py kill wall time: {kill_wall:.1f}s", flush=True)
        if proc.returncode != 0:
            sys.exit(f"mu2py kill exited {proc.returncode}: {proc.stderr.strip()[-500:]}")
        report = json.loads((root / "out" / "report.json").read_text())
        written = sum(len(m["tests"]) for m in report["tests"].values())
        check = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "out/tests"],
                               cwd=root, capture_output=True, text=True, env=_env(str(root)))
        print(f"\ntests written: {written}; plain pytest on the original: "
              f"{check.stdout.strip().splitlines()[-1] if check.stdout.strip() else check.returncode}")
        print(f"survivors killed by the written tests (verified): {len(report['killed_by_tests'])}")
        for module in report["tests"].values():
            for name, ids in module["tests"].items():
                print(f"  {name}: kills {len(ids)}")
        before, after = report["scores"]["before"], report["scores"]["after"]
        print(f"score before: {_pct(before['all'])}, function bodies {_pct(before['function_body'])}")
        print(f"score after:  {_pct(after['all'])}, function bodies {_pct(after['function_body'])}")
        if args.pynguin:
            print(f"\n== Pynguin 0.48 on {pkg.module}, --maximum-search-time {seconds} --seed {args.seed}", flush=True)
            # paths relative to the project: pytest's rootdir, hence the node ids `failing` deselects, are then
            # the same in plain pytest and in `score`'s workers (an absolute path widens the rootdir to /tmp there)
            start = time.monotonic()
            generated, failure = pynguin(args.pynguin, root, pkg.module, seconds, args.seed)
            print(f"Pynguin wall time: {time.monotonic() - start:.1f}s", flush=True)
            out = str(generated.relative_to(root))
            ours = "out/tests"
            rows = [("suite alone", [pkg.tests]), ("mu2py kill tests alone", [ours]),
                    ("Pynguin tests alone", [out]), ("suite + mu2py kill tests", [pkg.tests, ours]),
                    ("suite + Pynguin tests", [pkg.tests, out])]
            for label, tests in rows:
                if failure and out in tests:
                    print(f"{label:28} function bodies n/a: {failure}", flush=True)
                    continue
                figure = score(root, pkg.paths, tests, args.workers)
                body = figure.get("function_body", figure)
                print(f"{label:28} function bodies {_pct(body)}", flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
