"""A unit's tests run in collection order: a mutant whose damage to an object the tests share fails a later test
is killed on every run, as in a plain pytest run, whichever tests a worker tried first (pyee's emitter)."""

import json

from mu2py.cli.main import main
from tests.mu2py.score.conftest import write_tree

EMITTER = '''class Emitter:
    def __init__(self):
        self.handlers = {}

    def on(self, event, handler):
        self.handlers.setdefault(event, []).append(handler)

    def emit(self, event):
        return [handler() for handler in self.handlers.get(event, [])]

    def clear(self):
        self.handlers = dict()
'''
# every case clears the shared emitter at its end; only the "shared" case uses it.  The other two are the slower:
# fastest first (the order before this one) ran "shared" before any damage, and the mutant survived
TEST = '''import time

import pytest

from ev_pkg.emitter import Emitter

SHARED = Emitter()


@pytest.mark.parametrize("case", ["own", "shared", "late"])
def test_emit(case):
    emitter = SHARED if case == "shared" else Emitter()
    if case != "shared":
        time.sleep(0.05)
    emitter.on("e", lambda: case)
    assert emitter.emit("e") == [case]
    SHARED.clear()
'''


def _statuses(root, capsys) -> dict[str, str]:
    assert main(["score", "--root", str(root), "--paths", "ev_pkg", "--tests", "tests", "--no-cache",
                 "--json"]) == 0
    return {m["mutated"]: m["status"] for m in json.loads(capsys.readouterr().out)["mutants"] if m["line"] == 12}


def test_damage_to_a_shared_object_kills_as_in_a_plain_run_on_every_run(tmp_path, capsys):
    root = tmp_path / "project"
    write_tree(root, {"ev_pkg/__init__.py": "", "ev_pkg/emitter.py": EMITTER, "tests/test_emit.py": TEST})
    first = _statuses(root, capsys)
    # `self.handlers = None`: "own" leaves SHARED without handlers and "shared", next in a plain run, fails
    assert first.get("self.handlers = None") == "killed", first
    assert _statuses(root, capsys) == first
