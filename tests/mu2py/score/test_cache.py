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
