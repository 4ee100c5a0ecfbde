"""The Bonsai lattice end to end on the JSON grammar and the standard library's JSON decoder."""

import json

from bonsai.bounds import Bounds
from bonsai.cli import main
from bonsai.lattice import lattice, run_lattice


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
