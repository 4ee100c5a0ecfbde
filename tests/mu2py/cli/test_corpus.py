"""`mu2py corpus` on tests/data/score_sample: inference, fuzzing, the generated pytest modules, scores, errors."""

import ast
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import strategies as st

import mu2py
from mu2py.cli.main import main
from mu2py.testgen.overrides import REGISTRY, strategy_for
from mu2py.testgen.render import Case, FunctionCases, literal, render
from mu2py.testgen.signatures import FunctionSpec, Param, infer

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_sample"
STRATEGIES = '''
from hypothesis import strategies as st

from mu2py import strategy_for

strategy_for("sample_pkg.extra.double", x=st.integers(-1000, 1000))


def kind(value):
    return type(value).__name__


strategy_for("sample_pkg.text.jitter", key=kind)
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("corpus") / "project"
    shutil.copytree(SAMPLE, root)
    (root / "corpus_strategies.py").write_text(STRATEGIES)
    return root


def _corpus(root, *args):
    # the mu2py under test (a worktree's, not the installed one), and nothing else of the caller's path
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(Path(mu2py.__file__).resolve().parents[2])
    proc = subprocess.run([sys.executable, "-m", "mu2py", "corpus", *args], cwd=root, capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    return proc


@pytest.fixture(scope="module")
def text_run(project):
    """One run over sample_pkg.text, shared by the tests that read its outputs."""
    proc = _corpus(project, "sample_pkg.text", "--trials", "300", "--seed", "3", "--out", "out_a", "--no-score")
    return proc, json.loads((project / "out_a" / "report.json").read_text())


def test_inference_report(text_run):
    proc, report = text_run
    skipped = {f["function"]: f["skipped"] for f in report["functions"] if f.get("skipped")}
    assert set(skipped) == {"sample_pkg.text.jitter", "sample_pkg.text.shout"}
    assert "not deterministic" in skipped["sample_pkg.text.jitter"]
    assert "parameter 'message': no type hint" in skipped["sample_pkg.text.shout"]
    fuzzed = {f["qualname"] for f in report["functions"] if "qualname" in f}
    assert fuzzed == {f"sample_pkg.text.{n}" for n in ("area", "clip", "grow", "initials", "letters", "ratio")}
    assert "sample_pkg.text._private" not in proc.stdout and "Box" not in fuzzed


def test_generated_tests_pass_and_kill(text_run, project):
    _, report = text_run
    tests = project / "out_a" / "tests"
    source = (tests / "test_corpus_sample_pkg_text.py").read_text()
    assert "def test_clip(arguments, expected):" in source and "pytest.raises(exception)" in source
    assert (tests / "test_corpus_sample_pkg_text.pickle").is_file()  # Box arguments have no literal form
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tests)], cwd=project,
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    cases = sum(f["cases"] for f in report["functions"] if "cases" in f)
    assert f"{cases} passed" in proc.stdout
    # the mutants of clip itself were run as module copies and killed by the oracle
    mutants = json.loads((project / "out_a" / "sample_pkg.text.clip" / "mutants.json").read_text())["mutants"]
    assert any(m["scope"] == "clip" and m["status"] == "killed" and m["operator"] != "constant" for m in mutants)
    assert sum(f["own_killed"] for f in report["functions"] if "own_killed" in f) >= 20


def test_same_seed_same_tests_with_workers(text_run, project):
    _corpus(project, "sample_pkg.text", "--trials", "300", "--seed", "3", "--out", "out_b", "--no-score",
            "--workers", "2")
    for name in ("test_corpus_sample_pkg_text.py", "test_corpus_sample_pkg_text.pickle"):
        assert (project / "out_a" / "tests" / name).read_bytes() == (project / "out_b" / "tests" / name).read_bytes()


@pytest.mark.skipif(sys.version_info < (3, 13), reason="the package suite scored once, on 3.13: CI's time (the 3.11 "
                    "suite runs kill end to end on kill_sample instead)")
def test_scores_with_the_package_suite(project):
    proc = _corpus(project, "sample_pkg.extra", "--strategies", "corpus_strategies", "--trials", "60",
                   "--out", "out_c", "--tests-out", "generated", "--suite", "tests")
    report = json.loads((project / "out_c" / "report.json").read_text())
    scores = {s["tests"]: s for s in report["scores"]}
    assert set(scores) == {"generated", "suite", "both"}
    assert all("error" not in s for s in scores.values()), scores
    assert scores["generated"]["detected"] > 0 and scores["suite"]["detected"] > 0
    union = report["union"]
    assert union["detected"] >= max(scores["generated"]["detected"], scores["suite"]["detected"])
    assert union["detected"] == scores["generated"]["detected"] + union["only_suite"]
    assert scores["both"]["detected"] >= union["detected"] - 1  # together: at least what either kills alone
    assert (project / "generated" / "test_corpus_sample_pkg_extra.py").is_file()
    assert "union of generated and suite" in proc.stdout


def test_output_key_makes_a_random_function_testable(project):
    _corpus(project, "sample_pkg.text:jitter", "--strategies", "corpus_strategies", "--trials", "30",
            "--out", "out_d", "--no-score")
    source = (project / "out_d" / "tests" / "test_corpus_sample_pkg_text.py").read_text()
    assert "from corpus_strategies import kind\n" in source and "from sample_pkg.text import jitter\n" in source
    assert "    actual = kind(jitter(**arguments))\n" in source
    assert ", 'int', id=" in source
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "out_d/tests"],
                          cwd=project, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.fixture
def in_process(project, monkeypatch):
    """Run `main` in this process against the copied sample; forget its modules afterwards."""
    monkeypatch.chdir(project)
    monkeypatch.syspath_prepend(str(project))
    before = set(sys.modules)
    yield
    for name in set(sys.modules) - before:
        if name.startswith(("sample_pkg", "corpus_strategies")):
            del sys.modules[name]


@pytest.mark.parametrize("args, message", [
    (["no_such_module_xyz"], "no module named 'no_such_module_xyz'"),
    (["sample_pkg.text:shout"], "sample_pkg.text.shout cannot be fuzzed: parameter 'message': no type hint"),
    (["sample_pkg.text:jitter"], "not deterministic"),
    (["sample_pkg.text:nope"], "no function 'nope' in module 'sample_pkg.text'"),
    (["sample_pkg.core:Counter.value"], "no public method 'Counter.value' in module 'sample_pkg.core'"),
    (["a:b:c"], "expected PKG[.module][:function]"),
    (["sample_pkg.text", "--strategies", "no_such_strategies"], "no module named 'no_such_strategies'"),
    (["sample_pkg.text", "--trials", "0"], "--trials must be at least 1"),
])
def test_bad_input_is_one_line(in_process, capsys, args, message):
    assert main(["corpus", "--trials", "5", "--out", "out_bad", "--no-score", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mu2py: error: ") and message in err and err.count("\n") == 1, err


def test_inference_rules():
    def f(a: int, b: str = "x", /, c: list[int] = None, *rest, d=3, e=None, **kw) -> None:
        return None

    spec = infer("mod", "f", f)
    assert spec.skipped is None and spec.positional == ("a", "b")
    how = {p.name: (p.optional, p.how) for p in spec.params}
    assert how == {"a": (False, "from_type(int)"), "b": (False, "from_type(str)"),
                   "c": (True, "from_type(list[int])"), "d": (True, "type of its default (int)")}
    assert any("e: default only" in n for n in spec.notes) and any("*args" in n for n in spec.notes)

    def g(x, y: int) -> int:
        return y

    assert infer("mod", "g", g).skipped.startswith("parameter 'x': no type hint")
    strategy_for("mod.g", x=st.just(1))
    try:
        assert infer("mod", "g", g).params[0].how == "registered strategy"
    finally:
        REGISTRY.pop("mod.g")


@pytest.mark.parametrize("value", [
    1, -0.0, 1e300, "a'\"\n", b"\x00", None, True, (1,), [1, (2, 3)], {"k": {1, 2}}, set(), {"b", "a"}, 3j,
])
def test_literals_round_trip(value):
    text = literal(value)
    assert text is not None and ast.literal_eval(text) == value and literal(ast.literal_eval(text)) == text


def test_values_without_literals():
    assert literal(frozenset()) is None and literal(object()) is None and literal(1 + math.inf * 1j) is None
    assert literal(math.nan) == "float('nan')"  # not a Python literal, but written as one (see testgen.evaluate)
    assert literal({"b", "a"}) == "{'a', 'b'}"  # sorted: the same set gives the same text in any process


class _Opaque:
    """A picklable value with neither a literal nor a repr that rebuilds it."""


def test_rendered_module_runs_with_positional_only_parameters_and_pickles():
    spec = FunctionSpec("operator", "truediv", params=[Param("a", True, False, "x"), Param("b", True, False, "x")])
    cases = FunctionCases(spec, [Case("id_0", {"a": 1, "b": 2}, expected=0.5),
                                 Case("id_1", {"a": 1, "b": 0}, raises="ZeroDivisionError"),
                                 Case("id_2", {"a": frozenset({1}), "b": 1}, raises="TypeError"),
                                 Case("id_3", {"a": 1.0, "b": 0.0}, raises="ZeroDivisionError"),
                                 Case("id_4", {"a": math.inf, "b": 1}, expected=math.inf),
                                 Case("id_5", {"a": math.nan, "b": 1}, expected=math.nan),
                                 Case("id_6", {"a": _Opaque(), "b": 1}, raises="TypeError")])
    source, pickled = render("operator", [cases], "mu2py corpus operator:truediv")
    assert "from operator import truediv\n" in source and "actual = truediv(arguments['a'], arguments['b'])" in source
    assert "{'a': float('inf'), 'b': 1}, float('inf'), id='id_4'" in source
    assert "{'a': float('nan'), 'b': 1}, float('nan'), id='id_5'" in source  # nan == nan by repr
    # a repr that is a call on literals is written as that call; one that is not (`<... object at 0x...>`) is pickled
    assert "pytest.param({'a': frozenset({1}), 'b': 1}, TypeError, id='id_2')" in source
    assert pickled is not None and "_PICKLED['truediv/id_6/arguments']" in source
    namespace = {"PICKLED": pickled}
    loader = 'pickle.loads((Path(__file__).parent / "test_corpus_operator.pickle").read_bytes())'
    assert loader in source
    exec(compile(source.replace(loader, "pickle.loads(PICKLED)"), "generated", "exec"), namespace)
    ran = []
    for test in ("test_truediv", "test_truediv_raises"):
        for param in namespace[test].pytestmark[0].args[1]:
            namespace[test](*param.values)
            ran.append(param.id)
    assert sorted(ran) == ["id_0", "id_1", "id_2", "id_3", "id_4", "id_5", "id_6"]
