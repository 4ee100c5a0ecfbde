"""Score workers: a stopped worker ends at once, without finishing its pytest session."""

import json

from mu2py.cli.main import main
from tests.mu2py.score.conftest import OPS, TEST_OPS, write_tree

# appends a line to the file FINISHED names whenever a pytest session in this project finishes
CONFTEST = '''import os


def pytest_sessionfinish(session):
    with open(os.environ["FINISHED"], "a") as f:
        f.write(f"{os.getpid()}\\n")
'''


def test_a_stopped_worker_skips_the_session_finish(tmp_path, monkeypatch, capsys):
    root = tmp_path / "project"
    write_tree(root, {"calc/__init__.py": "", "calc/ops.py": OPS, "tests/test_ops.py": TEST_OPS,
                      "tests/conftest.py": CONFTEST})
    finished = tmp_path / "finished"
    monkeypatch.setenv("FINISHED", str(finished))
    assert main(["score", "--root", str(root), "--paths", "calc", "--tests", "tests", "--no-cache", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["killed"] > 0 and all(m["mode"] != "isolated" for m in report["mutants"])
    # the worker served every mutant, then ended without pytest's session finish (nor its terminal summary)
    assert not finished.exists()

