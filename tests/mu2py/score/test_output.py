"""What a mutant writes outside a test (a module body re-run in place, click's usage text on a bad command line)
reaches neither `score --json`'s stdout nor its stderr: the report parses and the progress lines are mu2py's."""

from __future__ import annotations

import json
from pathlib import Path

from tests.mu2py.score.conftest import score_json, write_tree

MODULE = '''import os

MODE = "quiet"

if MODE != "quiet":  # python-dotenv's `if __name__ == "__main__": cli()` negated: the CLI runs at import
    os.write(1, b"MUTANT-OUTPUT on stdout\\n")
    os.write(2, b"MUTANT-OUTPUT on stderr\\n")


def mode():
    return MODE
'''
TEST = '''from loud_pkg.loud import mode


def test_mode():
    assert mode() == "quiet"
'''


def test_a_mutant_s_output_at_import_reaches_neither_stream(tmp_path: Path) -> None:
    root = tmp_path / "project"
    write_tree(root, {"loud_pkg/__init__.py": "", "loud_pkg/loud.py": MODULE, "tests/test_loud.py": TEST})
    proc = score_json(root, "loud_pkg")
    assert proc.stdout.startswith("{")  # the report alone (the source's text is in it, as each mutant's original)
    report = json.loads(proc.stdout)
    loud = [m for m in report["mutants"] if m["line"] == 5]
    assert loud and all(m["mode"] == "reexec" for m in loud), loud  # re-run in place, in the worker
    assert "MUTANT-OUTPUT" not in proc.stderr, proc.stderr
