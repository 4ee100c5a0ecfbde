"""Every mutant's diff in a report: the windowed splice gives the hunk a whole-module diff gives."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from mu2py.mutants.catalog import Program
from mu2py.score.diffs import Splicer, add_diffs, unified
from mu2py.target.modules import Target, TargetModule
from tests.mu2py.score.conftest import DATA

# a form feed (which str.splitlines would take for a line break), a change on the first and on the last line,
# a multi-line node, and no newline at the end
ODD = 'x = 1\n\x0c\ndef f(a, b):\n    return (a +\n            b)\n\n\nY = [1,\n     2]\nz = x > 0'


def _program(files: dict[str, str]) -> Program:
    modules = tuple(TargetModule(name, file, Path(file).read_text() if not text else text, False, None)
                    for name, (file, text) in files.items())
    return Program(Target(None, None, modules, tuple(files)))


def test_windowed_diffs_equal_whole_module_diffs(tmp_path: Path) -> None:
    root = DATA / "score_sample"
    program = _program({"sample_pkg.core": (str(root / "sample_pkg" / "core.py"), ""),
                        "sample_pkg.formats": (str(root / "sample_pkg" / "formats.py"), ""),
                        "odd": (str(tmp_path / "odd.py"), ODD)})
    result = {"mutants": [m.to_json() for m in program.mutants]}
    add_diffs(result, program, root)
    assert len(result["mutants"]) > 50
    for entry in result["mutants"]:
        module = program.module_of(entry["id"])
        rel = entry["file"].removeprefix(f"{root}/")
        assert entry["diff"] == unified(module.source, program.mutant_source(entry["id"]), rel), entry["id"]
    odd = [e["diff"] for e in result["mutants"] if e["module"] == "odd"]
    assert any(d.startswith(f"--- a/{tmp_path}/odd.py\n+++ b/{tmp_path}/odd.py\n@@ -1,4 +1,4 @@\n-x = 1\n+x = 2")
               for d in odd)
    assert any("@@ -7,4 +7,4 @@" in d and d.endswith(
        "-z = x > 0\n\\ No newline at end of file\n+z = x >= 0\n\\ No newline at end of file") for d in odd)


def test_a_splice_at_the_end_of_a_line() -> None:
    splicer = Splicer("a = 1\nb = 2\n")
    assert splicer.splice(4, 5, "3", "m.py", context=0) == "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a = 1\n+a = 3"
    assert splicer.splice(10, 11, "4", "m.py", context=0) == "--- a/m.py\n+++ b/m.py\n@@ -2 +2 @@\n-b = 2\n+b = 4"


@pytest.mark.skipif(shutil.which("patch") is None, reason="no patch(1) here")
def test_a_diff_touching_a_last_line_without_newline_applies_with_patch(tmp_path: Path) -> None:
    """The report's diff is a patch a person can apply: a file's last line without "\\n" is marked so (python-
    dotenv's `__main__.py`, whose diffs `patch` refused as malformed)."""
    source = "import sys\n\nif __name__ == '__main__':\n    sys.exit(0)"
    (tmp_path / "m.py").write_text(source)
    diff = Splicer(source).splice(source.index("0"), source.index("0") + 1, "1", "m.py")
    (tmp_path / "m.patch").write_text(diff + "\n")
    subprocess.run(["patch", "-p1", "-s", "-i", "m.patch"], cwd=tmp_path, check=True)
    assert (tmp_path / "m.py").read_text() == source.replace("(0)", "(1)")
