"""The verdict cache's folder: made with a `.gitignore` of `*`, as pytest makes its cache; a user's folder untouched."""

from __future__ import annotations

from pathlib import Path

from mu2py.score.cache import VerdictCache, make_folder


def test_the_cache_folder_ignores_itself(tmp_path: Path) -> None:
    cache = VerdictCache(tmp_path / ".mu2py-cache" / "score.json")
    cache.put("key", {"status": "killed"})
    cache.save()
    assert (tmp_path / ".mu2py-cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert VerdictCache(tmp_path / ".mu2py-cache" / "score.json").get("key") == {"status": "killed"}


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
