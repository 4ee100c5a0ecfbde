"""The Python API (`mu2py.score`, `mu2py.mutate`, ...) gives what the commands' --json prints, and prints nothing."""

import json
import os
import re
import shutil
import sys
from pathlib import Path

import pytest

import mu2py
from mu2py.cli.main import main
from mu2py.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "tests" / "data" / "score_sample"
SORT = "targets.insertion_sort.driver:sort"


# differ run to run: timings only, and a timeout's limit in its failure (each test's timeout follows its baseline
# time); a mutant's status, the test that killed it, its failure and how many tests ran may not: a unit's tests run
# in collection order, whatever its worker judged before
_RUN_TO_RUN = ("seconds", "baseline_seconds", "time")
_LIMIT = re.compile(r"(timed out after |overran the )[0-9.]+ ?s")


def _untimed(value):
    """A report without what differs run to run (see `_RUN_TO_RUN`)."""
    if isinstance(value, dict):
        return {k: _untimed(v) for k, v in value.items() if k not in _RUN_TO_RUN}
    if isinstance(value, list):
        return [_untimed(v) for v in value]
    if isinstance(value, str):
        return _LIMIT.sub(r"\1N s", value)
    return value


def _docs_examples() -> list[str]:
    """The Python code blocks of the docs' "Python API" page (docs/api.md), in order."""
    page = (ROOT / "docs" / "api.md").read_text()
    return re.findall(r"```python\n(.*?)```", page, re.S)


def _docs_example() -> str:
    """The first Python code block of docs/api.md (`score` and `mutate`)."""
    return _docs_examples()[0]


def _run_example(code: str, where: Path) -> tuple[dict, str]:
    """Run a docs example in `where` (the current directory, and first on sys.path as in a REPL started there)."""
    import contextlib
    import io
    import sys

    printed = io.StringIO()
    cwd, path, modules = os.getcwd(), list(sys.path), set(sys.modules)
    os.chdir(where)
    sys.path.insert(0, str(where))
    try:
        with contextlib.redirect_stdout(printed):
            names: dict = {}
            exec(compile(code, "docs/api.md", "exec"), names)
    finally:
        os.chdir(cwd)
        sys.path[:] = path
        for name in set(sys.modules) - modules:  # the example's project modules: another copy may come next
            if name.startswith(("sample_pkg", "frames")):
                del sys.modules[name]
    return names, printed.getvalue()


@pytest.fixture(scope="module")
def docs_run(tmp_path_factory):
    """The docs' example, run where `project` is a copy of the score sample; its names and what it printed."""
    import contextlib
    import io
    import os

    where = tmp_path_factory.mktemp("api")
    shutil.copytree(SAMPLE, where / "project")
    printed = io.StringIO()
    cwd = os.getcwd()
    os.chdir(where)
    try:
        with contextlib.redirect_stdout(printed):
            names: dict = {}
            exec(compile(_docs_example(), "docs/api.md", "exec"), names)
    finally:
        os.chdir(cwd)
    return where / "project", names, printed.getvalue()


def test_the_docs_example_runs(docs_run):
    _, names, printed = docs_run
    assert isinstance(names["result"], mu2py.api.ScoreResult)
    assert re.match(r"score \d+\.\d%: exit code 0\n", printed)
    assert "@@" in printed  # a survivor's diff
    assert re.search(r"\.py:\d+ survived \d+ tests\n", printed)


def test_the_typed_mutants_are_the_report_s(docs_run):
    from mu2py.score.verdicts import Status

    result = docs_run[1]["result"]
    mutants = result.mutants
    assert [m.id for m in mutants] == [e["id"] for e in result.report["mutants"]]
    assert {m.status for m in mutants} <= set(Status)
    counted = {status: sum(m.status is status for m in mutants) for status in Status}
    summary = result.report["summary"]
    assert (counted[Status.KILLED], counted[Status.SURVIVED], counted[Status.TIMEOUT]) == (
        summary["killed"], summary["survived"], summary["timeout"])
    killed = next(m for m in mutants if m.status is Status.KILLED)
    assert killed.verdict.killed_by and killed.verdict.tests_run >= 1 and killed.file.is_file()


def test_score_equals_what_score_json_prints(docs_run, capsys):
    project, names, _ = docs_run
    result = names["result"]
    code = main(["score", "--root", str(project), "--paths", "sample_pkg", "--tests", "tests", "--no-cache",
                 "--json", "--fail-under", "50"])
    assert code == result.exit_code == 0 and result.passed
    assert _untimed(result.report) == _untimed(json.loads(capsys.readouterr().out))
    assert result.root == project.resolve() and 0 < result.score < 1


def test_fail_under_is_the_exit_code_not_an_exit(docs_run):
    project, names, _ = docs_run
    below = mu2py.api.ScoreResult(names["result"].report, project, fail_under=99.5)
    assert below.exit_code == 1 and not below.passed and "below --fail-under 99.5%" in below.shortfall


def test_mutate_equals_what_mutate_json_prints(capsys):
    seen = []
    result = mu2py.mutate(SORT, values=["[3, 2, 1]", "[1]", "[1]"], timeout=0.5, progress=seen.append)
    assert capsys.readouterr().out == ""  # progress goes to the callback, nothing to stdout
    assert main(["mutate", SORT, "--value", "[3, 2, 1]", "--value", "[1]", "--value", "[1]", "--timeout", "0.5",
                 "--json"]) == result.exit_code
    assert result.report == json.loads(capsys.readouterr().out)
    labels = ["--value [3, 2, 1]", "--value [1]", "--value [1] (#2)"]  # a repeated input gets its number
    assert result.report["inputs"] == labels
    assert [(p.judged, p.label) for p in seen] == [*enumerate(labels), (3, None)]
    assert 0 < result.killed <= result.total


def test_bad_input_is_a_user_error_not_an_exit():
    with pytest.raises(UserError, match="give inputs"):
        mu2py.mutate(SORT)
    with pytest.raises(UserError, match="--opt"):
        mu2py.mutate(SORT, values=["[1]"], opt="fast")
    with pytest.raises(UserError, match="--fail-under"):
        mu2py.score(".", fail_under=120)


def test_jobs_are_attributes_of_the_package():
    import mu2py.score.config  # binds mu2py.score to the subpackage: it is the job all the same

    assert callable(mu2py.score) and callable(mu2py.fuzz) and mu2py.kill is mu2py.api.kill


def test_fuzz_equals_what_fuzz_writes(tmp_path, capsys):
    kinds = []
    result = mu2py.fuzz(SORT, trials=150, seed=3, out=tmp_path / "api", progress=lambda e: kinds.append(e.kind))
    assert capsys.readouterr().out == ""
    assert main(["fuzz", SORT, "--trials", "150", "--seed", "3", "--out", str(tmp_path / "cli"),
                 "--quiet"]) == result.exit_code == 0
    written = json.loads((tmp_path / "cli" / "mutants.json").read_text())
    assert result.report == written == json.loads((tmp_path / "api" / "mutants.json").read_text())
    state = json.loads((tmp_path / "cli" / "state.json").read_text())["stats"]
    assert (result.stats.trials, result.stats.valid, result.stats.mutant_runs) == (
        state["trials"], state["valid"], state["mutant_runs"])
    assert [e.name for e in result.corpus] == sorted(p.stem for p in (tmp_path / "cli" / "corpus").glob("*.bin"))
    assert result.mutants == len(written["mutants"]) and result.out == tmp_path / "api"
    assert kinds[:3] == ["loading", "loaded", "running"] and kinds[-1] == "ran"


def test_fuzz_needs_a_budget():
    with pytest.raises(UserError, match="give a budget"):
        mu2py.fuzz(SORT)
    with pytest.raises(UserError, match="not a positive duration"):
        mu2py.fuzz(SORT, time="0s")


def test_running_marks_the_environment_for_the_block_only(monkeypatch):
    from mu2py.api import RUNNING_ENV, running

    monkeypatch.delenv(RUNNING_ENV, raising=False)
    with running():  # inherited by every process a job starts: their pytest sessions ignore --mu2py
        assert os.environ[RUNNING_ENV] == "1"
        with running():
            assert os.environ[RUNNING_ENV] == "1"
        assert os.environ[RUNNING_ENV] == "1"
    assert RUNNING_ENV not in os.environ


def _example_with(word: str) -> str:
    [code] = [c for c in _docs_examples()[1:] if word in c]
    return code


def test_the_docs_corpus_example_runs(tmp_path):
    shutil.copytree(SAMPLE, tmp_path / "project")
    names, printed = _run_example(_example_with("mu2py.corpus("), tmp_path / "project")
    result = names["result"]
    assert re.fullmatch(r"\d+ test cases in corpus/tests/test_corpus_sample_pkg_text\.py; exit code 0\n", printed)
    assert result.report == json.loads((tmp_path / "project" / "corpus" / "report.json").read_text())
    assert [o.qualname for o in result.outcomes.values()] == ["sample_pkg.text.clip"] and result.scores == []


@pytest.mark.skipif(sys.version_info >= (3, 13), reason="props from Python once, on 3.11: CI's time (the 3.13 "
                    "suite runs props end to end on the same project)")
def test_the_docs_props_example_runs(tmp_path):
    shutil.copytree(ROOT / "tests" / "data" / "props_project", tmp_path / "project")
    names, printed = _run_example(_example_with("mu2py.props("), tmp_path / "project")
    result = names["result"]
    assert isinstance(result, mu2py.api.PropsResult) and result.exit_code == 0
    assert printed.startswith(f"{result.killed} of {result.reached} reached mutants killed")
    assert [e["test"] for e in result.report["properties"]] == ["test_frames.py::test_payload_size_in_range"]


def test_the_docs_bonsai_example_runs(tmp_path):
    import bonsai

    shutil.copytree(ROOT / "grammars", tmp_path / "grammars")
    names, printed = _run_example(_example_with("bonsai.run("), tmp_path)
    run = names["run"]
    assert printed.splitlines()[0] == repr(bonsai.sample("grammars/json.lark", bounds="2,2,2", count=3, seed=1))
    assert run.summary == json.loads((tmp_path / "out" / "json" / "lattice.json").read_text())
    assert run.exit_code == 0 and len(list((tmp_path / "out" / "json" / "final").iterdir())) == run.final["inputs"]


def test_new_jobs_are_attributes_and_bad_input_is_a_user_error(tmp_path):
    import bonsai
    import mu2py.props.run  # binds mu2py.props to the subpackage: it is the job all the same

    assert mu2py.corpus is mu2py.api.corpus and callable(mu2py.props) and bonsai.run is bonsai.api.run
    with pytest.raises(UserError, match="give one budget per test"):
        mu2py.props(tmp_path)
    with pytest.raises(UserError, match="--trials must be at least 1"):
        mu2py.corpus("sample_pkg.text", trials=0)
    with pytest.raises(UserError, match="lattice bounds must all be >= 1"):
        bonsai.run(ROOT / "grammars" / "json.lark", SORT, bounds="1,0,1", node_trials=5, out=tmp_path)
    with pytest.raises(UserError, match="give one budget per node"):
        bonsai.run(ROOT / "grammars" / "json.lark", SORT, bounds="1,1,1", out=tmp_path)
    with pytest.raises(UserError):
        bonsai.sample(tmp_path / "missing.lark", bounds="1,1,1")
