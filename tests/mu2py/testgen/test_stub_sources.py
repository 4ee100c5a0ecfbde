"""Where hints come from (issue 39): inline, a `.pyi` beside the module, a PEP 561 `-stubs` package, in that order.

tests/data/stubs_project holds `stubs_pkg` (typed by `.pyi` files beside its modules) and `pep561_pkg`
(typed by `pep561_pkg-stubs` next to it); neither has annotations of its own but one.
"""

import shutil
import sys
import typing
from pathlib import Path

import pytest

from mu2py.testgen.discovery import discover
from mu2py.testgen.hints import type_hints
from mu2py.testgen.signatures import infer_named
from mu2py.testgen.stubs import package_stub_path

PROJECT = Path(__file__).resolve().parents[2] / "data" / "stubs_project"


def _forget():
    for name in [n for n in sys.modules if n.split(".")[0] in ("stubs_pkg", "pep561_pkg")]:
        del sys.modules[name]


@pytest.fixture
def on_path(monkeypatch):
    """The fixture project importable; its modules forgotten afterwards (other tests copy it elsewhere)."""
    _forget()
    monkeypatch.syspath_prepend(str(PROJECT))
    yield
    _forget()


def _hints(qualname, bound=None):
    import importlib

    module, _, name = qualname.rpartition(":")
    target = importlib.import_module(module)
    for part in name.split("."):
        target = getattr(target, part)
    notes = []
    return type_hints(target, notes, bound), notes


@pytest.mark.usefixtures("on_path")
def test_stub_beside_the_module():
    hints, notes = _hints("stubs_pkg.shapes:area")
    assert hints == {"width": int, "height": int} and notes == ["type hints from shapes.pyi"]
    assert _hints("stubs_pkg.shapes:Box.grow")[0] == {"by": int}
    assert _hints("stubs_pkg.shapes:Box.__init__")[0] == {"size": int}


@pytest.mark.usefixtures("on_path")
def test_pep561_stub_package_next_to_the_package():
    # Optional is imported by the stub only: the stub's imports resolve its annotations
    hints, notes = _hints("pep561_pkg.units:clamp")
    assert hints == {"value": int, "low": int, "high": typing.Optional[int]}  # noqa: UP045 - as the stub writes it
    assert notes == ["type hints from pep561_pkg-stubs/units.pyi"]
    # the package's own __init__ is typed by the stub package's __init__.pyi
    assert _hints("pep561_pkg:version")[0] == {"major": int}


def test_pep561_stub_package_found_on_sys_path(tmp_path, monkeypatch):
    """The stubs installed elsewhere (site-packages) than the package itself."""
    _forget()
    shutil.copytree(PROJECT / "pep561_pkg", tmp_path / "code" / "pep561_pkg")
    shutil.copytree(PROJECT / "pep561_pkg-stubs", tmp_path / "site" / "pep561_pkg-stubs")
    monkeypatch.syspath_prepend(str(tmp_path / "code"))
    try:
        import pep561_pkg.units

        assert package_stub_path("pep561_pkg.units", pep561_pkg.units.__file__) is None
        monkeypatch.syspath_prepend(str(tmp_path / "site"))
        found = package_stub_path("pep561_pkg.units", pep561_pkg.units.__file__)
        assert found == (tmp_path / "site" / "pep561_pkg-stubs" / "units.pyi").resolve()
        assert _hints("pep561_pkg.units:to_cents")[0] == {"amount": float}
    finally:
        _forget()


@pytest.mark.usefixtures("on_path")
def test_overloads_are_joined():
    hints, notes = _hints("stubs_pkg.shapes:label")
    assert hints == {"name": str, "count": int} and notes == ["type hints from shapes.pyi (overloads joined)"]


@pytest.mark.usefixtures("on_path")
def test_an_unresolvable_annotation_is_no_hint():
    # SupportsLenAndGetItem exists only for type checkers (_typeshed): no hint, and the function is skipped
    hints, notes = _hints("stubs_pkg.shapes:sized")
    assert hints == {} and notes == ["stub hints not evaluated: items"]
    assert "no type hint" in infer_named("stubs_pkg.shapes", "sized").skipped


@pytest.mark.usefixtures("on_path")
def test_an_inline_hint_wins_over_the_stub():
    # mixed(x: int, y) in the code, mixed(x: str, y: int) in the stub
    assert _hints("stubs_pkg.shapes:mixed")[0] == {"x": int, "y": int}


@pytest.mark.usefixtures("on_path")
def test_a_lambda_is_typed_by_the_stub_under_the_name_it_is_bound_to():
    assert _hints("stubs_pkg.shapes:scale")[0] == {}  # its own name is <lambda>
    assert _hints("stubs_pkg.shapes:scale", "scale")[0] == {"value": int, "factor": int}
    spec = infer_named("stubs_pkg.shapes", "scale")
    assert spec.skipped is None and all(p.how.startswith("from_type(int)") for p in spec.params)


@pytest.mark.usefixtures("on_path")
def test_the_stub_beside_the_module_wins_over_a_stub_package(tmp_path, monkeypatch):
    shutil.copytree(PROJECT / "pep561_pkg-stubs", tmp_path / "pep561_pkg-stubs")
    (tmp_path / "stubs_pkg-stubs").mkdir()
    (tmp_path / "stubs_pkg-stubs" / "shapes.pyi").write_text(
        "def area(width: str, height: str) -> str: ...\ndef sized(items: list[int]) -> bool: ...\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert _hints("stubs_pkg.shapes:area")[0] == {"width": int, "height": int}
    # a parameter the beside stub leaves untyped (its hint does not evaluate) takes the stub package's
    hints, notes = _hints("stubs_pkg.shapes:sized")
    assert hints == {"items": list[int]} and "type hints from stubs_pkg-stubs/shapes.pyi" in notes


@pytest.mark.usefixtures("on_path")
def test_corpus_fuzzes_every_stub_typed_function():
    specs = {s.qualname: s for s in discover("stubs_pkg.shapes")[0] + discover("pep561_pkg")[0]}
    assert {q for q, s in specs.items() if s.skipped} == {"stubs_pkg.shapes.sized"}
    assert {"stubs_pkg.shapes.scale", "stubs_pkg.shapes.Box.grow", "pep561_pkg.units.clamp",
            "pep561_pkg.version"} <= set(specs)
