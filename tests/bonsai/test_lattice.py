"""The Bonsai lattice end to end on the JSON grammar and the standard library's JSON decoder."""

import json

import pytest

from bonsai.bounds import Bounds
from bonsai.cli import main
from bonsai.generator import BoundedGenerator
from bonsai.grammar import GrammarLoadError, load_grammar
from bonsai.lattice import lattice, run_lattice
from bonsai.target import function_target
from mu2py.feedback.coverage import corpus_coverage


def test_lattice_shape():
    graph = lattice(Bounds(2, 2, 2))
    assert len(graph) == 8 and graph.in_degree((1, 1, 1)) == 0 and graph.out_degree((2, 2, 2)) == 0
    assert set(graph.predecessors((2, 2, 2))) == {(1, 2, 2), (2, 1, 2), (2, 2, 1)}


def test_run_lattice_writes_nodes_and_final(tmp_path):
    out = tmp_path / "lat"
    summary = run_lattice("grammars/json.lark", "targets.json_decoder.driver:parse", Bounds(2, 2, 2),
                          trials=40, seed=1, out=out)
    assert len(summary["nodes"]) == 8
    finals = sorted((out / "final").glob("*.txt"))
    assert finals and len(finals) == summary["final"]["inputs"]
    for path in finals:
        json.loads(path.read_text())  # every final input is valid JSON (the grammar is RFC 8259)
    again = run_lattice("grammars/json.lark", "targets.json_decoder.driver:parse", Bounds(2, 2, 2),
                        trials=40, seed=1, out=out)  # resumed: every node is loaded, not re-run
    assert again["final"] == summary["final"]


def test_cli_run_bad_target(tmp_path, capsys):
    code = main(["run", "grammars/json.lark", "--target", "no.such.module:f", "--bounds", "1,1,1",
                 "--node-trials", "5", "--out", str(tmp_path / "x")])
    assert code == 2 and "no module named" in capsys.readouterr().err


# ------------------------------------------------------------ a node never loses its predecessors' coverage


def _assert_monotone(summary):
    coverage = {tuple(n["node"]): n["coverage"] for n in summary["nodes"]}
    for a, b in summary["edges"]:
        assert coverage[tuple(b)] >= coverage[tuple(a)], (a, coverage[tuple(a)], b, coverage[tuple(b)])


def test_node_coverage_is_at_least_each_predecessors_json(tmp_path):
    # 3 trials per node is fewer than most nodes' seeds: every seed must still be replayed
    summary = run_lattice("grammars/json.lark", "targets.json_decoder.driver:parse", Bounds(2, 2, 3),
                          trials=3, seed=2, out=tmp_path / "lat")
    _assert_monotone(summary)
    seeds: set[tuple[int, ...]] = set()
    for pred in ("1_2_3", "2_1_3", "2_2_2"):
        done = json.loads((tmp_path / "lat" / "nodes" / pred / "done.json").read_text())
        seeds.update(tuple(c) for c in done["corpus"])
    top = next(n for n in summary["nodes"] if tuple(n["node"]) == (2, 2, 3))
    assert len(seeds) > 3 and top["trials"] == 3 + len(seeds)


def test_node_coverage_is_at_least_each_predecessors_chocopy(tmp_path):
    summary = run_lattice("grammars/chocopy.lark", "targets.chocopy.driver:typecheck", Bounds(1, 2, 2),
                          trials=8, seed=0, out=tmp_path / "lat")
    _assert_monotone(summary)


def test_final_coverage_replays_to_the_top_nodes(tmp_path):
    out = tmp_path / "lat"
    summary = run_lattice("grammars/json.lark", "targets.json_decoder.driver:parse", Bounds(2, 2, 2),
                          trials=15, seed=3, out=out)
    target = function_target("targets.json_decoder.driver:parse", None, modules=summary["modules"])
    texts = [p.read_text() for p in sorted((out / "final").glob("*.txt"))]
    assert corpus_coverage(target, texts) == summary["final"]["coverage"]


# ------------------------------------------------------------ one module set for every node


def _lazy_package(tmp_path, monkeypatch, name):
    pkg = tmp_path / name
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helper.py").write_text("def size(text):\n    return len(text)\n")
    (pkg / "driver.py").write_text(
        "def f(text):\n    from " + name + " import helper  # imported on first call only\n"
        "    return helper.size(text)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))


def test_lazily_imported_modules_are_measured_from_the_first_node_on(tmp_path, monkeypatch):
    _lazy_package(tmp_path, monkeypatch, "bonsai_lazy_pkg")
    generator = BoundedGenerator(load_grammar("grammars/json.lark"), Bounds(1, 1, 1))
    target = function_target("bonsai_lazy_pkg.driver:f", generator)  # warm-up call imports the helper
    assert [m.name for m in target.modules] == ["bonsai_lazy_pkg", "bonsai_lazy_pkg.helper"]
    named = function_target("bonsai_lazy_pkg.driver:f", None, modules=["bonsai_lazy_pkg.helper"])
    assert [m.name for m in named.modules] == ["bonsai_lazy_pkg.helper"]
    summary = run_lattice("grammars/json.lark", "bonsai_lazy_pkg.driver:f", Bounds(1, 1, 2), trials=3,
                          seed=0, out=tmp_path / "lat")
    assert summary["modules"] == ["bonsai_lazy_pkg", "bonsai_lazy_pkg.helper"]


# ------------------------------------------------------------ bad input from the Python API


def test_api_rejects_bounds_under_one(tmp_path):
    with pytest.raises(ValueError, match="must all be >= 1"):
        run_lattice("grammars/json.lark", "targets.json_decoder.driver:parse", Bounds(1, 0, 1), trials=1,
                    out=tmp_path / "x")
    with pytest.raises(ValueError, match="must all be >= 1"):
        lattice(Bounds(2, 0, 2))


@pytest.mark.parametrize(
    ("text", "start", "message"),
    [
        ('start: "a" b\nb: ::\n', None, r"grammar error in .*bad\.lark: Expecting a value, at line 2 column 4"),
        ('start: "a"\n', "nope", "unknown start rule 'nope'"),
        ('start: "a" | b\nb: "(" b ")"\n', None, "rule 'b' cannot terminate"),
        ("start: A\nA: /[/\n", None, "terminal A has an invalid regular expression"),
    ],
)
def test_api_bad_grammar_raises_grammar_load_error(tmp_path, text, start, message):
    bad = tmp_path / "bad.lark"
    bad.write_text(text)
    with pytest.raises(GrammarLoadError, match=message) as info:
        run_lattice(str(bad), "targets.json_decoder.driver:parse", Bounds(1, 1, 1), trials=1, start=start,
                    out=tmp_path / "x")
    assert "\n" not in str(info.value)
    assert not (tmp_path / "x").exists()  # nothing ran
