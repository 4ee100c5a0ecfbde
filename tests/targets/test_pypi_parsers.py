"""The drivers over pure-Python PyPI parsers (jmespath, tinycss2): valid inputs, and literals that kill mutants."""

import ast
import json
import random

import pytest

from mu2py.cli.main import main
from mu2py.inputs.generators import StrategySource


def _draws(fn, count, seed):
    """`count` fresh inputs from the driver's strategy, drawn as `mu2py fuzz` draws them."""
    source, rng = StrategySource(fn.__mu2py_driver__.source), random.Random(seed)
    return [d.value for d in (source.decode((), rng) for _ in range(count)) if d is not None]


def _has_error_node(plain):
    """Whether a tinycss2 tree (as the driver renders it) holds a ParseError node."""
    if isinstance(plain, (list, tuple)):
        return bool(plain) and plain[0] == "error" or any(_has_error_node(item) for item in plain)
    return False


def _fuzz_and_replay(tmp_path, capsys, spec):
    """A short coverage-guided campaign (fixed seed, no mutants run); its corpus replayed on the original."""
    out = tmp_path / "out"
    assert main(["fuzz", spec, "--trials", "60", "--seed", "1", "--guidance", "coverage", "--no-judge",
                 "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["repro", spec, "--input", str(out / "corpus"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) >= 10 and all(row["outcome"] == "ok" for row in rows)
    return [ast.literal_eval(row["value_repr"]) for row in rows]


def _mutate(capsys, spec, module, *values):
    """`mu2py mutate` of one module of the target (the driver imports it) on `values`; its summary."""
    literals = [arg for value in values for arg in ("--value", repr(value))]
    assert main(["mutate", spec, "--targets", module, "--json", *literals]) == 0
    return json.loads(capsys.readouterr().out)["summary"]


def test_jmespath_inputs_mostly_valid(tmp_path, capsys):
    pytest.importorskip("jmespath")
    from targets.jmespath.driver import search

    outputs = [search(text) for text in _draws(search, 300, seed=0)]
    compiled = [out for out in outputs if out[0] == "ok"]
    assert len(compiled) >= 0.55 * len(outputs)  # about 0.7
    assert sum(out[6][0][0] == "ok" for out in compiled) >= 0.5 * len(outputs)  # searched the first document
    assert {out[1] for out in outputs if out[0] == "error"} >= {"ParseError", "LexerError"}
    corpus = _fuzz_and_replay(tmp_path, capsys, "targets.jmespath.driver:search")
    assert all(search(text) == search(text) for text in corpus)  # deterministic (the compile cache is purged)


def test_jmespath_literals_kill_lexer_mutants(capsys):
    pytest.importorskip("jmespath")
    summary = _mutate(capsys, "targets.jmespath.driver:search", "jmespath.lexer",  # (the driver lexes directly)
                      "{n: a.b.c[1:], m: people[?age >= `26`].name | [0]}", "\"q\\\"\" || `[1, 2]` && 'raw' != @[-1]")
    assert summary["killed"] >= 0.5 * summary["total"] > 100


def test_tinycss2_inputs_mostly_valid(tmp_path, capsys):
    pytest.importorskip("tinycss2")
    from targets.tinycss2.driver import parse

    outputs = [parse(text) for text in _draws(parse, 200, seed=0)]
    # valid: no ParseError node when read as a stylesheet or as a declaration list
    valid = [out for out in outputs if not _has_error_node(out[0]) or not _has_error_node(out[7])]
    assert len(valid) >= 0.55 * len(outputs)  # about 0.7
    colors = [c for out in outputs for kind, *c in out[4] if kind == "color"]
    assert sum(isinstance(levels[1], tuple) and levels[1][0] != "uncaught" for (levels,) in colors) >= 20
    corpus = _fuzz_and_replay(tmp_path, capsys, "targets.tinycss2.driver:parse")
    assert all(parse(text) == parse(text) for text in corpus)


def test_tinycss2_literals_kill_nth_mutants(capsys):
    pytest.importorskip("tinycss2")
    summary = _mutate(capsys, "targets.tinycss2.driver:parse", "tinycss2.nth",
                      "li:nth-child(2n+1), :nth-of-type(-n- 3) { a: b }", ":nth-child(odd):nth-last-child(+5) {}",
                      ":nth-child(-n+3):nth-child(3n-2):nth-child(EVEN):nth-child(n-1):nth-child(-2n- 4) {}")
    assert summary["killed"] >= 0.5 * summary["total"] > 100
