"""The scratch copy a score worker runs in: restored to the project as found after every unit."""

from pathlib import Path

from mu2py.score.sandbox import ScratchCopy, data_digest_parts, tree_state


def _project(root: Path) -> Path:
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "m.py").write_text("X = 1\n")
    (root / "tests" / "data").mkdir(parents=True)
    (root / "tests" / "data" / "in.txt").write_text("hello\n")
    (root / "empty").mkdir()
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref\n")
    return root


def test_copy_and_restore(tmp_path):
    original = _project(tmp_path / "orig")
    before = tree_state(str(original))
    box = ScratchCopy(str(original), str(tmp_path / "copy"))
    copy = tmp_path / "copy"
    assert (copy / "tests" / "data" / "in.txt").read_text() == "hello\n"
    assert (copy / "empty").is_dir() and not (copy / ".git").exists()  # hidden folders are never copied
    assert box.restore() == []
    # a unit deletes a data file, rewrites the module, rewrites another with the same bytes, adds a file
    (copy / "tests" / "data" / "in.txt").unlink()
    (copy / "pkg" / "m.py").write_text("X = 2\n")
    (copy / "tests" / "new.log").write_text("out")
    assert box.restore() == ["pkg/m.py", "tests/data/in.txt"]
    assert (copy / "tests" / "data" / "in.txt").read_text() == "hello\n"
    assert (copy / "pkg" / "m.py").read_text() == "X = 1\n"
    assert not (copy / "tests" / "new.log").exists()
    (copy / "tests" / "data" / "in.txt").write_text("hello\n")  # same contents, new time stamp: no damage
    assert box.restore() == []
    assert tree_state(str(original)) == before  # the project itself is only read
    assert box.remap(str(original / "pkg" / "m.py")) == str(copy / "pkg" / "m.py")
    assert box.relative(str(copy / "tests" / "data" / "in.txt")) == "tests/data/in.txt"
    assert box.relative("/elsewhere/x") is None


def test_data_digest_sees_contents(tmp_path):
    (tmp_path / "a.txt").write_text("one")
    first = data_digest_parts(tmp_path, ["a.txt"])
    (tmp_path / "a.txt").write_text("two")
    assert data_digest_parts(tmp_path, ["a.txt"]) != first
    (tmp_path / "a.txt").unlink()
    assert data_digest_parts(tmp_path, ["a.txt"]) == ["a.txt", "<missing>"]
