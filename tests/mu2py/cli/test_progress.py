"""The progress display every long command shares (`Meter`: live on a terminal, plain lines elsewhere), its
throttle, and the --fail-under check."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from io import StringIO
from pathlib import Path
from types import SimpleNamespace

from rich.console import Console
from rich.table import Table

import mu2py
import mu2py.cli.progress as progress
from mu2py.cli.progress import Meter, Throttle, below_fail_under, budget_seconds, duration


def test_a_throttle_lets_a_new_phase_through_at_once_and_the_same_phase_only_after_its_interval(monkeypatch):
    now = [100.0]
    monkeypatch.setattr(progress.time, "monotonic", lambda: now[0])
    throttle = Throttle(every=5.0)
    assert throttle.due("baseline")
    assert not throttle.due("baseline")
    assert throttle.due("mutants")  # a phase change is always shown
    now[0] += 4.9
    assert not throttle.due("mutants")
    now[0] += 0.2
    assert throttle.due("mutants")
    assert throttle.elapsed == now[0] - 100.0


def test_a_throttle_reads_the_interval_when_made(monkeypatch):
    monkeypatch.setattr(progress, "PROGRESS_EVERY", 0.25)
    assert Throttle().every == 0.25


def test_fail_under_names_the_shortfall_and_nothing_else():
    assert below_fail_under(91.23, 95) == "mutation score 91.2% is below --fail-under 95%"
    assert below_fail_under(95.0, 95) is None
    assert below_fail_under(94.96, 95) == "mutation score 94.96% is below --fail-under 95%"  # not "95.0% is below"
    assert below_fail_under(10.0, None) is None
    assert below_fail_under(None, 95) is None  # nothing was judged: no shortfall

SAMPLE = Path(__file__).resolve().parents[2] / "data" / "score_sample"


# --- Meter: the shared progress display -------------------------------------------------------------------------


def _terminal() -> Console:
    return Console(file=StringIO(), force_terminal=True, width=120)


def _drawn(meter: Meter) -> str:
    """The meter's live display as plain text, as a 120-column terminal shows it."""
    screen = Console(file=StringIO(), width=120, color_system=None)
    screen.print(meter.renderable())
    return screen.file.getvalue()


def test_a_meter_on_a_terminal_shows_elapsed_time_and_a_time_budget_with_the_time_left():
    meter = Meter(_terminal(), "fuzzing", unit="trials", seconds=20, clock=lambda: 8.4)
    meter.update(completed=26675, note="kills confirmed 3/30 mutants; 12 mutants pending final judging")
    drawn = _drawn(meter)
    first, note = drawn.splitlines()[:2]
    assert first.startswith("fuzzing ") and "26675 trials" in first
    assert "elapsed 8s" in first and "budget 20s, 12s left" in first
    assert note == "kills confirmed 3/30 mutants; 12 mutants pending final judging"  # its own line: no column cut


def test_a_meter_with_a_known_total_shows_done_of_total_and_richs_eta():
    meter = Meter(_terminal(), "[mutants]", unit="mutants judged", total=30, clock=lambda: 65.0)
    meter.update(completed=12)
    drawn = _drawn(meter)
    assert "12/30 mutants judged" in drawn and "elapsed 1m05s" in drawn and "ETA " in drawn
    assert "budget" not in drawn  # no time budget: the ETA stands for it


def test_a_meters_detail_renderable_is_drawn_under_its_line():
    meter = Meter(_terminal(), "fuzzing", unit="trials", clock=lambda: 1.0)
    table = Table.grid()
    table.add_row("corpus", "3 inputs")
    meter.update(completed=5, detail=table)
    lines = _drawn(meter).splitlines()
    assert lines[0].startswith("fuzzing") and lines[1].startswith("corpus")


def test_a_live_meter_renders_into_a_forced_terminal_and_its_lines_stay_above_it():
    console = _terminal()
    with Meter(console, "fuzzing functions", unit="functions", total=3, seconds=60, budget_label="fuzzing budget",
               clock=lambda: 2.0) as meter:
        meter.update(completed=1)
        meter.say("[1/3] pkg.f: 100 inputs", stamp=True)
    printed = console.file.getvalue()
    assert "\x1b[" in printed  # drawn with cursor moves: a live display
    assert "fuzzing budget 1m, 58s left" in printed and "1/3 functions" in printed
    assert "[1/3] pkg.f: 100 inputs\n" in printed  # on a terminal the display says when, not the line


def test_without_a_terminal_a_meter_prints_throttled_plain_lines_and_no_live_display(monkeypatch):
    monkeypatch.setattr(progress, "PROGRESS_EVERY", 3600.0)
    console = Console(file=StringIO(), width=100_000)
    assert not console.is_terminal
    with Meter(console, "fuzzing", seconds=20, clock=lambda: 5.0) as meter:
        meter.update(completed=3, note="ignored: nothing live")
        meter.plain(lambda: "[baseline] 0/9 mutants judged", "baseline")
        meter.plain(lambda: "not due: same phase, within the interval", "baseline")
        meter.plain("[mutants] 4/9 mutants judged", "mutants")  # a new phase is always shown
        meter.say("a note")
        meter.say("a step", stamp=True)
    assert console.file.getvalue().splitlines() == [
        "[baseline] 0/9 mutants judged", "[mutants] 4/9 mutants judged", "a note",
        "a step (elapsed 5s; budget 20s, 15s left)"]


def test_a_plain_meter_can_write_its_lines_elsewhere_and_wait_for_its_first():
    out = StringIO()
    meter = Meter(Console(file=StringIO()), out=out, plain_at_once=False)
    meter.plain("too early")
    assert out.getvalue() == ""
    meter.throttle.every = 0.0
    meter.plain("due")
    assert out.getvalue() == "due\n"


def test_durations_are_short_and_a_budget_is_shown_as_given():
    assert [duration(s) for s in (0, 8.9, 65, 3725)] == ["0s", "8s", "1m05s", "1h02m"]
    assert [budget_seconds(s) for s in (20, 1.5, 300, 7200, 90)] == ["20s", "1.5s", "5m", "2h", "1m30s"]
    assert duration(-3) == "0s"  # a budget overrun shows no negative time left


# --- the commands, under a forced terminal ------------------------------------------------------------------------


def _force_terminal(monkeypatch) -> None:
    # rich reads these when a console is made: the command's console is a 120-column terminal though captured
    monkeypatch.setenv("TTY_COMPATIBLE", "1")
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("LINES", "30")


def test_fuzz_on_a_terminal_shows_a_live_bar_with_its_trial_budget_and_eta_then_its_summary(monkeypatch, capsys,
                                                                                            tmp_path):
    from mu2py.cli.main import main

    _force_terminal(monkeypatch)
    assert main(["fuzz", "targets.insertion_sort.driver:sort", "--trials", "50", "--out", str(tmp_path / "o")]) == 0
    printed = _text(capsys.readouterr().out)
    assert re.search(r"fuzzing [━╸╺ ]+ \d+/50 trials elapsed \d+s ETA ", printed)
    assert "kills confirmed" in printed and "pending final judging" in printed
    assert "mutants killed" in printed.rpartition("ETA ")[2]  # the summary prints after the transient display


def _text(printed: str) -> str:
    """What a terminal shows of `printed`, its escape sequences (colours, cursor moves) left out."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", printed)


def test_kill_moves_its_bar_through_the_workflows_steps_and_shows_the_fuzzing_budget_while_it_fuzzes():
    from mu2py.cli.kill import _show
    from mu2py.steps import Step

    clock = [0.0]
    meter = Meter(_terminal(), "starting", unit="functions", clock=lambda: clock[0])
    _show(meter, 60.0, Step("scoring the suite (tests) on pkg", "scoring the suite"))
    assert "scoring the suite" in _drawn(meter) and "budget" not in _drawn(meter)
    clock[0] = 10.0
    _show(meter, 60.0, Step("fuzzing 3 functions (60s in all)", "fuzzing", 0, 3, "functions"))
    clock[0] = 30.0
    _show(meter, 60.0, Step("[1/3] pkg.f: 100 trials, killed 2", "fuzzing", 1, 3, "functions"))
    drawn = _drawn(meter)
    # the command's budget, from its start: the fuzzing is one of the steps it covers
    assert "1/3 functions" in drawn and "elapsed 30s" in drawn and "budget 1m, 30s left" in drawn
    _show(meter, 60.0, Step("verifying: 4 mutants", "verifying"))
    drawn = _drawn(meter)
    assert drawn.startswith("verifying") and "budget" not in drawn and "functions" not in drawn


def test_kills_plain_lines_are_the_workflows_lines_a_function_fuzzed_saying_when():
    from mu2py.cli.kill import _show
    from mu2py.steps import Step

    console = Console(file=StringIO(), width=100_000)
    clock = [4.0]
    meter = Meter(console, clock=lambda: clock[0])
    _show(meter, 60.0, Step("fuzzing 3 functions (60s in all)", "fuzzing", 0, 3, "functions"))
    clock[0] = 9.0
    _show(meter, 60.0, Step("[1/3] pkg.f: 100 trials, killed 2", "fuzzing", 1, 3, "functions"))
    _show(meter, 60.0, "score before: 50.0% (1/2)")  # a plain str, as any caller of the API may send
    assert console.file.getvalue().splitlines() == [
        "fuzzing 3 functions (60s in all)",
        "[1/3] pkg.f: 100 trials, killed 2 (elapsed 9s; budget 1m, 51s left)",
        "score before: 50.0% (1/2)"]


def _run_in_a_terminal(argv: list[str], cwd: Path) -> str:
    """Run a command (the worktree's mu2py) as if in a 120-column terminal; what it printed, escapes left out."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NO_COLOR", "TERM")}
    env.update(PYTHONPATH=str(Path(mu2py.__file__).resolve().parents[1]), TTY_COMPATIBLE="1", COLUMNS="120",
               LINES="30", TERM="xterm-256color")
    proc = subprocess.run([sys.executable, "-m", *argv], cwd=cwd, capture_output=True, text=True, env=env,
                          timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return _text(proc.stdout + proc.stderr).replace("\r", "\n")


def test_corpus_on_a_terminal_shows_its_phases_and_the_functions_fuzzed_then_its_tables(tmp_path):
    root = tmp_path / "project"
    shutil.copytree(SAMPLE, root)
    printed = _run_in_a_terminal(["mu2py", "corpus", "sample_pkg.text:area", "--trials", "30", "--out", "out",
                                  "--no-score"], root)
    assert re.search(r"finding functions [━╸╺ ]+ +elapsed \d+s", printed)
    assert re.search(r"fuzzing [━╸╺ ]+ [01]/1 functions elapsed \d+s ETA ", printed)
    assert "[1/1] sample_pkg.text.area: " in printed and "(elapsed" not in printed  # the live display says when
    assert "regression corpus of sample_pkg.text" in printed.rpartition("elapsed")[2]  # after the display


def test_bonsai_run_on_a_terminal_counts_the_lattices_nodes_on_a_live_bar_on_stderr(tmp_path):
    root = Path(mu2py.__file__).resolve().parents[1]
    printed = _run_in_a_terminal(["bonsai", "run", str(root / "grammars" / "json.lark"), "--target",
                                  "targets.json_decoder.driver:parse", "--bounds", "1,1,2", "--node-trials", "5",
                                  "--out", str(tmp_path / "out")], root)
    assert re.search(r"growing the lattice [━╸╺ ]+ [012]/2 nodes elapsed \d+s ETA ", printed)
    assert "budget 5 trials per node, 1 worker" in printed
    assert "node 2/2 F(1,1,2): " in printed and "(elapsed" not in printed  # the live display says when
    assert "final corpus: " in printed


def _fake_score(monkeypatch, events):
    """`mu2py.api.score` replaced by one that sends `events` (ScoreProgress) and returns a result to present."""
    import mu2py.api
    import mu2py.cli.score as score_cli

    def score(*args, progress, **kwargs):
        for event in events:
            progress(event)
        return SimpleNamespace(fail_under=None, report={}, root=Path("."))

    monkeypatch.setattr(mu2py.api, "score", score)
    monkeypatch.setattr(score_cli, "_present", lambda *args: 0)
    return score_cli


def test_score_on_a_terminal_shows_its_phase_the_mutants_judged_and_richs_eta(monkeypatch):
    from mu2py.api import ScoreProgress
    from mu2py.cli.main import build_parser

    score_cli = _fake_score(monkeypatch, [ScoreProgress("baseline", 0, 9, 0), ScoreProgress("mutants", 4, 9, 1, 3, 1)])
    console = _terminal()
    assert score_cli._score(build_parser().parse_args(["score"]), console) == 0
    printed = _text(console.file.getvalue())
    assert re.search(r"mutants [━╸╺ ]+ 4/9 mutants judged elapsed 0s ETA ", printed)
    assert "killed 3, survived 1, 1 from cache" in printed  # the verdicts so far, each final


def test_score_without_a_terminal_keeps_its_plain_lines(monkeypatch, capsys):
    from mu2py.api import ScoreProgress
    from mu2py.cli.main import build_parser

    score_cli = _fake_score(monkeypatch, [ScoreProgress("baseline", 0, 9, 0), ScoreProgress("mutants", 4, 9, 1, 3, 1),
                                          ScoreProgress("done", 5, 9, 1, 3, 1, 1)])
    score_cli._score(build_parser().parse_args(["score"]), Console(file=StringIO(), width=100_000))
    # counted as the summary counts them: a timeout is not a kill there
    assert capsys.readouterr().out.splitlines() == [
        "[baseline] 0/9 mutants judged (0 from cache), 0 s",
        "[mutants] 4/9 mutants judged (1 from cache); killed 3, survived 1, 0 s",
        "[done] 5/9 mutants judged (1 from cache); killed 3, survived 1, timeout 1, 0 s"]


def test_props_shows_its_phases_and_the_tests_fuzzed_with_the_fuzzing_budget(monkeypatch, capsys):
    import mu2py.cli.props as props_cli
    import mu2py.props.run
    from mu2py.cli.main import build_parser
    from mu2py.steps import Step

    def props(spec, config, only, on_progress, judged=None):
        on_progress(Step("baseline", "baseline"))
        on_progress(Step("fuzzing", "fuzzing", 0, 4, "tests fuzzed"))
        on_progress(Step("fuzzing: 1/4 tests fuzzed", "fuzzing", 1, 4, "tests fuzzed"))
        return {}

    monkeypatch.setattr(mu2py.props.run, "props", props)
    monkeypatch.setattr(mu2py.props.run, "spec_for", lambda *args: None)
    monkeypatch.setattr(props_cli, "print_report", lambda *args: None)
    args = build_parser().parse_args(["props", "--time", "30s", "--workers", "2"])
    console = _terminal()
    assert props_cli._props(args, console) == 0
    printed = _text(console.file.getvalue())
    # 4 tests of 30 s each on 2 workers: two rounds
    assert re.search(r"fuzzing [━╸╺ ]+ 1/4 tests fuzzed elapsed 0s fuzzing budget 1m, (59s|1m00s) left", printed)
    plain = Console(file=StringIO(), width=100_000)
    assert props_cli._props(args, plain) == 0
    assert capsys.readouterr().out.splitlines() == [
        "[baseline] elapsed 0s", "[fuzzing] 0/4 tests fuzzed, elapsed 0s; fuzzing budget 1m, 1m00s left"]
