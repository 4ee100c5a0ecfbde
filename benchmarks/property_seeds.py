"""The suite's property tests (Hypothesis `@given`) under many seeds, not only CI's derandomized one.

    python benchmarks/property_seeds.py [--seeds 20] [--first 0] [PYTEST_ARGS...]

Collects the suite (or PYTEST_ARGS), keeps the tests Hypothesis runs, and runs them once per seed with
`--hypothesis-seed=N`, N from --first on; prints per seed the count passed and failed, then every
failing test with the seeds it failed under.  Exit status 1 when any failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# a plugin given to the collecting run: prints the node id of each test Hypothesis drives
_PLUGIN = '''
def pytest_collection_modifyitems(session, config, items):
    for item in items:
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            print("PROPERTY", item.nodeid)
'''


def property_tests(args: list[str]) -> list[str]:
    """The node ids of the `@given` tests among those pytest collects with `args`."""
    with tempfile.TemporaryDirectory() as folder:
        Path(folder, "mu2py_property_ids.py").write_text(_PLUGIN)
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "mu2py_property_ids",
                              *args], cwd=ROOT, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                 p for p in (folder, os.environ.get("PYTHONPATH")) if p)})
    return [line.split(" ", 1)[1] for line in out.stdout.splitlines() if line.startswith("PROPERTY ")]


def main() -> int:
    """Run the property tests under each seed; 1 if any failed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument("pytest_args", nargs="*")
    options = parser.parse_args()
    ids = property_tests(options.pytest_args)
    print(f"{len(ids)} property tests", flush=True)
    failures: dict[str, list[int]] = {}
    for seed in range(options.first, options.first + options.seeds):
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-W",
                               "ignore::DeprecationWarning", f"--hypothesis-seed={seed}", "-rf", *ids],
                              cwd=ROOT, capture_output=True, text=True)
        failed = [line.split(" ", 2)[1] for line in proc.stdout.splitlines() if line.startswith("FAILED ")]
        for nodeid in failed:
            failures.setdefault(nodeid.split(" - ")[0], []).append(seed)
        summary = proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else proc.stderr.strip()[-200:]
        print(f"seed {seed}: {summary}", flush=True)
    for nodeid, seeds in sorted(failures.items()):
        print(f"FAILED {nodeid} under seeds {seeds}")
    print(f"{len(failures)} property tests failed under some seed of {options.seeds}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
