"""Nothing lost on resume: names never reused, failures and counters carried on, corrupt files refused, one writer."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mu2py.errors import UserError
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.store.atomic import DirectoryLock
from mu2py.target.modules import resolve_target

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def json_target():
    return resolve_target("targets.json_decoder.driver:parse")


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, json_target):
    """A small coverage-guided campaign's output directory, copied afresh for each test that spoils it."""
    out = tmp_path_factory.mktemp("finished") / "run"
    Fuzzer(json_target, FuzzConfig(trials=200, seed=5, guidance="coverage", out=out)).run()
    return out


@pytest.fixture
def run_dir(tmp_path, finished_run):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(finished_run, out)
    return out


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


def _resume(target, out: Path, trials: int = 400, **kw) -> Fuzzer:
    fuzzer = Fuzzer(target, FuzzConfig(trials=trials, seed=5, guidance="coverage", out=out, **kw))
    fuzzer.resume()
    return fuzzer


def test_resume_with_a_missing_bin_never_overwrites_a_saved_input(run_dir, json_target):
    corpus = run_dir / "corpus"
    assert len(list(corpus.glob("*.bin"))) >= 4
    (corpus / "id_000001.bin").unlink()
    before = {k: v for k, v in _files(corpus).items() if k != "index.json"}
    fuzzer = _resume(json_target, run_dir)
    assert any("id_000001.bin" in w for w in fuzzer.corpus.warnings)
    fuzzer.run()
    after = _files(corpus)
    assert all(after[name] == data for name, data in before.items())
    names = [e["name"] for e in json.loads(after["index.json"])]
    assert len(names) == len(set(names)) and len(names) > len(before) // 2


def test_resume_without_index_rebuilds_it_from_the_bins(run_dir, json_target):
    corpus = run_dir / "corpus"
    (corpus / "index.json").unlink()
    before = {k: v for k, v in _files(corpus).items()}
    fuzzer = _resume(json_target, run_dir)
    assert len(fuzzer.corpus) == len([n for n in before if n.endswith(".bin")])
    assert any("rebuilt" in w for w in fuzzer.corpus.warnings)
    fuzzer.run()
    after = _files(corpus)
    assert all(after[name] == data for name, data in before.items())


def test_resume_keeps_every_counter_and_the_time_budget_is_the_total(run_dir, json_target):
    first = json.loads((run_dir / "state.json").read_text())["stats"]
    fuzzer = _resume(json_target, run_dir, trials=None, seconds=first["elapsed"] + 0.5)
    for name in ("trials", "valid", "invalid", "elapsed", "seconds_input"):
        assert getattr(fuzzer.stats, name) == first[name]
    fuzzer.run()
    assert fuzzer.stats.elapsed < first["elapsed"] + 3  # the half second that was left, not a new budget
    assert fuzzer.stats.valid > first["valid"]
    elapsed = [float(r.split(",")[0]) for r in (run_dir / "plot_data.csv").read_text().splitlines()[1:]]
    assert elapsed == sorted(elapsed) and len(elapsed) >= 2


FAILING = '''
from hypothesis import strategies as st
from mu2py import driver

@driver(st.integers(0, 1000))
def odd_fails(n):
    if n % 2:
        raise ValueError("odd")
    return n
'''


def test_failures_are_reloaded_and_never_overwritten(tmp_path, driver_package):
    target = resolve_target(f"{driver_package('failpkg_rs', FAILING)}:odd_fails")
    out = tmp_path / "o"
    # a failure from an earlier run of another kind, as the first file of failures/
    folder = out / "failures"
    folder.mkdir(parents=True)
    record = {"exception": "builtins.KeyError", "location": "elsewhere.py:1", "message": "'k'"}
    (folder / "failure_000000.json").write_text(json.dumps(record))
    (folder / "failure_000000.txt").write_text("earlier\n")
    fuzzer = Fuzzer(target, FuzzConfig(trials=100, guidance="coverage", out=out))
    fuzzer.resume()
    fuzzer.run()
    assert json.loads((folder / "failure_000000.json").read_text()) == record
    assert json.loads((folder / "failure_000001.json").read_text())["exception"] == "builtins.ValueError"
    assert fuzzer.stats.failures == 2
    again = Fuzzer(target, FuzzConfig(trials=200, guidance="coverage", out=out))
    again.resume()
    again.run()  # the ValueError is known: no second record of it
    assert sorted(p.name for p in folder.glob("*.json")) == ["failure_000000.json", "failure_000001.json"]


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


SPOILERS = {
    "state.json truncated": ("state.json", _truncate),
    "state.json empty": ("state.json", lambda p: p.write_bytes(b"")),
    "index.json truncated": ("corpus/index.json", _truncate),
    "bin truncated": ("corpus/id_000002.bin", _truncate),
    "bin emptied": ("corpus/id_000002.bin", lambda p: p.write_bytes(b"")),
    "bin garbage": ("corpus/id_000002.bin", lambda p: p.write_bytes(b"\xff\x00garbage")),
    "plot garbled": ("plot_data.csv", lambda p: p.write_text(p.read_text().replace(",", ";", 7))),
}


@pytest.mark.parametrize("case", sorted(SPOILERS))
def test_corrupt_resume_file_is_a_one_line_error_and_left_alone(case, run_dir, capsys):
    from mu2py.cli.main import main

    relative, spoil = SPOILERS[case]
    path = run_dir / relative
    spoil(path)
    spoiled = _files(run_dir) | _files(run_dir / "corpus")
    code = main(["fuzz", "targets.json_decoder.driver:parse", "--guidance", "coverage", "--trials", "400",
                 "--seed", "5", "--quiet", "--out", str(run_dir)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("mu2py: error: ") and len(err.strip().splitlines()) == 1 and str(path) in err
    assert _files(run_dir) | _files(run_dir / "corpus") == spoiled


def test_one_writer_per_output_directory(tmp_path, json_target):
    out = tmp_path / "o"
    first = Fuzzer(json_target, FuzzConfig(trials=20, guidance="coverage", out=out))
    with pytest.raises(UserError, match=rf"in use by another mu2py run \(pid {os.getpid()}\)"):
        Fuzzer(json_target, FuzzConfig(trials=20, guidance="coverage", out=out))
    first.run()  # the end of a run releases the directory
    Fuzzer(json_target, FuzzConfig(trials=20, guidance="coverage", out=out)).run()
    lock = DirectoryLock(out)
    lock.release()
    lock.release()


def _children(pid: int) -> list[int]:
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_killed_parallel_parent_leaves_no_orphan_writer(tmp_path):
    out = tmp_path / "o"
    base = [sys.executable, "-m", "mu2py", "fuzz", "targets.json_decoder.driver:parse", "--guidance", "coverage",
            "--workers", "2", "--quiet", "--out", str(out)]
    cmd = [*base, "--time", "120s"]
    parent = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not all((out / "workers" / f"w{k}" / "state.json").is_file() for k in range(2)):
            assert time.monotonic() < deadline and parent.poll() is None
            time.sleep(0.2)
        workers = _children(parent.pid)
        assert workers
        second = subprocess.run([*base, "--time", "1s"], cwd=ROOT,
                                capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and f"pid {parent.pid}" in second.stderr
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 15
        while any(_alive(pid) for pid in workers):
            assert time.monotonic() < deadline, "campaign workers outlived their killed parent"
            time.sleep(0.1)
    finally:
        parent.kill()
