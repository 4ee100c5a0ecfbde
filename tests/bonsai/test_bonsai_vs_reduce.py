"""benchmarks/bonsai_vs_reduce.py at a tiny budget: the result's shape, and that reduction keeps coverage."""

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bonsai_vs_reduce", ROOT / "benchmarks" / "bonsai_vs_reduce.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def test_reduce_text_is_one_minimal(bench):
    keep = lambda text: "ab" in text and text.count("(") == text.count(")")  # noqa: E731
    assert bench.reduce_text("x(y\nab)z\n", keep) == "ab"
    assert bench.reduce_text("(ab)", lambda text: text.startswith("(") and text.endswith(")")) == "()"
    assert bench.mean_size(["a b\n", " c "]) == 1.5


def test_run_comparison_tiny(bench, tmp_path):
    result = bench.run_comparison("grammars/json.lark", "targets.json_decoder.driver:parse", bounds=(1, 2, 2),
                                  node_trials=5, seed=1, out=tmp_path)
    assert set(result) >= {"bonsai", "reduce", "ratios"}
    json.dumps(result)  # JSON-able, for scripts that call it
    bonsai, reduced = result["bonsai"], result["reduce"]
    assert bonsai["inputs"] > 0 and reduced["inputs"] > 0 and bonsai["cpu_seconds"] > 0
    # reduction keeps every arc of every input: coverage never drops, sizes never grow
    assert reduced["coverage"] >= reduced["before"]["coverage"]
    before = reduced["before"]
    assert reduced["inputs"] * reduced["mean_size"] <= before["inputs"] * before["mean_size"] + 0.1
    assert reduced["reduction_cpu_seconds"] >= 0
    assert "size ratio" in bench.format_report(result)
    with pytest.raises(ValueError, match="already holds"):
        bench.run_comparison("grammars/json.lark", "targets.json_decoder.driver:parse", node_trials=5, out=tmp_path)


def test_reduction_out_of_time_keeps_the_best_candidate_so_far(bench):
    calls = []

    def keep(text):
        calls.append(text)
        return "ab" in text

    # time runs out after 4 candidates: the smallest accepted one so far is the answer, no character pass
    out_of_time = lambda: len(calls) >= 4  # noqa: E731
    text = "x\ny\nab\nz\nw\nv\n"
    best = bench.reduce_text(text, keep, out_of_time)
    assert best == min((c for c in calls if "ab" in c), key=len) == "x\ny\nab\n"  # ddmin had not reached "ab"
    assert len(calls) == 4
    # out of time from the start: the text as it was
    assert bench.reduce_text(text, keep, lambda: True) == text


def test_progress_lines_name_the_phase_its_units_and_the_time(bench):
    import io
    import time

    stream = io.StringIO()
    progress = bench.Progress("cmp", every=0.02, stream=stream)
    progress.phase("lattice", 4, "nodes")
    progress.advance()
    time.sleep(0.1)
    progress.phase("reduce", 2, "inputs")
    progress.close()
    lines = stream.getvalue().splitlines()
    assert lines[0] == "cmp: lattice: 0/4 nodes, 0 s (total 0 s)"
    assert any(line.startswith("cmp: lattice: 1/4 nodes, ") for line in lines[1:])
    assert lines[-1].startswith("cmp: reduce: 0/2 inputs, ")


def test_targets_and_reduce_time_end_to_end(bench, tmp_path, capsys):
    argv = ["--targets", "json", "--bounds", "1,1,2", "--node-trials", "4", "--reduce-time", "0", "--seed", "1",
            "--out", str(tmp_path), "--json"]
    assert bench.main(argv) == 0
    out, err = capsys.readouterr()
    result = json.loads(out)["json"]
    reduced = result["reduce"]
    # no time to reduce: every fuzzed input is kept as it was, and the result says the reduction was cut
    assert reduced["cut"] and reduced["reduced_inputs"] == 0 and reduced["fuzzed_inputs"] > 0
    assert reduced["inputs"] == reduced["before"]["inputs"] and reduced["coverage"] == reduced["before"]["coverage"]
    assert "reduction CUT by --reduce-time 0 s: 0 of" in bench.format_report(result)
    assert (tmp_path / "json" / "result.json").is_file()
    phases = [line.split(": ")[1] for line in err.splitlines() if line.startswith("bonsai_vs_reduce json: ")]
    assert phases[:1] == ["lattice"] and {"fuzz", "reduce", "measure"} <= set(phases)
    with pytest.raises(SystemExit):
        bench.main(["--targets", "nope"])
    assert "--targets: unknown nope (choose from json, chocopy, expr, indent, python or all)" in capsys.readouterr().err
