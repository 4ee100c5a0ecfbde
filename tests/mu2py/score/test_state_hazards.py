"""A suite whose tests and mutants leave interpreter-wide state behind is scored as plain pytest scores it.

tests/data/score_state: a test turns on gc.DEBUG_SAVEALL and never turns it off, one registers an exit handler
writing on descriptor 1, an order-dependent pair (`test_handle` needs what `test_register` registered), mutants
that lower the recursion limit and raise, raise KeyboardInterrupt, or leave 100 descriptors open per call (under a
limit of 256, macOS's default), and mutants of a function the module calls while it is imported (only its module's
body re-run shows them), a module body a mutant makes raise (every test module fails to import) or whose exception
the importer catches, a module global a test rebinds and leaves, a function defined under a version condition no
interpreter meets. `score --json` runs as a user runs it; each mutant's status must equal plain pytest's on the
mutated file in a fresh copy of the project, under the same descriptor limit.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_state"
DESCRIPTORS = 256
PLAIN_TIMEOUT = 120.0  # no mutant here hangs: a plain run is seconds, on a loaded machine tens of them

# the sample scored and refereed by plain pytest (about 45 s) once, on 3.13: CI runs the 3.11 and 3.13 suites side by
# side (the 3.11 suite runs the engine's hostile-state tests, tests/mu2py/engine)
pytestmark = pytest.mark.skipif(sys.version_info < (3, 13), reason="the hazard sample scored once, on 3.13: CI's time")


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (DESCRIPTORS, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def _env(root: Path) -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1")


def _plain(project: Path, module: str, source: str, where: Path) -> str:
    """Plain pytest on a fresh copy of `project` with `module`'s file replaced by `source`: its status."""
    shutil.copytree(project, where)
    (where / Path(*module.split("."))).with_suffix(".py").write_text(source)
    try:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                               "-p", "no:hypothesispytest", "tests"],
                              cwd=where, env=_env(where), capture_output=True, text=True, timeout=PLAIN_TIMEOUT,
                              preexec_fn=_limit)
    except subprocess.TimeoutExpired:
        return "timeout"
    return "survived" if proc.returncode == 0 else "killed"


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[subprocess.CompletedProcess[str], Path]:
    root = tmp_path_factory.mktemp("state") / "project"
    shutil.copytree(SAMPLE, root)
    proc = subprocess.run([sys.executable, "-m", "mu2py", "score", "--no-cache", "--json"], cwd=root, env=_env(root),
                          capture_output=True, text=True, timeout=300, preexec_fn=_limit)
    return proc, root


def test_the_report_is_one_json_document_and_the_project_is_intact(scored):
    proc, root = scored
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout)  # the exit handler's line went nowhere near it
    assert "exit handler" not in proc.stdout
    assert report["summary"]["tests"] == 14  # the order-dependent pair included: the suite is scored
    for path in SAMPLE.rglob("*.py"):
        assert (root / path.relative_to(SAMPLE)).read_text() == path.read_text()


def test_every_status_equals_plain_pytest_on_the_mutated_file(scored, tmp_path):
    from mu2py.score.spec import SuiteSpec, build_program

    proc, root = scored
    report = json.loads(proc.stdout)
    modules = ("statepkg.ops", "statepkg.registry", "statepkg.optional")
    files = tuple(str(SAMPLE / Path(*m.split("."))) + ".py" for m in modules)
    program = build_program(SuiteSpec(str(SAMPLE), (), modules, files))
    ids = {m.id: m for m in program.mutants}
    statuses = {m["id"]: m["status"] for m in report["mutants"] if m["id"] in ids}
    assert len(statuses) == len(ids)

    def truth(item: tuple[int, str]) -> tuple[str, str]:
        k, mutant_id = item
        m = ids[mutant_id]
        return mutant_id, _plain(SAMPLE, m.module, program.mutant_source(mutant_id), tmp_path / str(k))

    with ThreadPoolExecutor(2) as pool:
        plain = dict(pool.map(truth, enumerate(sorted(statuses))))
    # plain pytest tells killed from not killed: no test running a mutant is one way of not killing it
    found = {i: "survived" if status == "no_coverage" else status for i, status in statuses.items()}
    wrong = {i: (statuses[i], plain[i]) for i in statuses if found[i] != plain[i]}
    assert not wrong, f"{len(wrong)}/{len(statuses)} statuses differ from plain pytest (mu2py, plain): {wrong}"
    assert {"killed", "survived"} <= set(statuses.values())
    configure = [i for i in statuses if ids[i].scope == "configure"]
    assert configure and all(statuses[i] == "killed" for i in configure)  # its module's body re-run with it
    modes = {m["id"]: m["mode"] for m in report["mutants"]}
    assert all(modes[i] == "reexec" for i in configure)  # not a fresh interpreter: the body only calls it
    raising = [i for i in statuses if ids[i].line == 7 and ids[i].module == "statepkg.ops" and statuses[i] == "killed"]
    # the module body raises: the test modules imported afresh in the worker fail, no fresh interpreter needed
    assert raising and all(modes[i] == "reexec" for i in raising)
    legacy = [m for m in report["mutants"] if m["scope"] == "legacy"]
    assert legacy and all(m["status"] == "no_coverage" and m["pruned"] == "never defined here" for m in legacy)
    caught = [i for i in statuses if ids[i].module == "statepkg.optional" and statuses[i] == "survived"]
    assert caught and all(modes[i] == "isolated" for i in caught)  # the importer caught it: a fresh import decides


def test_a_keyboard_interrupt_costs_no_deadline(scored):
    proc, _ = scored
    report = json.loads(proc.stdout)
    lines = (SAMPLE / "statepkg" / "ops.py").read_text().splitlines()
    guard = lines.index("        raise KeyboardInterrupt  # pragma: no mutate")  # the guard's line number (1-based)
    raising = [m for m in report["mutants"] if m["id"].startswith(f"statepkg.ops:{guard}:") and m["status"] == "killed"]
    # `<= 1000` raises for both tests that call it: which of them runs first follows the worker's history
    callers = ("::test_interrupted", "::test_exit_handler")
    assert raising and all(m["killed_by"].endswith(callers) and m["seconds"] < 5 for m in raising)
