"""`bonsai run` as a user meets it: plain functions and --targets, the current directory, coverage warnings,
failures and exit 3, cheap resumes, one-line errors."""

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import bonsai.lattice as lattice_module
import bonsai.node
import bonsai.runner
import mu2py.fuzz.fuzzer
from bonsai.bounds import Bounds
from bonsai.cli import main
from bonsai.cli_args import EXIT_FAILURES, EXIT_INTERRUPTED
from bonsai.grammar import load_grammar
from bonsai.lattice import run_lattice
from bonsai.target import invisible_code_warning
from mu2py.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
GRAMMARS = ROOT / "grammars"
JSON = str(GRAMMARS / "json.lark")
INI = str(GRAMMARS / "ini.lark")

INI_WRAPPER = '''import configparser


def parse(text):
    parser = configparser.ConfigParser()
    parser.read_string(text)
    return {name: dict(parser[name]) for name in parser.sections()}
'''


def _module(folder: Path, dotted: str, text: str) -> None:
    """Write module `dotted` under `folder` (packages get an empty __init__.py)."""
    *packages, name = dotted.split(".")
    for i in range(len(packages)):
        init = folder.joinpath(*packages[: i + 1], "__init__.py")
        init.parent.mkdir(parents=True, exist_ok=True)
        init.touch()
    folder.joinpath(*packages, name + ".py").write_text(text)


def _bonsai(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    """`python -m bonsai ...` run from `cwd`, with only this checkout on PYTHONPATH and output piped."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "bonsai", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False, timeout=300)


def test_plain_function_in_the_current_directory_with_targets_reports_failures_and_resumes(tmp_path, monkeypatch,
                                                                                          capsys):
    # a module in the current directory, not on PYTHONPATH: found by the command and by its worker processes
    _module(tmp_path, "ini_wrap_cwd", INI_WRAPPER)
    argv = ["run", INI, "--target", "ini_wrap_cwd:parse", "--targets", "configparser", "--bounds", "1,2,2",
            "--node-trials", "12", "--out", "out", "--workers", "2"]
    done = _bonsai(tmp_path, *argv)
    assert done.returncode == EXIT_FAILURES, done.stderr
    assert "Traceback" not in done.stderr
    # progress: one plain line per node on stderr, whole even when piped
    lines = [line.split(":")[0] for line in done.stderr.splitlines() if line.startswith("node ")]
    assert lines[0] == "node 1/4 F(1,1,1)" and lines[3] == "node 4/4 F(1,2,2)"
    # the middle generation's two nodes, each reported as it finishes
    assert [line[:8] for line in lines[1:3]] == ["node 2/4", "node 3/4"]
    assert {line[9:] for line in lines[1:3]} == {"F(1,1,2)", "F(1,2,1)"}
    summary = json.loads((tmp_path / "out" / "lattice.json").read_text())
    assert summary["modules"] == ["configparser"] and summary["final"]["coverage"] > 100
    # with one section name, a second section repeats it: configparser raises, and the end says so
    assert "failures: the target raised on inputs" in done.stdout
    assert "configparser.DuplicateSectionError at " in done.stdout
    assert "[line " in done.stdout  # configparser's message keeps its brackets
    listed = [line.rpartition(" -> ")[2] for line in done.stdout.splitlines() if line.startswith("  ")]
    assert len(listed) == len(summary["failures"]) > 0
    for path in listed:
        text = (tmp_path / path).read_text()
        assert text.count("[a]") >= 1  # the failing input itself, brackets and all
        load_grammar(INI).parse(text[:-1])  # the .txt holds the input and a newline
    # the same command again (here, in-process): every node is read back, nothing runs, the failures come again
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))  # main puts the current directory first
    assert main(argv) == EXIT_FAILURES
    out, err = capsys.readouterr()
    assert "resumed: 4 of 4 nodes already done in out" in err
    assert not [line for line in err.splitlines() if line.startswith("node ")]
    assert out == done.stdout


def test_plain_function_in_a_package_warns_when_coverage_stays_0(tmp_path, monkeypatch, capsys):
    _module(tmp_path, "bonsai_cov0_pkg.wrap", "import json\n\n\ndef parse(text):\n    return json.loads(text)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    base = ["run", JSON, "--target", "bonsai_cov0_pkg.wrap:parse", "--bounds", "1,1,1", "--node-trials", "4"]
    assert main([*base, "--out", str(tmp_path / "a")]) == 0
    err = capsys.readouterr().err
    assert "bonsai: warning: coverage stayed 0" in err and "own package (bonsai_cov0_pkg)" in err
    assert "--targets MOD[,MOD...]" in err
    # json.loads parses in C (_json): the Python lines it runs never depend on the input
    assert main([*base, "--targets", "json", "--out", str(tmp_path / "b")]) == 0
    out, err = capsys.readouterr()
    assert "coverage stayed 0" not in err and "coverage never grew past the first input" in err
    assert "final corpus: 1 inputs" in out


def _one_line_exit_2(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, err
    assert out == "" and "Traceback" not in err and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize(
    ("target", "targets", "message"),
    [
        ("bonsai_top_level_t:parse", None, "is not in a package, so bonsai cannot guess whose coverage counts: name "
                                           "the modules the function exercises with --targets MOD[,MOD...] "
                                           "(e.g. --targets configparser)"),
        ("bonsai_top_level_t:parse", "_csv", "module '_csv' is compiled"),
        ("bonsai_top_level_t:parse", "sys", "module 'sys' is built into the interpreter"),
        ("bonsai_top_level_t:parse", "bonsai_top_level_t", "the module the target function is taken from"),
        ("bonsai_top_level_t:parse", " , ", "--targets: expected comma-separated module names"),
        ("bonsai_top_level_t:nope", "json", "function 'nope' not found in module 'bonsai_top_level_t'"),
        ("bonsai_raises_t:parse", "json", "importing 'bonsai_raises_t' raised RuntimeError: no [config] here"),
        ("bonsai_syntax_t:parse", "json", "syntax error in "),
        ("bonsai_no_such_module_t:parse", "json", "no module named 'bonsai_no_such_module_t'"),
    ],
)
def test_targets_that_cannot_be_measured_are_one_line_errors(tmp_path, monkeypatch, capsys, target, targets, message):
    _module(tmp_path, "bonsai_top_level_t", "import configparser\n\n\ndef parse(text):\n    return len(text)\n")
    _module(tmp_path, "bonsai_raises_t", "raise RuntimeError('no [config] here')\n")
    _module(tmp_path, "bonsai_syntax_t", "def parse(text)\n    return 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["run", JSON, "--target", target, "--bounds", "1,1,1", "--node-trials", "2", "--out", str(tmp_path / "o")]
    err = _one_line_exit_2(capsys, argv + (["--targets", targets] if targets else []))
    assert err.startswith("bonsai: error: ") and message in err
    assert not (tmp_path / "o").exists()


def test_brackets_in_paths_and_messages_print_as_they_are(tmp_path, capsys):
    err = _one_line_exit_2(capsys, ["sample", str(tmp_path / "g[a].lark"), "--bounds", "1,1,1"])
    assert "g[a].lark" in err
    code = main(["sample", INI, "--bounds", "1,1,1", "--count", "40", "--seed", "2"])
    out = capsys.readouterr().out
    assert code == 0 and "[a]\n" in out


def test_builtin_target_function_is_named_invisible():
    import binascii  # noqa: F401 - the warning looks the function up among loaded modules

    assert "builtin or C function" in invisible_code_warning("binascii:crc32")
    assert invisible_code_warning("json:loads") is None
    assert invisible_code_warning("targets.json_decoder.driver:parse") is None  # a driver: its function is Python


def test_resume_reads_done_markers_and_loads_no_target(tmp_path, monkeypatch):
    out = tmp_path / "lat"
    spec = "targets.json_decoder.driver:parse"
    first = run_lattice(JSON, spec, Bounds(1, 1, 2), trials=3, seed=4, out=out)
    assert json.loads((out / "run.json").read_text())["modules"] == first["modules"]

    def forbidden(*_args, **_kwargs):
        raise AssertionError("a finished lattice must load no target, start no pool and run no node")

    with monkeypatch.context() as patch:
        patch.setattr(lattice_module, "function_target", forbidden)
        patch.setattr(bonsai.node, "function_target", forbidden)
        patch.setattr(bonsai.runner.NodeRunner, "run", forbidden)
        patch.setattr(mu2py.fuzz.fuzzer, "Fuzzer", forbidden)
        lines: list[str] = []
        again = run_lattice(JSON, spec, Bounds(1, 1, 2), trials=3, seed=4, out=out, workers=2, progress=lines.append)
    assert lines == [f"resumed: 2 of 2 nodes already done in {out}"]
    assert again["final"] == first["final"] and again["modules"] == first["modules"]
    # a lost top node runs again alone, from its predecessor's record
    (out / "nodes" / "1_1_2" / "done.json").unlink()
    lines.clear()
    third = run_lattice(JSON, spec, Bounds(1, 1, 2), trials=3, seed=4, out=out, progress=lines.append)
    assert lines[0] == f"resumed: 1 of 2 nodes already done in {out}" and lines[1].startswith("node 2/2 F(1,1,2)")
    assert third["final"] == first["final"]
    # another experiment than the finished nodes': refused, not mixed
    with pytest.raises(UserError, match="holds a lattice grown with another --targets"):
        run_lattice(JSON, spec, Bounds(1, 2, 2), trials=3, seed=4, out=out, targets=["json"])
    other = tmp_path / "json2.lark"
    other.write_text(Path(JSON).read_text() + "\n// edited\n")
    with pytest.raises(UserError, match="holds a lattice grown with another grammar text"):
        run_lattice(str(other), spec, Bounds(1, 1, 2), trials=3, seed=4, out=out)
    record = json.loads((out / "run.json").read_text())
    (out / "run.json").write_text(json.dumps({**record, "targets": ["json"], "modules": ["json"]}))
    with pytest.raises(UserError, match="measured on modules json, but this run measures json, json.decoder"):
        run_lattice(JSON, spec, Bounds(1, 2, 2), trials=3, seed=4, out=out, targets=["json"])


def test_ctrl_c_in_run_says_where_the_work_is(tmp_path, monkeypatch, capsys):
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(lattice_module, "run_lattice", interrupted)
    code = main(["run", JSON, "--target", "targets.json_decoder.driver:parse", "--bounds", "1,1,1",
                 "--node-trials", "2", "--out", str(tmp_path / "o")])
    assert code == EXIT_INTERRUPTED
    assert "finished nodes are kept in" in capsys.readouterr().err


def test_run_help_documents_exit_codes_and_plain_functions(capsys):
    with pytest.raises(SystemExit) as info:
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert "--targets MOD[,MOD...]" in out and "3 the target raised on some inputs" in out
    assert "A plain function" in out and "examples:" in out


class _InProcessExecutor:
    """The executor contract `run_lattice(cluster=...)` uses, run here in reverse order (as a cluster may finish)."""

    def map_unordered(self, fn, units):
        for k in reversed(range(len(units))):
            yield k, fn(units[k])


def test_cluster_nodes_bring_their_failures_back(tmp_path, monkeypatch):
    _module(tmp_path, "ini_wrap_cluster_t", INI_WRAPPER)
    monkeypatch.syspath_prepend(str(tmp_path))
    args = (INI, "ini_wrap_cluster_t:parse", Bounds(1, 2, 1))
    kwargs = {"trials": 10, "seed": 1, "targets": ["configparser"]}
    local = run_lattice(*args, out=tmp_path / "local", **kwargs)
    remote = run_lattice(*args, out=tmp_path / "remote", cluster=_InProcessExecutor(), **kwargs)
    assert remote["nodes"] == local["nodes"] and local["failures"]
    assert [f["exception"] for f in remote["failures"]] == [f["exception"] for f in local["failures"]]
    # the client wrote each remote node's failure files where a local node writes them
    files = [sorted(p.relative_to(tmp_path / name) for p in (tmp_path / name / "nodes").glob("*/failures/*"))
             for name in ("local", "remote")]
    assert files[0] and files[0] == files[1]


WARNING_LIB = '''import warnings


def check(text):
    warnings.warn("odd input", SyntaxWarning)
    if "," in text:
        warnings.warn("a comma", DeprecationWarning)
    return len(text)
'''


def test_target_warnings_are_counted_not_shown(tmp_path, monkeypatch, capsys):
    # every run warns: in this process (the warm-up, workers=1) and in worker processes, nothing reaches stderr
    _module(tmp_path, "bonsai_warn_pkg.lib", WARNING_LIB)
    _module(tmp_path, "bonsai_warn_pkg.wrap", "from bonsai_warn_pkg.lib import check\n\n\ndef parse(text):\n"
                                              "    return check(text)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    argv = ["run", JSON, "--target", "bonsai_warn_pkg.wrap:parse", "--bounds", "1,2,2", "--node-trials", "6"]
    with warnings.catch_warnings(record=True) as leaked:
        warnings.simplefilter("always")
        assert main([*argv, "--out", str(tmp_path / "a")]) == 0
    assert not leaked
    out, err = capsys.readouterr()
    assert "Warning" not in err
    summary = json.loads((tmp_path / "a" / "lattice.json").read_text())
    counts = summary["target_warnings"]
    per_node = sum(n["warnings"].get("SyntaxWarning", 0) for n in summary["nodes"])
    # one per execution: each node runs its seeds and its trials (less duplicates), plus the one warm-up call
    assert counts["SyntaxWarning"] == per_node + 1 and per_node >= len(summary["nodes"])
    assert 0 < counts["DeprecationWarning"] < counts["SyntaxWarning"]
    assert f"target warnings: SyntaxWarning {counts['SyntaxWarning']}, DeprecationWarning " in out
    done = _bonsai(tmp_path, *argv, "--workers", "2", "--out", "b")
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr and "target warnings: SyntaxWarning " in done.stdout
    assert json.loads((tmp_path / "b" / "lattice.json").read_text())["target_warnings"] == counts
