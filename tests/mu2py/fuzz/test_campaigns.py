"""Parallel campaigns: per-worker directories, a deterministic merge, and kills kept across the merge."""

import json
from pathlib import Path

from mu2py.cli.main import main
from mu2py.fuzz.campaigns import split_trials, worker_dir

SORT = "targets.insertion_sort.driver:sort"


def _killed(path: Path) -> set[str]:
    return {m["id"] for m in json.loads(path.read_text())["mutants"] if m["status"] == "killed"}


def test_split_trials_sums_to_budget():
    assert split_trials(7, 3) == [3, 2, 2] and split_trials(None, 2) == [None, None]


def test_two_workers_merge_deterministically(tmp_path, capsys):
    corpora = []
    for name in ("a", "b"):
        out = tmp_path / name
        assert main(["fuzz", SORT, "--trials", "40", "--seed", "4", "--workers", "2", "--quiet",
                     "--out", str(out)]) == 0
        corpora.append([p.read_bytes() for p in sorted((out / "corpus").glob("*.bin"))])
        states = [json.loads((worker_dir(out, k) / "state.json").read_text())["stats"] for k in range(2)]
        assert [s["trials"] for s in states] == [20, 20]
        union = _killed(worker_dir(out, 0) / "mutants.json") | _killed(worker_dir(out, 1) / "mutants.json")
        assert union and union <= _killed(out / "mutants.json")
        assert not (out / ".merging").exists()
    assert corpora[0] == corpora[1] and corpora[0]
    assert "merged corpus" in capsys.readouterr().out


def test_workers_need_an_output_directory(capsys):
    assert main(["fuzz", SORT, "--trials", "10", "--workers", "2", "--quiet"]) == 2
    assert "--workers needs --out" in capsys.readouterr().err
