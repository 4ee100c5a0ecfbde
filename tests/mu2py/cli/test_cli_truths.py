"""The command line tells the truth: literal text, plain progress in logs, exit codes, one-line usage errors."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mu2py.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
SORT = "targets.insertion_sort.driver:sort"
JSON = "targets.json_decoder.driver:parse"

HOSTILE_DRIVERS = '''
import os
from hypothesis import strategies as st
from mu2py import driver

@driver(st.integers(0, 1000))
def loops(n):
    if n > 3:
        while True:
            n += 1
    return n

@driver(st.integers(0, 1000))
def exits(n):
    if n > 3:
        os._exit(7)
    return n

@driver(st.integers(0, 1000))
def fine(n):
    return sorted(str(n))
'''


@pytest.fixture
def hostile(driver_package):
    return driver_package("truthpkg", HOSTILE_DRIVERS)


def test_mutant_text_is_printed_literally_and_ids_are_not_wrapped(capsys):
    assert main(["mutate", SORT, "--value", "[1]", "--timeout", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "arr[" in out  # rich markup would eat "[i]" and friends
    report_ids = [line.split("│")[1].strip() for line in out.splitlines() if line.startswith("│")]
    assert report_ids and all(i.startswith("targets.insertion_sort.sort:") and i.count(":") == 3 for i in report_ids)


def test_mutate_fail_under_exits_1_below_the_bar(capsys):
    assert main(["mutate", SORT, "--value", "[1]", "--timeout", "0.2", "--fail-under", "99"]) == 1
    assert "below --fail-under 99%" in capsys.readouterr().out
    assert main(["mutate", SORT, "--value", "[1]", "--timeout", "0.2", "--fail-under", "1", "--json"]) == 0


@pytest.mark.parametrize(("argv", "option"), [
    (["fuzz", SORT, "--trials", "0"], "--trials"),
    (["fuzz", SORT, "--trials", "-5"], "--trials"),
    (["fuzz", SORT, "--trials", "5", "--filter", "bogus"], "--filter"),
    (["fuzz", SORT, "--trials", "5", "--workers", "0"], "--workers"),
    (["mutate", SORT, "--value", "1", "--fail-under", "120"], "--fail-under"),
])
def test_bad_option_values_are_one_line_errors_naming_the_option(argv, option, capsys):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.startswith("mu2py: error: ") and len(err.strip().splitlines()) == 1
    assert option in err


def test_a_fifo_as_input_is_named_as_such(tmp_path, capsys):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert main(["mutate", SORT, "--input", str(fifo)]) == 2
    assert "not a regular file" in capsys.readouterr().err


def test_piped_fuzz_prints_progress_lines_and_judges_a_coverage_corpus(tmp_path, capsys, monkeypatch):
    import mu2py.cli.progress

    monkeypatch.setattr(mu2py.cli.progress, "PROGRESS_EVERY", 0.5)
    out = tmp_path / "o"
    # 8 s: under CI's load the first trial alone has taken 2 s, and a 6 s budget (less what its end keeps) once left
    # time for one progress line
    assert main(["fuzz", JSON, "--guidance", "coverage", "--time", "8s", "--out", str(out)]) in (0, 3)
    printed = capsys.readouterr().out
    progress = [line for line in printed.splitlines() if line.startswith("[") and " s] trials " in line]
    assert len(progress) >= 2 and "lines+branches" in progress[0]
    report = json.loads((out / "mutants.json").read_text())
    assert report["summary"]["killed"] > 0
    assert f"{report['summary']['killed']}/{report['summary']['total']} mutants killed" in printed
    assert "judged against them at the end" in printed


def test_quiet_prints_no_table(tmp_path, capsys):
    assert main(["fuzz", SORT, "--trials", "60", "--quiet", "--out", str(tmp_path / "o")]) == 0
    printed = capsys.readouterr().out
    assert "surviving mutants" not in printed and "│" not in printed and "mutants killed" in printed


@pytest.mark.parametrize(("driver", "exception"), [("loops", "Timeout"), ("exits", "ProcessExit")])
def test_an_original_that_hangs_or_exits_is_a_failure_found(driver, exception, hostile, tmp_path, capsys):
    out = tmp_path / "o"
    code = main(["fuzz", f"{hostile}:{driver}", "--guidance", "coverage", "--trials", "8", "--timeout", "0.3",
                 "--quiet", "--no-judge", "--out", str(out)])
    printed = capsys.readouterr().out
    assert code == 3, printed
    assert f"the inputs are in {out / 'failures'}" in printed
    record = json.loads((out / "failures" / "failure_000000.json").read_text())
    assert record["exception"].endswith(exception)


def test_interrupt_prints_the_summary_and_where_it_is_saved(tmp_path):
    out = tmp_path / "o"
    # SIGINT's default disposition in the child: a suite started in the background inherits it ignored
    proc = subprocess.Popen([sys.executable, "-m", "mu2py", "fuzz", JSON, "--guidance", "coverage", "--time", "60s",
                             "--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while not (out / "state.json").is_file():
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert f"outputs saved in {out}" in stdout and " trials " in stdout
    assert json.loads((out / "state.json").read_text())["stats"]["trials"] > 0


def test_mutate_survives_an_original_that_calls_os_exit(hostile, capsys):
    # before: the original (run in mu2py's own process) ended mu2py with exit code 7 and no report
    assert main(["mutate", f"{hostile}:exits", "--value", "5", "--value", "1", "--json", "--timeout", "0.3"]) == 0
    assert json.loads(capsys.readouterr().out)["inputs"] == ["--value 5", "--value 1"]


def test_no_judge_says_its_kills_are_not_the_corpus_score(tmp_path, capsys):
    """A timed mutation-guided run leaves inputs unjudged: with --no-judge the summary says so and how to judge."""
    out = tmp_path / "o"
    # 4 s: the budget holds loading the target too (about 2 s under CI's load)
    assert main(["fuzz", JSON, "--time", "4s", "--seed", "1", "--no-judge", "--quiet", "--out", str(out)]) in (0, 3)
    printed = " ".join(capsys.readouterr().out.split())  # as read, whatever the console's line width
    assert "--no-judge:" in printed and "a lower bound; `mu2py mutate" in printed
