"""`score --since REF`: only the mutants on lines changed since a git ref (committed, uncommitted, untracked)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from mu2py.cli.main import main
from mu2py.score.since import parse_diff
from tests.mu2py.score.conftest import git

DIFF = """diff --git a/pkg/a.py b/pkg/a.py
--- a/pkg/a.py
+++ b/pkg/a.py
@@ -2 +2 @@ def f():
-    return 1
+    return 2
@@ -10,2 +10,0 @@ def g():
-    x = 1
-    y = 2
@@ -20,0 +19,3 @@ def h():
+    a = 1
+    b = 2
+    c = 3
diff --git a/pkg/gone.py b/pkg/gone.py
--- a/pkg/gone.py
+++ /dev/null
@@ -1 +0,0 @@
-x = 1
"""


def test_parse_diff_keeps_added_and_changed_lines_only() -> None:
    assert parse_diff(DIFF) == {"pkg/a.py": {2, 19, 20, 21}}


def _score(root: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:
    assert main(["score", "--root", str(root), "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_since_judges_the_changed_lines_and_reuses_the_cache(calc_project, capsys) -> None:
    root = calc_project()
    ops = root / "calc" / "ops.py"
    ops.write_text(ops.read_text().replace("return a + b", "return b + a"))
    git(root, "commit", "-qam", "swap")  # committed since the ref
    ops.write_text(ops.read_text().replace("    return x\n", "    return (x)\n"))  # not committed
    (root / "calc" / "extra.py").write_text("def twice(n):\n    return n * 2\n")  # untracked
    (root / "tests" / "test_extra.py").write_text("from calc.extra import twice\n\n\ndef test_twice():\n"
                                                  "    assert twice(3) == 6\n")
    report = _score(root, capsys, "--since", "HEAD~1")
    places = {(Path(m["file"]).name, m["line"]) for m in report["mutants"]}
    assert places == {("ops.py", 2), ("ops.py", 10), ("extra.py", 2)}
    assert len([m for m in report["mutants"] if m["file"].endswith("ops.py")]) == 3
    summary = report["summary"]
    assert summary["out_of_scope"] == 10 and summary["scope"] == {"since": "HEAD~1", "shard": None}
    assert summary["killed"] == summary["total"] == 7 and summary["tests"] == 4
    assert report["catalog"][str(ops)] == 9  # every mutant of the file, for the ratchet
    again = _score(root, capsys, "--since", "HEAD~1")
    assert [m["status"] for m in again["mutants"]] == [m["status"] for m in report["mutants"]]
    assert all(m["cached"] for m in again["mutants"])


def test_a_change_to_the_tests_alone_judges_nothing(calc_project, capsys) -> None:
    root = calc_project()
    tests = root / "tests" / "test_ops.py"
    tests.write_text(tests.read_text() + "\n\ndef test_more():\n    assert True\n")
    report = _score(root, capsys, "--since", "main")
    assert report["mutants"] == [] and report["summary"]["out_of_scope"] == 13
    assert report["summary"]["tests"] == 0  # the suite never ran: nothing was in scope
    assert main(["score", "--root", str(root), "--since", "main"]) == 0
    out = capsys.readouterr().out
    assert "no mutants on the lines changed since main" in out and "score 0.0%" not in out


def test_since_outside_a_repository_or_with_a_bad_ref(calc_project, tmp_path, capsys) -> None:
    root = calc_project()
    assert main(["score", "--root", str(root), "--since", "no-such-branch"]) == 2
    err = capsys.readouterr().err
    assert "--since no-such-branch: no such commit" in err and err.startswith("mu2py: error:")
    plain = tmp_path / "plain"
    shutil.copytree(root, plain, ignore=shutil.ignore_patterns(".git"))
    assert main(["score", "--root", str(plain), "--since", "main"]) == 2
    assert "--since needs a git repository" in capsys.readouterr().err
