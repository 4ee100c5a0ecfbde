"""benchmarks/bonsai_vs_reduce.py at a tiny budget: the result's shape, and that reduction keeps coverage."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bonsai_vs_reduce", ROOT / "benchmarks" / "bonsai_vs_reduce.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


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
