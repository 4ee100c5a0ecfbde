"""A worker's one-off record of what each test runs (the suite under a hook) is never charged to a mutant.

Seen on a PyPI package whose property test runs 1,500 examples: under the hook, on a loaded machine, the record
outlasted the first module-level mutant's deadline, and `__author__ = None` was reported as a timeout.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

import mu2py.score.pools as pools
from mu2py.cli.main import main

PACKAGE = {
    "__init__.py": '__version__ = "1.0"\n\n\ndef double(x):\n    return x * 2\n',
}
# slow only while a hook is set (as a test of many Python calls is, far less starkly): under the record, whose
# hook is a trace function on 3.11 and a sys.monitoring tool on 3.12+
TESTS = ("import sys\nimport time\n\nfrom rec_pkg import double\n\n\n"
         "def recording():\n    monitoring = getattr(sys, 'monitoring', None)\n"
         "    return sys.gettrace() is not None or bool(monitoring and monitoring.get_tool(4))\n\n\n"
         "def test_double():\n    if recording():\n        time.sleep(2.5)\n"
         "    assert double(2) == 4\n")


def test_a_record_longer_than_the_unit_s_deadline_is_no_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "project"
    (root / "rec_pkg").mkdir(parents=True)
    for name, text in PACKAGE.items():
        (root / "rec_pkg" / name).write_text(text)
    (root / "tests").mkdir()
    (root / "tests" / "test_rec.py").write_text(TESTS)
    # the backstop past a unit's tests' timeouts (1 s here): shorter than the record's 2.5 s
    monkeypatch.setattr(pools, "SLACK", 0.5)
    monkeypatch.setattr(sys, "path", [*sys.path])
    assert main(["score", "--root", str(root), "--paths", "rec_pkg", "--tests", "tests", "--workers", "1",
                 "--no-cache", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    version = [m for m in report["mutants"] if m["line"] == 1 and m["at_import"]]
    assert version and all(m["status"] == "survived" for m in version), version  # no test reads __version__
    assert all(m["seconds"] < 2.5 for m in version)  # the record is not the mutant's time
    recorded = [v for k, v in report["summary"]["time"].items() if k.startswith("recording")]
    assert recorded and recorded[0]["seconds"] >= 2.5
    assert any(m["status"] == "killed" for m in report["mutants"] if not m["at_import"])
