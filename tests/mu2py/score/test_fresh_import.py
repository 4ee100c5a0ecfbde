"""A fresh import of the test modules with one module's body replaced: a kill only for what that body raised."""

import sys

from mu2py.score.fresh_import import collection_error


def _project(tmp_path, monkeypatch):
    (tmp_path / "freshpkg").mkdir()
    (tmp_path / "freshpkg" / "__init__.py").write_text("")
    (tmp_path / "freshpkg" / "m.py").write_text("X = int('1')\n")
    (tmp_path / "test_plain.py").write_text("from freshpkg import m\n")
    (tmp_path / "test_helper.py").write_text("from freshpkg import m\nimport fresh_missing_helper\n")
    (tmp_path / "test_skips.py").write_text("import pytest\nfresh = pytest.importorskip('freshpkg.m')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import freshpkg.m

    return str(tmp_path / "freshpkg" / "m.py"), freshpkg.m


def _code(file, text):
    return compile(text, file, "exec")


def test_what_the_mutated_body_raises_fails_the_import_and_everything_is_put_back(tmp_path, monkeypatch):
    file, original = _project(tmp_path, monkeypatch)
    found = collection_error("freshpkg.m", file, False, _code(file, "X = int('x')\n"), ["freshpkg", "freshpkg.m"],
                             [("test_plain", str(tmp_path / "test_plain.py"), "test_plain.py")])
    assert found is not None and found[0] == "test_plain.py" and found[1].startswith("ValueError")
    assert sys.modules["freshpkg.m"] is original and "test_plain" not in sys.modules


def test_a_failure_from_elsewhere_or_a_skip_leaves_the_verdict_to_a_fresh_interpreter(tmp_path, monkeypatch):
    file, _ = _project(tmp_path, monkeypatch)
    project = ["freshpkg", "freshpkg.m"]
    # a helper the import outside pytest cannot find: says nothing of the mutant
    assert collection_error("freshpkg.m", file, False, _code(file, "X = int('1')\n"), project,
                            [("test_helper", str(tmp_path / "test_helper.py"), "test_helper.py")]) is None
    # importorskip catches the mutant's ModuleNotFoundError: pytest skips, no failure
    assert collection_error("freshpkg.m", file, False, _code(file, "import fresh_gone_module\n"), project,
                            [("test_skips", str(tmp_path / "test_skips.py"), "test_skips.py")]) is None
