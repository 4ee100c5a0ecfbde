"""Hints from a `.pyi` stub next to a module: `corpus` fuzzes a module typed only by its stub."""

import sys
from pathlib import Path

import pytest

from mu2py.testgen.discovery import discover

KILL_SAMPLE = Path(__file__).resolve().parents[2] / "data" / "kill_sample"


@pytest.fixture
def stub_pkg(tmp_path, monkeypatch):
    """A package whose module has no annotations and a stub with overloads, a TypeVar and a typeshed-only import."""
    pkg = tmp_path / "stub_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "ops.py").write_text("def pad(text, width, fill=' '):\n    return text.rjust(width, fill)\n\n\n"
                                "def first(items, default=None):\n    return items[0] if items else default\n\n\n"
                                "def order(items, key):\n    return sorted(items, key=key)\n\n\n"
                                "class Box:\n    def __init__(self, size):\n        self.size = size\n\n"
                                "    def grow(self, by):\n        return self.size + by\n")
    (pkg / "ops.pyi").write_text(
        "from typing import TypeVar, overload\nfrom _typeshed import SupportsRichComparison\n\n"
        "_T = TypeVar('_T')\n\n"
        "@overload\ndef pad(text: str, width: int) -> str: ...\n"
        "@overload\ndef pad(text: bytes, width: int, fill: bytes) -> bytes: ...\n"
        "def first(items: list[int], default: _T | None = ...) -> int | _T | None: ...\n"
        "def order(items: list[int], key: SupportsRichComparison) -> list[int]: ...\n"
        "class Box:\n    def __init__(self, size: int) -> None: ...\n    def grow(self, by: int) -> int: ...\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield "stub_pkg.ops"
    for name in [n for n in sys.modules if n.startswith("stub_pkg")]:
        del sys.modules[name]


def test_stub_typed_module_is_fuzzed(stub_pkg):
    specs, _ = discover(stub_pkg)
    by_name = {s.name: s for s in specs}
    assert not by_name["pad"].skipped and "type hints from ops.pyi (overloads joined)" in by_name["pad"].notes
    hows = {p.name: p.how for p in by_name["pad"].params}
    assert hows["text"].startswith("from_type(Union[str, bytes])") and hows["width"].startswith("from_type(int)")
    assert not by_name["first"].skipped
    assert not by_name["Box.grow"].skipped
    assert [p.name for p in by_name["Box.grow"].init_params] == ["size"]
    # a hint naming what only a type checker has (_typeshed) is named, and the function left out
    assert "no type hint" in by_name["order"].skipped
    assert "stub hints not evaluated: key" in by_name["order"].notes


def test_the_sample_stub_module(monkeypatch):
    monkeypatch.syspath_prepend(str(KILL_SAMPLE))
    try:
        specs, _ = discover("kill_pkg.stubbed")
        [halve] = specs
        assert halve.strategy is not None and halve.params[0].how.startswith("from_type(int)")
    finally:
        for name in [n for n in sys.modules if n.startswith("kill_pkg")]:
            del sys.modules[name]
