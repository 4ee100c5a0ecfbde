"""The verdict cache's folder: made with a `.gitignore` of `*`, as pytest makes its cache; a user's folder untouched."""

from __future__ import annotations

import json
from pathlib import Path

from mu2py.score.cache import CACHE_VERSION, VerdictCache, make_folder
from mu2py.score.verdicts import Status, Verdict


def test_the_cache_folder_ignores_itself(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path / ".mu2py-cache" / "score.json")
    cache.put("key", Verdict(Status.KILLED, "tests/test_a.py::test_x", 2, seconds=0.5))
    cache.save()
    assert (tmp_path / ".mu2py-cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    again = VerdictCache(tmp_path / ".mu2py-cache" / "score.json")
    assert again.get("key") == Verdict(Status.KILLED, "tests/test_a.py::test_x", 2, seconds=0.5)


def test_an_entry_that_is_no_verdict_is_a_miss_not_an_error(tmp_path: Path) -> None:
    path = tmp_path / "score.json"
    entries = {"a": {"status": "eaten"}, "b": {"tests_run": 1}}
    path.write_text(json.dumps({"version": CACHE_VERSION, "verdicts": entries}))
    cache = VerdictCache(path)
    assert cache.data and cache.get("a") is None and cache.get("b") is None


def test_an_existing_folder_gets_no_gitignore(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    make_folder(tmp_path / "mine")
    assert list((tmp_path / "mine").iterdir()) == []


def test_a_test_named_by_node_id_is_in_the_tests_digest(tmp_path: Path) -> None:
    from mu2py.score.cache import tests_digest
    from mu2py.score.spec import SuiteSpec

    (tmp_path / "tests").mkdir()
    test = tmp_path / "tests" / "test_a.py"
    test.write_text("def test_x():\n    assert 1\n")
    spec = SuiteSpec(root=str(tmp_path), pytest_args=("tests/test_a.py::test_x",), modules=(), files=())
    before = tests_digest(spec)
    test.write_text("def test_x():\n    assert 2\n")  # an edited test judges every mutant anew
    assert tests_digest(spec) != before
