"""The mu2py command line: readable output, JSON shape, and one-line errors for bad input."""

import json

import pytest

from mu2py.cli.main import main

SORT = "targets.insertion_sort.driver:sort"


def test_mutants_json(capsys):
    assert main(["mutants", SORT, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["total"] == len(data["mutants"]) > 20


def test_mutate_values_json(capsys):
    assert main(["mutate", SORT, "--value", "[3, 2, 1]", "--json", "--timeout", "0.2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["summary"]["killed"] > 20
    killed = [m for m in data["mutants"] if m["status"] == "killed"]
    assert all(m["reason"] in ("output", "exception", "timeout") and m["input"] for m in killed)


def test_repeated_inputs_get_distinct_labels(capsys):
    assert main(["mutate", SORT, "--value", "[3, 2, 1]", "--value", "[3, 2, 1]", "--value", "[1]", "--json",
                 "--timeout", "0.2"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inputs"] == ["--value [3, 2, 1]", "--value [3, 2, 1] (#2)", "--value [1]"]


def test_fuzz_then_mutate_and_repro(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["fuzz", SORT, "--trials", "50", "--out", str(out), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["repro", SORT, "--input", str(out / "corpus"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["outcome"] == "ok" for r in rows)
    assert main(["mutate", SORT, "--input", str(out / "corpus"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["summary"]["killed"] > 20


@pytest.mark.parametrize("argv, message", [
    (["mutants", "no_such_module_xyz"], "no module named"),
    (["mutate", "targets.insertion_sort.driver:nope", "--value", "1"], "not found"),
    (["mutate", SORT], "give inputs"),
    (["mutate", SORT, "--value", "[1,"], "not a Python literal"),
    (["fuzz", SORT], "budget"),
])
def test_bad_input_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_target_raising_on_import_and_syntax_error(tmp_path, capsys, monkeypatch):
    (tmp_path / "broken_pkg").mkdir()
    (tmp_path / "broken_pkg" / "__init__.py").write_text("raise RuntimeError('boom')\n")
    (tmp_path / "bad_syntax.py").write_text("def f(:\n")
    (tmp_path / "empty.bin").write_bytes(b"")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["mutants", "broken_pkg"]) == 2
    assert "RuntimeError: boom" in capsys.readouterr().err
    assert main(["mutants", "bad_syntax"]) == 2
    assert "syntax error" in capsys.readouterr().err
    assert main(["mutate", SORT, "--input", str(tmp_path / "empty.bin")]) == 2
    assert "is empty" in capsys.readouterr().err


def test_props_per_input_takes_zero_as_documented_and_refuses_negatives(capsys):
    from mu2py.cli.main import build_parser

    parser = build_parser()
    assert parser.parse_args(["props", "--per-input", "0"]).per_input == 0  # 0: every infected mutant
    with pytest.raises(SystemExit):
        parser.parse_args(["props", "--per-input", "-1"])
    assert "at least 0" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["score", "kill", "props"])
def test_commands_name_the_project_alike(command):
    from mu2py.cli.main import build_parser

    args = build_parser().parse_args([command, "--paths", "src/pkg", "--root", "proj"])
    assert (args.paths, args.package, args.root) == (["src/pkg"], None, "proj")


VIA = {
    "__init__.py": "",
    "core.py": "def double(x):\n    return x * 2\n",
    "api.py": "from via_pkg.core import double\n\n\ndef run(x):\n    return double(x)\n",
    "drivers.py": (
        "from hypothesis import strategies as st\n\nfrom mu2py import driver\nfrom via_pkg import api, core\n\n\n"
        "@driver(st.integers(0, 9), targets=['via_pkg.core'])\ndef through_api(x):\n    return api.run(x)\n\n\n"
        "@driver(st.integers(0, 9), targets=['via_pkg.core'])\ndef direct(x):\n    return core.double(x)\n"
    ),
}


def test_a_driver_that_never_reaches_its_targets_is_told_why(tmp_path, capsys, monkeypatch):
    """`api` is no target: calling through it runs the original `core`, so the campaign can kill nothing."""
    (tmp_path / "via_pkg").mkdir()
    for name, text in VIA.items():
        (tmp_path / "via_pkg" / name).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert main(["fuzz", "via_pkg.drivers:through_api", "--trials", "30", "--seed", "1", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "warning: no input reached the code of via_pkg.core" in out and "targets=[...]" in out
    assert main(["fuzz", "via_pkg.drivers:direct", "--trials", "30", "--seed", "1", "--quiet"]) == 0
    assert "no input reached" not in capsys.readouterr().out


def test_a_reader_that_goes_away_costs_no_traceback():
    """`mu2py mutants ... --json | head -c 100`: the pipe closes under a long report; one exit, nothing on stderr."""
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-m", "mu2py", "mutants", "targets.json_decoder.driver:parse", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(100)
    proc.stdout.close()  # the report is far longer than a pipe holds: the next write fails
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0  # as bonsai's
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
