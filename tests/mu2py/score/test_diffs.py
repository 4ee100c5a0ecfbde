"""Every mutant's diff in a report: the windowed splice gives the hunk a whole-module diff gives."""

from __future__ import annotations

from pathlib import Path

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
    assert any("@@ -7,4 +7,4 @@" in d and d.endswith("-z = x > 0\n+z = x >= 0") for d in odd)


def test_a_splice_at_the_end_of_a_line() -> None:
    splicer = Splicer("a = 1\nb = 2\n")
    assert splicer.splice(4, 5, "3", "m.py", context=0) == "--- a/m.py\n+++ b/m.py\n@@ -1 +1 @@\n-a = 1\n+a = 3"
    assert splicer.splice(10, 11, "4", "m.py", context=0) == "--- a/m.py\n+++ b/m.py\n@@ -2 +2 @@\n-b = 2\n+b = 4"
