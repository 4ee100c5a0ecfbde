"""Parallel campaigns: per-worker directories, a deterministic merge, and kills kept across the merge."""

import json
from dataclasses import asdict
from pathlib import Path

from mu2py.budget import Deadline
from mu2py.budget import now as budget_clock
from mu2py.cli.main import main
from mu2py.fuzz.campaigns import campaign_budget, merge, merge_reserve, run_campaign, split_trials, worker_dir
from mu2py.fuzz.config import FuzzConfig
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.target.modules import resolve_target

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


def test_a_timed_campaign_ends_at_the_parents_deadline_from_the_commands_start():
    unit = {"until": 1060.0, "started": 1000.0, "elapsed": 0.0}
    assert campaign_budget(unit, None).deadline() == Deadline(1060.0)
    # a resumed campaign's earlier time is charged to its budget (`Fuzzer.run`): its end does not move
    resumed = {"until": 1060.0, "started": 1000.0, "elapsed": 25.0}
    assert campaign_budget(resumed, None).resumed(25.0).deadline() == Deadline(1060.0)
    assert campaign_budget({"until": None}, 40) is None  # a trial budget: as the campaign alone would have it
    assert merge_reserve(60.0) < 60.0 / 2 and merge_reserve(1.0) == 0.5


def _campaigns(out: Path, trials: int = 30) -> None:
    """Two campaigns of a trial budget, left in `out` as `run_parallel` leaves them (but for the merge)."""
    target = resolve_target(SORT, None)
    for k in range(2):
        Fuzzer(target, FuzzConfig(trials=trials, seed=k, out=worker_dir(out, k))).run()


def test_a_timed_merge_takes_the_campaigns_kills_without_running_mutants(tmp_path, monkeypatch):
    _campaigns(tmp_path)
    union = _killed(worker_dir(tmp_path, 0) / "mutants.json") | _killed(worker_dir(tmp_path, 1) / "mutants.json")
    judged_by: list[Deadline] = []
    monkeypatch.setattr(Fuzzer, "finish_judging", lambda self, deadline=Deadline.never(): judged_by.append(deadline))
    deadline = Deadline.after(600.0)
    result = merge(SORT, None, FuzzConfig(seconds=60, out=tmp_path), 2, deadline=deadline, mutant_runs=7)
    assert _killed(tmp_path / "mutants.json") == union and result.stats.mutant_runs == 7
    # the final judging gets what is left of the merge's deadline, less the last checkpoint
    assert len(judged_by) == 1 and judged_by[0].at is not None and deadline.at - 1 < judged_by[0].at < deadline.at
    index = json.loads((tmp_path / "corpus" / "index.json").read_text())
    assert all(e["judged"] for e in index) and {m for e in index for m in e["kills"]} == union


def test_a_merge_past_its_deadline_keeps_every_input_and_judges_none(tmp_path):
    _campaigns(tmp_path)
    saved = sum(len(json.loads((worker_dir(tmp_path, k) / "corpus" / "index.json").read_text())) for k in range(2))
    result = merge(SORT, None, FuzzConfig(seconds=60, out=tmp_path), 2, deadline=Deadline(budget_clock() - 1))
    # nothing replayed, nothing lost: every saved input is kept (less the duplicates), with its campaign's kills
    assert 0 < len(result.corpus) <= saved and result.stats.trials == len(result.corpus)
    union = _killed(worker_dir(tmp_path, 0) / "mutants.json") | _killed(worker_dir(tmp_path, 1) / "mutants.json")
    assert _killed(tmp_path / "mutants.json") == union


def test_a_worker_left_less_time_than_its_own_start_took_skips_its_campaign(tmp_path):
    config = asdict(FuzzConfig(seconds=60, out=worker_dir(tmp_path, 0)))
    unit = {"spec": "no.such:target", "prefixes": None, "config": config, "until": budget_clock() + 1e-3,
            "started": budget_clock() - 59, "elapsed": 0.0, "parent": -1}  # -1: this process is a worker
    summary = run_campaign(unit)  # the target is never resolved: it would raise
    assert summary["trials"] == 0 and "skipped" in summary and not worker_dir(tmp_path, 0).exists()
