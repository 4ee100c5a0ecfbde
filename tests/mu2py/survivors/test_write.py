"""Rendering one readable pytest test per killing input."""

from mu2py.survivors.write import KillCase, render
from mu2py.testgen.render import Case
from mu2py.testgen.signatures import METHOD, FunctionSpec, Param


def _spec(name, params, kind="function", init=()):
    return FunctionSpec(module="pkg.mod", name=name, kind=kind,
                        params=[Param(p, False, False, "x") for p in params],
                        init_params=[Param(p, False, False, "x") for p in init])


def _mutant(line, original, mutated):
    return {"id": f"pkg.mod:{line}", "file": "/src/pkg/mod.py", "line": line, "original": original,
            "mutated": mutated, "operator": "boundary"}


def test_render_returns_raises_methods_and_pickles():
    clamp = _spec("clamp", ["x", "low"])
    box = _spec("Box.grow", ["by"], kind=METHOD, init=["size"])
    cases = [
        KillCase(clamp, Case("id_000001", {"x": -1, "low": 0}, expected=0), [_mutant(5, "x < low", "x <= low")]),
        KillCase(clamp, Case("id_000004", {"x": 2}, raises="ValueError"), [_mutant(7, "a", "b"), _mutant(8, "c", "d")]),
        KillCase(box, Case("id_000002", {"self": {"size": 2}, "by": 3}, expected=5), [_mutant(12, "+", "-")]),
        KillCase(clamp, Case("id_000009", {"x": float("nan")}, expected=[float("nan")]), [_mutant(9, "e", "f")]),
        KillCase(clamp, Case("id_000010", {"x": 1}, expected=complex(float("inf"), 1)), [_mutant(10, "g", "h")]),
    ]
    rendered = render("pkg.mod", cases, "mu2py kill --trials 10")
    source = rendered.source
    compile(source, "test_kill_pkg_mod.py", "exec")
    assert "from pkg.mod import Box, clamp" in source and "import pytest" in source
    assert "def test_clamp_1():\n    \"\"\"Kills 1 mutant the suite did not:\n    mod.py:5 `x < low` -> `x <= low`" \
        in source
    assert "    assert clamp(x=-1, low=0) == 0\n" in source
    assert "    with pytest.raises(ValueError):\n        clamp(x=2)\n" in source and "Kills 2 mutants" in source
    assert "    instance = Box(size=2)\n    assert instance.grow(by=3) == 5\n" in source
    assert "assert repr(actual) == repr(expected)" in source  # nan != nan
    assert "_PICKLED['test_clamp_4/expected']" in source and rendered.pickled is not None
    assert sorted(rendered.tests) == ["test_Box_grow_1", "test_clamp_1", "test_clamp_2", "test_clamp_3",
                                      "test_clamp_4"]
    assert render("pkg.mod", cases, "mu2py kill --trials 10").source == source  # same cases, same text


def test_an_exception_message_is_asserted_when_the_case_has_one():
    mean = _spec("mean", ["values"])
    cases = [KillCase(mean, Case("id_000003", {"values": []}, raises="ValueError", match="mean of (nothing)"),
                      [_mutant(22, "'mean of nothing'", "'XXmean of nothingXX'")]),
             KillCase(mean, Case("id_000005", {"values": [1]}, raises="TypeError"), [_mutant(23, "a", "b")])]
    source = render("pkg.mod", cases, "mu2py kill --trials 10").source
    compile(source, "test_kill_pkg_mod.py", "exec")
    assert "import re\n" in source
    # the message is matched literally: its parentheses are escaped
    assert "    with pytest.raises(ValueError, match=\"^\" + re.escape('mean of (nothing)') + \"$\"):\n" \
           "        mean(values=[])\n" in source
    assert "    with pytest.raises(TypeError):\n        mean(values=[1])\n" in source
    no_message = render("pkg.mod", cases[1:], "mu2py kill --trials 10").source
    assert "import re" not in no_message


def test_warnings_are_asserted_around_the_call_with_where_they_point():
    from mu2py.testgen.warned import ExpectedWarning

    old = _spec("old_total", ["values"])
    deprecated = ExpectedWarning("DeprecationWarning", None, "old, use new (see docs)", True)
    own = ExpectedWarning("pkg.errors.LegacyWarning", "pkg.errors", "legacy", False)
    cases = [KillCase(old, Case("id_000001", {"values": [1]}, expected=1, warns=(deprecated, own)),
                      [_mutant(8, "'old, use new (see docs)'", "'XXold, use new (see docs)XX'")]),
             KillCase(old, Case("id_000002", {"values": None}, raises="TypeError", warns=(own,)),
                      [_mutant(9, "2", "3")])]
    source = render("pkg.mod", cases, "mu2py kill --trials 10").source
    compile(source, "test_kill_pkg_mod.py", "exec")
    assert "import re\n" in source and "import pytest\n" in source and "from pkg.errors import LegacyWarning" in source
    # the message matched literally and whole; the call inside the block, the output and the rest checked after it
    assert ("    with pytest.warns(DeprecationWarning, match=\"^\" + re.escape('old, use new (see docs)') + \"$\")"
            " as warned:\n        actual = old_total(values=[1])\n    assert actual == 1\n") in source
    assert "and w.filename == __file__" in source  # stacklevel aimed at the caller: this file
    assert "    assert any(issubclass(w.category, LegacyWarning) and str(w.message) == 'legacy' for w in warned)\n" \
        in source
    # raising: pytest.raises inside pytest.warns, so the warnings are checked whether or not the call raised
    assert ("    with pytest.warns(LegacyWarning, match=\"^\" + re.escape('legacy') + \"$\") as warned:\n"
            "        with pytest.raises(TypeError):\n            old_total(values=None)\n") in source
