"""The grammar targets of expr.lark and indent.lark: what they compute, and `bonsai run` on each at tiny budgets."""

import json
import random
from pathlib import Path

import pytest

from bonsai.cli import main
from targets.expr.driver import evaluate
from targets.grammar_source import bounded_source
from targets.indent.driver import tokens

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"


def test_expr_evaluates_exactly_with_fractions():
    program = "let a = 1.5 * (2 - 3)  # c\nprint a\na = a / 4\nprint if a <= 0 then round(a, 2) else b\nmax(1, 2) % 2"
    assert evaluate(program) == ("ok", "-3/2", "-19/50", "= 0")
    assert evaluate("let a = 1\na / 0")[:2] == ("error", "ZeroDivisionError")
    assert evaluate("b = 1") == ("error", "eval", "assignment to undeclared b")
    assert evaluate("print pow(2, 65)")[:2] == ("error", "eval")  # capped: nested powers would never finish
    assert evaluate("if 0 then a else 7") == ("ok", "= 7")  # the branch not taken is not evaluated


def test_indent_tokens_from_the_standard_tokenizer():
    got = tokens("if a:\n    pass\nb = 1\n")
    kinds = [t[0] for t in got]
    assert kinds[:6] == ["NAME", "NAME", "COLON", "NEWLINE", "INDENT", "NAME"] and "DEDENT" in kinds
    assert tokens("if a:\n    pass\n  b = 1\n")[:2] == ("error", "IndentationError")


@pytest.mark.parametrize(("grammar", "fn"), [("expr.lark", evaluate), ("indent.lark", tokens)])
def test_generated_inputs_run_without_failures(grammar, fn):
    gen = bounded_source(grammar)
    rng = random.Random(0)
    for _ in range(100):
        fn(gen.generate(rng).text)  # program errors are outputs; an exception here is a driver bug


@pytest.mark.parametrize(("grammar", "target", "modules"),
                         [("expr.lark", "targets.expr.driver:evaluate", ["fractions", "tokenize"]),
                          ("indent.lark", "targets.indent.driver:tokens", ["tokenize"])])
def test_bonsai_run_on_grammar_target(capsys, tmp_path, grammar, target, modules):
    out = tmp_path / "run"
    code = main(["run", str(GRAMMARS / grammar), "--target", target, "--bounds", "2,1,2", "--node-trials", "5",
                 "--out", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert stdout.startswith("final corpus:")
    summary = json.loads((out / "lattice.json").read_text())
    assert summary["modules"] == modules and summary["final"]["coverage"] > 100
    assert len(list((out / "final").glob("*.txt"))) == summary["final"]["inputs"] > 0
