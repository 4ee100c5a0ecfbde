"""The fuzzing loop end to end: determinism, outputs on disk, resume, guidance variants."""

import json
from pathlib import Path

import pytest

from mu2py.budget import Deadline
from mu2py.errors import UserError
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.target.modules import resolve_target


@pytest.fixture(scope="module")
def json_target():
    return resolve_target("targets.json_decoder.driver:parse")


def _corpus_bytes(out: Path) -> list[bytes]:
    return [p.read_bytes() for p in sorted((out / "corpus").glob("*.bin"))]


def test_same_seed_same_corpus(tmp_path, json_target):
    for name in ("a", "b"):
        Fuzzer(json_target, FuzzConfig(trials=120, seed=3, out=tmp_path / name)).run()
    assert _corpus_bytes(tmp_path / "a") == _corpus_bytes(tmp_path / "b")
    assert len(_corpus_bytes(tmp_path / "a")) > 1


def test_outputs_written_and_consistent(tmp_path, json_target):
    out = tmp_path / "run"
    result = Fuzzer(json_target, FuzzConfig(trials=80, seed=1, out=out)).run()
    report = json.loads((out / "mutants.json").read_text())
    assert report["summary"]["killed"] == result.report["summary"]["killed"] > 0
    for m in report["mutants"]:
        assert {"id", "file", "line", "operator", "original", "mutated", "status", "reason", "input"} <= set(m)
        if m["status"] == "killed":
            assert (out / "corpus" / f"{m['input']}.bin").is_file()
    header = (out / "plot_data.csv").read_text().splitlines()[0]
    assert header.startswith("elapsed,trials,execs_per_sec,corpus,coverage")
    index = json.loads((out / "corpus" / "index.json").read_text())
    assert [e["name"] for e in index] == [p.stem for p in sorted((out / "corpus").glob("*.bin"))]


def test_resume_continues_from_output_dir(tmp_path, json_target):
    out = tmp_path / "run"
    Fuzzer(json_target, FuzzConfig(trials=60, seed=2, out=out)).run()
    first = _corpus_bytes(out)
    again = Fuzzer(json_target, FuzzConfig(trials=120, seed=2, out=out))
    assert again.resume() == len(first)
    assert again.stats.trials == 60 and len(again.analysis.kills) > 0
    again.run()
    assert _corpus_bytes(out)[: len(first)] == first
    assert json.loads((out / "state.json").read_text())["stats"]["trials"] == 120


def test_coverage_guidance_runs_no_mutants(json_target):
    result = Fuzzer(json_target, FuzzConfig(trials=60, seed=1, guidance="coverage", plot_every=0.0)).run()
    assert result.report is None and result.coverage > 0 and result.stats.mutant_runs == 0
    assert result.stats.share == 0  # state.json must not show a share of time it never gave mutants


def test_split_uses_coverage_first(json_target):
    fuzzer = Fuzzer(json_target, FuzzConfig(trials=40, seed=1, split=True))
    for _ in range(19):  # trials 1..19 are the first half (trial 20 starts the second)
        fuzzer.trial()
    assert fuzzer.analysis.mutant_runs == 0
    for _ in range(20):
        fuzzer.trial()
    assert fuzzer.analysis.mutant_runs > 0


def test_least_executed_filter_bounds_runs_per_input(json_target):
    fuzzer = Fuzzer(json_target, FuzzConfig(trials=30, seed=1, filter="least-executed:5"))
    fuzzer.run()
    assert fuzzer.stats.run_this_input <= 5 and fuzzer.stats.filtered > 0


def test_non_writable_output_is_a_clear_error(tmp_path, json_target):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UserError, match="not writable"):
        Fuzzer(json_target, FuzzConfig(trials=5, out=blocker / "sub"))


def test_no_budget_is_an_error():
    with pytest.raises(UserError, match="budget"):
        FuzzConfig()


BROKEN_DRIVERS = '''
from hypothesis import strategies as st
from mu2py import driver

@driver(st.integers().filter(lambda n: False))
def never(n):
    return n

@driver(st.integers(0, 1000))
def always_fails(n):
    return {}["missing"]

@driver(st.integers(0, 1000))
def sometimes_fails(n):
    if n % 2:
        raise ValueError("odd")
    return n
'''


@pytest.fixture
def broken_module(driver_package):
    return driver_package("brokenpkg_fz", BROKEN_DRIVERS)


def test_strategy_that_cannot_draw_stops_early(broken_module, tmp_path):
    fuzzer = Fuzzer(resolve_target(f"{broken_module}:never"), FuzzConfig(trials=5000, out=tmp_path / "o"))
    with pytest.raises(UserError, match="drew no input"):
        fuzzer.run()
    assert fuzzer.stats.trials < 5000 and (tmp_path / "o" / "state.json").is_file()


def test_target_failing_on_every_input_is_a_clear_error_with_failures_kept(broken_module, tmp_path):
    out = tmp_path / "o"
    fuzzer = Fuzzer(resolve_target(f"{broken_module}:always_fails"), FuzzConfig(trials=5000, out=out))
    with pytest.raises(UserError, match="driver is broken: the first 100 inputs all failed with builtins.KeyError"):
        fuzzer.run()
    assert fuzzer.stats.trials < 5000
    assert json.loads((out / "failures" / "failure_000000.json").read_text())["exception"] == "builtins.KeyError"
    assert json.loads((out / "state.json").read_text())["stats"]["trials"] == fuzzer.stats.trials


def test_target_failing_on_some_inputs_keeps_fuzzing(broken_module, tmp_path):
    fuzzer = Fuzzer(resolve_target(f"{broken_module}:sometimes_fails"),
                    FuzzConfig(trials=300, guidance="coverage", out=tmp_path / "o"))
    fuzzer.run()
    assert fuzzer.stats.trials == 300 and fuzzer.stats.failures == 1


def test_cli_reports_broken_driver_in_one_line(broken_module, tmp_path, capsys):
    from mu2py.cli.main import main

    assert main(["fuzz", f"{broken_module}:always_fails", "--trials", "1000", "--quiet",
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "driver is broken" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_duplicate_children_run_nothing_and_are_counted(json_target):
    fuzzer = Fuzzer(json_target, FuzzConfig(trials=400, seed=1, guidance="coverage"))
    runs = []
    plain = fuzzer._run_original
    fuzzer._run_original = lambda value, timeout=None: runs.append(value) or plain(value, timeout)
    result = fuzzer.run()
    stats = result.stats
    assert stats.duplicates > 0
    assert stats.valid + stats.invalid + stats.duplicates == stats.trials
    assert len(runs) == stats.valid  # a duplicate never reaches the original
    assert len({e.choices for e in result.corpus}) == len(result.corpus)


def test_a_timed_campaign_report_equals_mutate_on_its_corpus(tmp_path):
    """Batches cut by the share are judged at the end: fuzz's kills are those `mutate` finds on its corpus (a
    lower bound of them, said so, when a loaded machine made the judging outlast the budget's estimate of it)."""
    import subprocess
    import sys

    spec, out = "targets.json_decoder.driver:parse", tmp_path / "run"
    fuzz = subprocess.run([sys.executable, "-m", "mu2py", "fuzz", spec, "--time", "8s", "--seed", "1", "--out",
                           str(out), "--quiet"], capture_output=True, text=True, timeout=300)
    assert fuzz.returncode in (0, 3), fuzz.stderr
    report = json.loads((out / "mutants.json").read_text())
    index = json.loads((out / "corpus" / "index.json").read_text())
    complete = all(e["judged"] for e in index)
    assert complete or "were judged" in fuzz.stderr + fuzz.stdout + json.dumps(report)
    judged = subprocess.run([sys.executable, "-m", "mu2py", "mutate", spec, "--input", str(out / "corpus"),
                             "--json"], capture_output=True, text=True, timeout=300)
    assert judged.returncode == 0, judged.stderr
    mutate = json.loads(judged.stdout)

    def killed(rep: dict) -> set[str]:
        return {m["id"] for m in rep["mutants"] if m["status"] == "killed"}

    if not complete:
        assert killed(report) <= killed(mutate)
        return
    assert killed(report) == killed(mutate)
    assert report["summary"]["not_reached"] == mutate["summary"]["not_reached"]


def test_a_target_rejecting_the_first_inputs_at_one_place_is_a_warning_not_an_error(driver_package, tmp_path):
    """`ipaddress.ip_interface` rejects nearly all random text at one `raise`: the campaign warns and goes on, and
    finds the inputs it accepts."""
    name = driver_package("strict_fz", (
        "import ipaddress\n\nfrom hypothesis import strategies as st\n\nfrom mu2py import driver\n\n\n"
        "@driver(st.text(alphabet='0123456789abcdef.:/%', max_size=40), targets=['ipaddress'])\n"
        "def ip(text):\n    return ipaddress.ip_interface(text)\n"
    ))
    # 400 trials find an accepted input under 6 of 8 seeds, 1,000 under each tried
    fuzzer = Fuzzer(resolve_target(f"{name}:ip"), FuzzConfig(trials=1000, seed=1, guidance="coverage"))
    result = fuzzer.run()
    assert fuzzer.stats.trials == 1000
    assert [w for w in fuzzer.warnings if "ipaddress.py" in w and "ValueError" in w]
    assert any(ipaddress_ok(e.value) for e in result.corpus)


def ipaddress_ok(text: str) -> bool:
    import ipaddress

    try:
        ipaddress.ip_interface(text)
    except ValueError:
        return False
    return True


def test_the_final_judging_reports_its_progress(json_target, tmp_path):
    """Judging a timed campaign's corpus can take minutes: each input's start is a progress event, shown as a line."""
    from mu2py.cli.fuzz import _progress_line

    seen: list[tuple[int, int] | None] = []
    fuzzer = Fuzzer(json_target, FuzzConfig(seconds=3600, seed=2, out=tmp_path / "o"),
                    on_progress=lambda f: seen.append(f.judging))
    try:
        for _ in range(150):
            fuzzer.trial()
        pending = sum(not e.judged for e in fuzzer.corpus.entries)
        assert pending and fuzzer.finish_judging() == pending
        assert seen == [(k, pending) for k in range(pending)] and fuzzer.judging is None
        fuzzer.judging = (1, pending)
        assert f"judging the corpus: 1/{pending} inputs" in _progress_line(fuzzer)
    finally:
        fuzzer.analysis.close()
        fuzzer._lock.release()


def test_the_budgets_end_stops_the_originals_run_and_records_no_hang(driver_package, tmp_path):
    """An input the original is still running when a --time budget ends is stopped there: the campaign does not
    overrun by the original's timeout, and a run the budget stopped is no hang found."""
    import time

    name = driver_package("spin_fz", (
        "from hypothesis import strategies as st\nfrom mu2py import driver\n\n\n"
        "@driver(st.integers(0, 3))\ndef spin(n):\n    while True:\n        n += 1\n"
    ))
    fuzzer = Fuzzer(resolve_target(f"{name}:spin"), FuzzConfig(seconds=3600, seed=1, guidance="coverage",
                                                                out=tmp_path / "o"))
    fuzzer.deadline = Deadline.after(0.3)  # the loop's end, as run() sets it
    try:
        started = time.monotonic()
        assert fuzzer.trial() is None
        assert time.monotonic() - started < 0.3 + 2.0  # not the original's 10 s timeout
        assert fuzzer.stats.failures == 0 and not fuzzer.failures
    finally:
        fuzzer._lock.release()


def test_a_judging_the_budget_cannot_hold_is_left_to_mutate_and_said(json_target, tmp_path):
    """The final judging stops at its deadline: the inputs it did not judge stay unjudged in the index, and a
    warning says that `mutate` gives the corpus's score; what it would have cost is estimated beforehand."""
    from mu2py.budget import now

    fuzzer = Fuzzer(json_target, FuzzConfig(seconds=3600, seed=2, out=tmp_path / "o"))
    try:
        for _ in range(150):
            fuzzer.trial()
        pending = [e for e in fuzzer.corpus.entries if not e.judged]
        assert pending and fuzzer.mutant_runs.judging_cost([e.name for e in pending]) > 0
        assert fuzzer.mutant_runs.judging_cost([]) == 0
        assert fuzzer.finish_judging(Deadline(now() - 1.0)) == 0
        assert not any(e.judged for e in pending)
        assert "saved inputs left to judge were judged" in fuzzer.warnings[-1]
    finally:
        fuzzer.analysis.close()
        fuzzer._lock.release()


def test_while_it_runs_a_timed_campaign_names_its_kills_confirmed_and_what_awaits_the_final_judging(json_target,
                                                                                                    tmp_path):
    """Under --time an input that adds coverage runs only its probe: its mutants are judged at the end. The live
    counter says so (`pending final judging`) instead of a kill count that jumps at the end."""
    from mu2py.cli.fuzz import _kills_note, _progress_line

    fuzzer = Fuzzer(json_target, FuzzConfig(seconds=3600, seed=2, out=tmp_path / "o"))
    try:
        for _ in range(150):
            fuzzer.trial()
        inputs, mutants, exact = fuzzer.pending_judging()
        assert inputs == sum(not e.judged for e in fuzzer.corpus.entries) > 0 and mutants > 0 and exact
        confirmed = len(fuzzer.analysis.kills)
        note = _kills_note(fuzzer)
        assert note.startswith(f"kills confirmed {confirmed}/{len(fuzzer.program.mutants)} mutants; {mutants} "
                               f"mutants pending final judging (infected by {inputs} saved inputs")
        assert "budget 1h, " in _progress_line(fuzzer) and note in _progress_line(fuzzer)
        fuzzer.finish_judging()
        assert fuzzer.pending_judging() == (0, 0, True)
        assert _kills_note(fuzzer) == f"kills confirmed {len(fuzzer.analysis.kills)}/{len(fuzzer.program.mutants)} " \
                                      "mutants"
    finally:
        fuzzer.analysis.close()
        fuzzer._lock.release()
