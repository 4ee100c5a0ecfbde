"""Docstring types, the last place hints are looked for: Sphinx, Google and NumPy styles, simple types only."""

import sys
import typing
from pathlib import Path

import pytest

from mu2py.testgen.docstring_types import docstring_types, simple_type
from mu2py.testgen.hints import type_hints
from mu2py.testgen.signatures import infer_named

PROJECT = Path(__file__).resolve().parents[2] / "data" / "stubs_project"


def test_the_three_styles_as_text():
    assert docstring_types(":param int x: one\n:param y: two\n:type y: list[str]\n") == {"x": "int", "y": "list[str]"}
    google = "Do it.\n\nArgs:\n    x (dict[str, int]): one\n    y: no type\n    *args (int): rest\n\nReturns:\n" \
             "    z (str): not a parameter\n"
    assert docstring_types(google) == {"x": "dict[str, int]", "args": "int"}
    numpy = "Do it.\n\nParameters\n----------\nx, y : int\n    the terms : not an entry\nz : float, optional\n\n" \
            "Returns\n-------\nw : str\n"
    assert docstring_types(numpy) == {"x": "int", "y": "int", "z": "float, optional"}


@pytest.mark.parametrize(("text", "expected"), [
    ("int", int), ("str, optional", str), ("int, default 3", int), ("int or None", int | None),
    ("Optional[str]", typing.Optional[str]),  # noqa: UP045 - as a docstring may write it
    ("`float`", float), ("None", type(None)), ("collections.OrderedDict", __import__("collections").OrderedDict),
    ("list of int", None), ("array_like", None), ("int, float", None), ("len", None), ("f(x)", None),
    ("Missing", None),
])
def test_only_simple_types_count(text, expected):
    namespace = {"Optional": typing.Optional, "collections": __import__("collections")}
    assert simple_type(text, namespace) == expected


@pytest.fixture
def documented(monkeypatch):
    monkeypatch.syspath_prepend(str(PROJECT))
    import stubs_pkg.documented

    yield stubs_pkg.documented
    for name in [n for n in sys.modules if n.startswith("stubs_pkg")]:
        del sys.modules[name]


def test_a_module_typed_by_its_docstrings(documented):
    notes = []
    # Optional is the module's own import: docstring types resolve in the module's namespace
    assert type_hints(documented.sphinx, notes) == {"text": str, "times": int, "sep": typing.Optional[str]}  # noqa: UP045
    assert notes == ["type hints from the docstring: sep, text, times"]
    assert type_hints(documented.google, []) == {"values": list[int], "scale": float, "strict": bool | None}
    assert type_hints(documented.numpy, []) == {"a": int, "b": int}
    spec = infer_named("stubs_pkg.documented", "google")
    assert spec.skipped is None and spec.params[0].how.startswith("from_type(list[int])")


def test_inline_hints_and_stubs_win_over_the_docstring(documented):
    notes = []
    assert type_hints(documented.typed, notes) == {"count": int, "label": str}
    assert notes == ["type hints from documented.pyi"]
