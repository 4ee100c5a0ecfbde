"""`bonsai sample`: output format, determinism, --out files, and one-line errors with exit status 2."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bonsai.cli import main
from bonsai.grammar import load_grammar
from bonsai.sample_command import split_inputs

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["json.lark", "expr.lark", "indent.lark"])
def test_sample_prints_inputs_that_read_back_and_parse(capsys, name):
    path = str(GRAMMARS / name)
    code, out, err = run(capsys, "sample", path, "--bounds", "2,2,2", "--count", "7", "--seed", "3")
    assert code == 0 and err == ""
    inputs = split_inputs(out)
    assert len(inputs) == 7
    grammar = load_grammar(path)
    for text in inputs:
        grammar.parse(text)
    assert out.startswith("# --- input 1 ---\n")


def test_same_seed_same_output_other_seed_differs(capsys):
    args = ["sample", str(GRAMMARS / "expr.lark"), "--bounds", "2,2,2", "--count", "20"]
    _, a, _ = run(capsys, *args, "--seed", "5")
    _, b, _ = run(capsys, *args, "--seed", "5")
    _, c, _ = run(capsys, *args, "--seed", "6")
    assert a == b and a != c


def test_start_rule_option(capsys):
    code, out, _ = run(capsys, "sample", str(GRAMMARS / "json.lark"), "--bounds", "1,1,1", "--start", "pair")
    assert code == 0
    grammar = load_grammar(GRAMMARS / "json.lark", start="pair")
    for text in split_inputs(out):
        assert ":" in text
        grammar.parse(text, "pair")


def test_out_dir_writes_one_file_per_input(capsys, tmp_path):
    out_dir = tmp_path / "corpus"
    code, out, _ = run(
        capsys,
        "sample",
        str(GRAMMARS / "json.lark"),
        "--bounds",
        "2,2,2",
        "--count",
        "4",
        "--out",
        str(out_dir),
    )
    assert code == 0
    files = sorted(out_dir.iterdir())
    assert [f.name for f in files] == [f"json_{i:04d}.txt" for i in range(1, 5)]
    assert out.split() == [str(f) for f in files]
    _, printed, _ = run(capsys, "sample", str(GRAMMARS / "json.lark"), "--bounds", "2,2,2", "--count", "4")
    assert [f.read_text() for f in files] == split_inputs(printed)
    assert not [p for p in out_dir.iterdir() if p.name.startswith(".")]  # no temp files left


def test_check_flag_and_idents_flag(capsys):
    code, out, _ = run(
        capsys,
        "sample",
        str(GRAMMARS / "expr.lark"),
        "--bounds",
        "1,2,2",
        "--count",
        "30",
        "--check",
        "--idents",
        "NAME",
    )
    assert code == 0 and len(split_inputs(out)) == 30


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["sample", "/no/such/grammar.lark", "--bounds", "1,1,1"], "not found"),
        (["sample", "JSON", "--bounds", "1,1"], "--bounds"),
        (["sample", "JSON", "--bounds", "a,b,c"], "--bounds"),
        (["sample", "JSON", "--bounds", "0,1,1"], "--bounds"),
        (["sample", "JSON", "--bounds", "1,1,1", "--start", "nope"], "unknown start rule"),
        (["sample", "BAD", "--bounds", "1,1,1"], "grammar error"),
        (["sample", "JSON", "--bounds", "1,1,1", "--count", "-1"], "--count"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, tmp_path, args, message):
    bad = tmp_path / "bad.lark"
    bad.write_text('start: "a" b\nb: ::\n')
    args = [str(GRAMMARS / "json.lark") if a == "JSON" else str(bad) if a == "BAD" else a for a in args]
    try:
        code = main(args)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_module_entry_point_and_help():
    done = subprocess.run(
        [sys.executable, "-m", "bonsai", "sample", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    assert "# --- input N ---" in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "bonsai", "sample", "missing.lark", "--bounds", "1,1,1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.startswith("bonsai: error:") and "Traceback" not in done.stderr


def test_split_inputs_keeps_empty_and_multiline_inputs():
    text = "# --- input 1 ---\n\n# --- input 2 ---\na\n  b\n\n# --- input 3 ---\nx\n"
    assert split_inputs(text) == ["", "a\n  b\n", "x"]


BAD_GRAMMARS = {
    "SYNTAX": 'start: "a" b\nb: ::\n',
    "UNPRODUCTIVE": 'start: "a" | b\nb: "(" b ")"\n',
    "CYCLE": 'start: x\nx: "a" y | "b" y\ny: "(" x ")"\n',
    "BADREGEX": "start: A\nA: /[/\n",
    "EMPTY": "// nothing but a comment\n",
}


def _bad_args(tmp_path, args):
    out = []
    for a in args:
        if a in BAD_GRAMMARS:
            path = tmp_path / f"{a.lower()}.lark"
            path.write_text(BAD_GRAMMARS[a])
            a = str(path)
        out.append(str(GRAMMARS / "json.lark") if a == "JSON" else str(tmp_path) if a == "DIR" else a)
    return out


def _one_line_exit_2(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == "" and "Traceback" not in err
    assert err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["SYNTAX"], "Expecting a value, at line 2 column 4"),
        (["UNPRODUCTIVE"], "rule 'b' cannot terminate within any bounds"),
        (["CYCLE"], "rule 'x' cannot terminate within any bounds"),
        (["BADREGEX"], "terminal A has an invalid regular expression /[/"),
        (["EMPTY"], "defines no rules"),
        (["DIR"], "is a directory"),
    ],
)
def test_sample_bad_grammar_one_line_exit_2(capsys, tmp_path, args, message):
    err = _one_line_exit_2(capsys, ["sample", *_bad_args(tmp_path, args), "--bounds", "1,1,1"])
    assert message in err


RUN = ["--target", "targets.json_decoder.driver:parse", "--node-trials", "2"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["SYNTAX", "--bounds", "1,1,1"], "Expecting a value, at line 2 column 4"),
        (["JSON", "--bounds", "1,1,1", "--start", "nope"], "unknown start rule 'nope'"),
        (["JSON", "--bounds", "1,0,1"], "lattice bounds must all be >= 1"),
        (["JSON", "--bounds", "0,1,1"], "--bounds"),
        (["JSON", "--bounds", "1,1,-1"], "--bounds"),
        (["UNPRODUCTIVE", "--bounds", "2,2,2"], "rule 'b' cannot terminate within any bounds"),
        (["BADREGEX", "--bounds", "1,1,1"], "terminal A has an invalid regular expression"),
        (["JSON", "--bounds", "1,1,1", "--workers", "0"], "--workers"),
        (["/no/such.lark", "--bounds", "1,1,1"], "grammar file not found"),
    ],
)
def test_run_bad_input_one_line_exit_2(capsys, tmp_path, args, message):
    err = _one_line_exit_2(capsys, ["run", *_bad_args(tmp_path, args), *RUN, "--out", str(tmp_path / "out")])
    assert message in err
    assert not (tmp_path / "out").exists()  # rejected before anything ran


@pytest.mark.parametrize("trials", ["0", "-3", "x"])
def test_run_rejects_non_positive_node_trials(capsys, tmp_path, trials):
    err = _one_line_exit_2(capsys, ["run", str(GRAMMARS / "json.lark"), "--bounds", "1,1,1", "--target",
                                    "targets.json_decoder.driver:parse", "--node-trials", trials, "--out",
                                    str(tmp_path / "o")])
    assert "--node-trials" in err


def test_distinct_gives_no_input_twice_and_stops_when_the_bounds_run_dry(capsys):
    args = ["sample", str(GRAMMARS / "json.lark"), "--count", "300", "--seed", "1"]
    assert main([*args, "--bounds", "3,3,3", "--distinct"]) == 0
    inputs = split_inputs(capsys.readouterr().out)
    assert len(inputs) == len(set(inputs)) == 300
    assert main([*args, "--bounds", "3,3,3"]) == 0
    plain = split_inputs(capsys.readouterr().out)
    assert len(set(plain)) < 300  # without the flag, small inputs repeat
    # at 1,1,1 json has few inputs: all of them, then a note (the count is not reached)
    assert main([*args, "--bounds", "1,1,1", "--distinct"]) == 0
    out, err = capsys.readouterr()
    few = split_inputs(out)
    assert len(few) == len(set(few)) < 300 and f"only {len(few)} distinct inputs" in err


def test_jsonl_reads_back_what_separators_cannot(capsys, tmp_path):
    # an input holding the separator line itself: the default format warns, --jsonl stays exact
    grammar = tmp_path / "sep.lark"
    grammar.write_text('start: "x\\n# --- input 2 ---\\n" WORD\nWORD: /[a-z]+/\n')
    args = ["sample", str(grammar), "--bounds", "1,1,1", "--count", "3"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert "input 1 holds a line like the separator" in err and err.count("\n") == 1
    assert len(split_inputs(out)) != 3  # what the warning is about
    assert main([*args, "--jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    texts = [json.loads(line) for line in lines]
    assert len(texts) == 3 and all(t.startswith("x\n# --- input 2 ---\n") for t in texts)


def test_items_bound_0_empties_optional_repetitions_and_keeps_required_ones(capsys, tmp_path):
    grammar = tmp_path / "reps.lark"
    grammar.write_text('start: "a" ["b"] "c"? ("d")* ("e")+ ("f")~2\n')
    assert main(["sample", str(grammar), "--bounds", "1,0,1", "--count", "5", "--jsonl"]) == 0
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == ["aeff"] * 5
    assert main(["sample", str(grammar), "--bounds", "1,2,1", "--count", "40", "--jsonl"]) == 0
    assert len(set(capsys.readouterr().out.splitlines())) > 1
