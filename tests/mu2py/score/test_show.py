"""`mu2py show` and `mu2py apply` end to end: tests/data/score_sample scored once (in a git repository), then one
mutant at a time described from the kept report or a --report file, and written into the working tree."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from mu2py.cli.main import main
from tests.mu2py.score.conftest import DATA, git

KILLED = "sample_pkg.core:10:13:call_arg"  # range(1, len(arr)) -> range(None, len(arr)): test_sort fails first
SURVIVOR = "sample_pkg.core:10:13:call_arg#3"  # range(1, len(arr)) -> range(len(arr)): run by 2 tests, none fail
PRUNED = "sample_pkg.core:13:31:boundary"  # `> key` -> `>= key`: reached, never infected
UNCOVERED = "sample_pkg.core:23:4:return_value"  # clamp's `return x`: no test reaches it


def _run(*argv: str) -> tuple[int, str]:
    """`mu2py ARGV` in this process: its exit code and stdout."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(list(argv))
    return code, out.getvalue()


@pytest.fixture(scope="module")
def scored(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """The sample project, committed in git and scored once (its core module): the root and the --json report."""
    root = tmp_path_factory.mktemp("show") / "project"
    shutil.copytree(DATA / "score_sample", root)
    (root / ".gitignore").write_text("report.json\n")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "sample")
    code, out = _run("score", "--root", str(root), "--paths", "sample_pkg/core.py", "--tests", "tests", "--json",
                     "--report", str(root / "report.json"))
    assert code == 0
    return root, json.loads(out)


def _show(root: Path, mutant: str, *extra: str) -> dict:
    code, out = _run("show", mutant, "--root", str(root), "--json", *extra)
    assert code == 0
    return json.loads(out)


def test_show_a_killed_mutant(scored) -> None:
    root, report = scored
    code, out = _run("show", KILLED, "--root", str(root))
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"sample_pkg/core.py:10: {KILLED} (call_arg in insertion_sort)"
    assert lines[1].startswith("status: killed: tests/test_core.py::test_sort failed")
    assert lines[2] == "killed by: tests/test_core.py::test_sort"
    # how it failed: the exception raised in the mutated line, reached from the test's line
    assert lines[3] == ("failure: TypeError: 'NoneType' object cannot be interpreted as an integer "
                        "(sample_pkg/core.py:10, from tests/test_core.py:5)")
    assert "--- a/sample_pkg/core.py" in lines and "+++ b/sample_pkg/core.py" in lines
    assert "-    for j in range(1, len(arr)):" in lines and "+    for j in range(None, len(arr)):" in lines
    shown = _show(root, KILLED)
    assert shown["status"] == "killed" and shown["killed_by"] == ["tests/test_core.py::test_sort"]
    assert shown["failure"] == lines[3].removeprefix("failure: ")
    assert shown["file"] == "sample_pkg/core.py" and shown["line"] == 10 and shown["why_survived"] is None
    assert shown["diff"] == "\n".join(lines[4:])  # the text output holds the same diff


def test_every_kill_by_a_test_says_how_it_failed(scored) -> None:
    """The report's `failure`: a failed assertion at the test's line, a timeout's limit; none for a crash."""
    root, report = scored
    by_test = [m for m in report["mutants"] if m["status"] in ("killed", "timeout")
               and m["killed_by"].startswith("tests/")]
    assert by_test and all(m["failure"] and len(m["failure"]) <= 200 for m in by_test)
    for m in by_test:
        if m["status"] == "timeout":
            assert re.fullmatch(r"timed out after [0-9.]+ s", m["failure"]), m
    # `return arr` -> `return None`: the test's assertion fails, in the test itself
    [none] = [m for m in report["mutants"] if m["line"] == 17 and m["operator"] == "return_value"]
    assert none["failure"] == "AssertionError: assert None == [1, 2, 3] (tests/test_core.py:5)"
    crashed = [m for m in report["mutants"] if m["killed_by"] and m["killed_by"].startswith("<")]
    assert crashed and all(m["failure"] is None for m in crashed)  # a worker that died: no test failed
    code, out = _run("show", none["id"], "--root", str(root))
    assert code == 0 and f"failure: {none['failure']}" in out.splitlines()
    timeout = next(m for m in by_test if m["status"] == "timeout")
    code, out = _run("show", timeout["id"], "--root", str(root))
    assert code == 0 and f"failure: {timeout['failure']}" in out.splitlines()


def test_every_mutant_of_the_report_has_its_diff(scored) -> None:
    _, report = scored
    for entry in report["mutants"]:
        assert entry["diff"].startswith("--- a/sample_pkg/core.py\n+++ b/sample_pkg/core.py\n@@ -"), entry["id"]
    assert {e["status"] for e in report["mutants"]} == {"killed", "timeout", "survived", "no_coverage"}


def test_show_says_why_survivors_survived(scored) -> None:
    root, _ = scored
    survivor = _show(root, SURVIVOR)
    assert survivor["status"] == "survived" and survivor["killed_by"] == []
    assert survivor["why_survived"] == "reached by 2 tests, infected by 2, run by 2 tests, none failed"
    assert "+    for j in range(len(arr)):" in survivor["diff"].splitlines()
    pruned = _show(root, PRUNED)
    assert pruned["why_survived"].startswith("reached by 1 test but not infected (pruned by infection)")
    assert "+        while i >= 0 and arr[i] >= key:" in pruned["diff"].splitlines()
    uncovered = _show(root, UNCOVERED)
    assert (uncovered["status"], uncovered["why_survived"]) == ("no_coverage", "reached by no test")


def test_show_reads_a_report_file_too(scored) -> None:
    root, _ = scored
    from_file = _show(root, SURVIVOR, "--report", str(root / "report.json"))
    assert from_file == _show(root, SURVIVOR)


def test_show_unknown_id_and_no_result(scored, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = scored
    assert main(["show", "sample_pkg.core:13:30:boundry", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mu2py: error: no mutant 'sample_pkg.core:13:30:boundry' in the last score run; nearest: "
                          "sample_pkg.core:13:31:boundary") and err.count("\n") == 1
    assert main(["show", "sample_pkg.core:24", "--root", str(root)]) == 2
    assert "; nearest: sample_pkg.core:23:4:return_value, " in capsys.readouterr().err  # the nearest line's
    assert main(["show", KILLED, "--root", str(tmp_path)]) == 2
    assert "no score result under" in capsys.readouterr().err
    (tmp_path / ".mu2py-cache").mkdir()
    (tmp_path / ".mu2py-cache" / "score.json").write_text("{}")  # verdicts only, as before `show` existed
    assert main(["show", KILLED, "--root", str(tmp_path)]) == 2
    assert "--report FILE" in capsys.readouterr().err


def test_the_cache_folder_stays_out_of_git_status(scored) -> None:
    root, _ = scored
    assert (root / ".mu2py-cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (root / ".mu2py-cache" / "last-report.json").is_file()
    assert git(root, "status", "--porcelain") == ""


def test_apply_refuses_a_dirty_file_unless_forced(scored, capsys: pytest.CaptureFixture[str]) -> None:
    root, _ = scored
    core = root / "sample_pkg" / "core.py"
    original = core.read_text()
    try:
        core.write_text(original + "\n# work in progress\n")
        assert main(["apply", SURVIVOR, "--root", str(root)]) == 2
        err = capsys.readouterr().err
        assert "sample_pkg/core.py has uncommitted changes" in err and err.count("\n") == 1
        assert core.read_text().endswith("# work in progress\n")  # untouched

        git(root, "checkout", "--", "sample_pkg/core.py")
        code, out = _run("apply", SURVIVOR, "--root", str(root))
        assert code == 0 and out.startswith(f"sample_pkg/core.py: mutant {SURVIVOR} written")
        assert "+    for j in range(len(arr)):" in out.splitlines()
        assert core.read_text() == original.replace("range(1, len(arr))", "range(len(arr))")

        # the file now holds a mutant, not the scored source: a second apply is refused (dirty), and with --force
        # it is refused still, since the file no longer holds that mutant's original
        assert main(["apply", KILLED, "--root", str(root)]) == 2
        assert "uncommitted changes" in capsys.readouterr().err
        assert main(["apply", KILLED, "--root", str(root), "--force"]) == 2
        assert "changed since the score run" in capsys.readouterr().err

        core.write_text(original + "\n# work in progress\n")
        code, out = _run("apply", KILLED, "--root", str(root), "--force")
        assert code == 0
        assert core.read_text() == original.replace("range(1, len(arr))", "range(None, len(arr))") + \
            "\n# work in progress\n"
    finally:
        core.write_text(original)
