"""Warnings are outputs, end to end on tests/data/warn_pkg: `mutate` kills mutants of a DeprecationWarning's message
and stacklevel with reason `warning`, and `corpus` and `kill` write tests asserting the warning with `pytest.warns`."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import mu2py
from mu2py.cli.main import main

WARN_PKG = Path(__file__).resolve().parents[2] / "data" / "warn_pkg"
WORKTREE = str(Path(mu2py.__file__).resolve().parents[1])
LEGACY = "warn_pkg.legacy"
# the mutants of `warnings.warn("old, use new", DeprecationWarning, stacklevel=2)` that change only the warning
MESSAGE = [f"{LEGACY}:8:18:string", f"{LEGACY}:8:18:string#2"]
STACKLEVEL = [f"{LEGACY}:8:65:constant", f"{LEGACY}:8:65:constant#2"]  # 2 -> 3, 2 -> 1
UNCHANGED = f"{LEGACY}:11:8:aug_to_assign"  # `total = value`: on [5], the same sum and the same warning


def test_mutate_kills_mutants_of_a_warning_by_warning(warn_pkg_on_path, capsys):
    assert main(["mutate", "warn_pkg.drivers:total", "--value", "[5]", "--json"]) == 0
    mutants = {m["id"]: m for m in json.loads(capsys.readouterr().out)["mutants"]}
    for name in MESSAGE + STACKLEVEL:
        assert (mutants[name]["status"], mutants[name]["reason"]) == ("killed", "warning"), mutants[name]
    assert mutants[UNCHANGED]["status"] == "alive"
    assert mutants[f"{LEGACY}:12:4:return_value"]["reason"] == "output"  # the output decides before the warnings


def _env():
    # the mu2py under test (a worktree's, not the installed one), and nothing else of the caller's path
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = WORKTREE
    return env


def test_corpus_writes_a_test_asserting_the_warning(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(WARN_PKG, root)
    proc = subprocess.run([sys.executable, "-m", "mu2py", "corpus", LEGACY, "--trials", "10", "--seed", "0",
                           "--out", "out", "--no-score"], cwd=root, capture_output=True, text=True, env=_env(),
                          timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    source = (root / "out" / "tests" / "test_corpus_warn_pkg_legacy.py").read_text()
    # the case kept its warnings: it passed with them on the original in a fresh interpreter (else they are dropped)
    assert "def test_old_total_warns(arguments, expected, warns):" in source
    assert "[(DeprecationWarning, 'old, use new', True)]" in source and "with pytest.warns(category" in source
    assert "warnings are not asserted" not in source


def test_kill_writes_a_test_that_fails_on_mutants_of_the_warning(warn_pkg_on_path, tmp_path):
    """The kill workflow's last steps on an input the aimed campaign found: the test asserts the warning (message,
    and where it points: the test's own call), passes on the original and fails on each mutant of the warning (its
    message, its stacklevel) in a fresh interpreter."""
    from mu2py.mutants.catalog import Program
    from mu2py.survivors.aim import Campaign
    from mu2py.survivors.kill import _cases, _write_verified
    from mu2py.testgen.function_driver import function_target
    from mu2py.testgen.signatures import infer_named

    spec = infer_named(LEGACY, "old_total")
    target = function_target(spec, messages=True)
    program = Program(target)
    claimed = [MESSAGE[0], STACKLEVEL[0]]
    campaign = Campaign(spec.qualname, spec, target, program, kills={i: ("id_5", "warning") for i in claimed},
                        inputs={"id_5": {"values": [5]}})
    cases = {LEGACY: _cases(campaign, {m.id: m.to_json() for m in program.mutants})}
    final, notes = _write_verified(lambda line: None, cases, {LEGACY: program}, tmp_path / "tests", "mu2py kill",
                                   WARN_PKG, [str(WARN_PKG)], 1)
    # it passed on the original (a test failing there is dropped), and fails on each mutant it still claims
    [(name, written)] = final[LEGACY].tests.items()
    assert sorted(m["id"] for m in written.mutants) == sorted(claimed), notes
    source = (tmp_path / "tests" / "test_kill_warn_pkg_legacy.py").read_text()
    assert "with pytest.warns(DeprecationWarning, match=\"^\" + re.escape('old, use new') + \"$\") as warned:" in source
    assert "and w.filename == __file__" in source and f"def {name}():" in source


def test_a_warning_the_original_does_not_repeat_is_no_kill(tmp_path, monkeypatch, capsys):
    """A message naming something that changes from run to run (here: how many calls came before) is not compared:
    no mutant dies of warnings on that input, not even one moving them elsewhere."""
    (tmp_path / "chatty_pkg").mkdir()
    (tmp_path / "chatty_pkg" / "__init__.py").write_text("")
    (tmp_path / "chatty_pkg" / "mod.py").write_text(
        "import itertools\nimport warnings\n\n_calls = itertools.count()\n\n\n"
        "def total(values):\n    warnings.warn(f'call {next(_calls)}', stacklevel=2)\n    return sum(values) + 0\n")
    (tmp_path / "chatty_pkg" / "drivers.py").write_text(
        "from hypothesis import strategies as st\n\nfrom chatty_pkg import mod\nfrom mu2py import driver\n\n\n"
        "@driver(st.lists(st.integers()), targets=['chatty_pkg.mod'])\ndef total(values):\n"
        "    return mod.total(values)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert main(["mutate", "chatty_pkg.drivers:total", "--value", "[5]", "--json"]) == 0
    finally:
        for module in [n for n in sys.modules if n.split(".")[0] == "chatty_pkg"]:
            del sys.modules[module]
    mutants = {m["id"]: m for m in json.loads(capsys.readouterr().out)["mutants"]}
    assert mutants["chatty_pkg.mod:9:11:arithmetic"]["status"] == "alive"  # `+ 0` -> `- 0`
    assert mutants["chatty_pkg.mod:8:53:constant"]["status"] == "alive"  # stacklevel 2 -> 3
    assert not any(m["reason"] == "warning" for m in mutants.values())
