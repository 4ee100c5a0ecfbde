"""Parallel fuzzing: N independent campaigns on worker processes, merged into one corpus.

Campaign k runs with seed `seed + k` in `OUT/workers/wK/` (a complete, resumable fuzz
output of its own) and gets `trials // N` trials (the first `trials % N` one more), or the
whole `--time` each.  When all are done, their corpora are replayed in order (worker 0
first) through one more mutation-guided pass that keeps an input only if it adds coverage
or kills a mutant: the merged `OUT/corpus/`, `mutants.json` and `failures/`.  The same seed,
budget and worker count give the same merged corpus.

Under `--time` the command's one budget holds it all: it starts with the command (the workers' start-up is
in it), the campaigns end MERGE_SECONDS (and a MERGE_SHARE of the budget) before its end, and the merge
takes their judged kills from their indexes instead of running every mutant again (`Fuzzer.adopt`),
judging only what a campaign left unjudged, until the budget's end.  The parent loads the target's
mutants for the merge while the campaigns run.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

from mu2py.budget import Budget, Deadline, process_started
from mu2py.budget import now as budget_clock
from mu2py.errors import UserError
from mu2py.fuzz.config import FuzzConfig, FuzzResult
from mu2py.fuzz.fuzzer import Fuzzer
from mu2py.inputs.generators import source_for
from mu2py.inputs.storage import in_own_storage
from mu2py.mutants.catalog import Program
from mu2py.processes.workers import Lost, executor
from mu2py.store.atomic import DirectoryLock, write_atomic, write_json
from mu2py.store.corpus import Corpus
from mu2py.target.modules import Target, resolve_target

MERGED = ("corpus", "failures", "mutants.json", "plot_data.csv", "state.json")
# under --time, what the campaigns leave of the budget for its end: the workers' exit, the merge (each saved input
# replayed once on the original, what a campaign left unjudged judged), the outputs written and the report printed
MERGE_SECONDS = 1.0
MERGE_SHARE = 0.02
# what the merge leaves of the budget for the command's own end (moving the outputs into place, the report printed)
FINAL_SECONDS = 0.3


def worker_dir(out: Path, k: int) -> Path:
    """Where campaign k writes."""
    return out / "workers" / f"w{k}"


def split_trials(trials: int | None, workers: int) -> list[int | None]:
    """Trials per campaign: an even split whose sum is `trials` (None stays None)."""
    if trials is None:
        return [None] * workers
    return [trials // workers + (1 if k < trials % workers else 0) for k in range(workers)]


def merge_reserve(seconds: float) -> float:
    """Seconds a --time budget of `seconds` keeps after the campaigns for merging them (at most half of it)."""
    return min(MERGE_SECONDS + MERGE_SHARE * seconds, seconds / 2)


def campaign_budget(unit: dict[str, Any], trials: int | None) -> Budget | None:
    """The budget of a unit's campaign: none for a trial budget; under --time, one that ends at the unit's end (the
    parent's deadline `until`, on this machine's clock; `left` seconds from now on a cluster's, whose clock differs).

    Its `seconds` count the campaign's earlier `elapsed` too, which `Fuzzer.run` charges to it (`Budget.resumed`)."""
    if unit.get("until") is not None:
        started = unit["started"]
        return Budget(trials, max(unit["until"] - started, 0.0) + unit.get("elapsed", 0.0), started=started)
    if unit.get("left") is not None:
        return Budget(trials, max(unit["left"], 0.0))
    return None


@in_own_storage
def run_campaign(unit: dict[str, Any]) -> dict[str, Any]:
    """One campaign in a worker: resolve the target, resume from its directory, fuzz, summarize."""
    config = FuzzConfig(**unit["config"])
    budget = campaign_budget(unit, config.trials)
    if unit.get("until") is not None and os.getpid() != unit.get("parent") \
            and unit["until"] - budget_clock() < budget_clock() - process_started():
        # in a worker process: loading the target and its mutants takes about as long as starting the process did
        # (imports of the same size); with less time left than that, on a machine far too busy, the campaign would
        # only overrun the budget
        return {"trials": 0, "corpus": 0, "coverage": 0, "killed": 0,
                "skipped": "too little of the --time budget was left once its worker had started"}
    target = resolve_target(unit["spec"], unit["prefixes"])
    try:
        fuzzer = Fuzzer(target, config, budget=budget)
        fuzzer.resume()
        result = fuzzer.run()
    except UserError as exc:  # sent back as data: the parent reports it as the one-line error it is
        return {"error": str(exc)}
    return {"trials": fuzzer.stats.trials, "corpus": len(result.corpus), "coverage": result.coverage,
            "killed": result.report["summary"]["killed"] if result.report else 0}


def remote_campaign(unit: dict[str, Any]) -> dict[str, Any]:
    """One campaign on a cluster worker: files go to a scratch folder there; the corpus comes back as data."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="mu2py-campaign-") as scratch:
        # the parent's clock is not this machine's: the campaign ends `left` seconds after it was sent
        left = None if unit.get("until") is None else unit["until"] - unit["sent"]
        local = dict(unit, config=dict(unit["config"], out=Path(scratch)), until=None, left=left)
        summary = run_campaign(local)
        if "error" in summary:
            return summary
        corpus = Path(scratch) / "corpus"
        summary["index"] = json.loads((corpus / "index.json").read_text()) if (corpus / "index.json").is_file() else []
        summary["files"] = {p.name: p.read_bytes() for p in corpus.iterdir() if p.suffix in (".bin", ".txt")} \
            if corpus.is_dir() else {}
        failures = Path(scratch) / "failures"
        summary["failures"] = {p.name: p.read_bytes() for p in failures.iterdir()} if failures.is_dir() else {}
        return summary


def _store_remote(out: Path, k: int, summary: dict[str, Any]) -> dict[str, Any]:
    """Write what a remote campaign sent back into its local folder, as a local campaign would have left it."""
    folder = worker_dir(out, k)
    for name, data in summary.pop("files").items():
        write_atomic(folder / "corpus" / name, data)
    for name, data in summary.pop("failures").items():
        write_atomic(folder / "failures" / name, data)
    write_json(folder / "corpus" / "index.json", summary.pop("index"))
    return summary


def progress(out: Path, workers: int) -> list[dict[str, Any]]:
    """The latest stats each campaign has checkpointed (empty dict before its first checkpoint)."""
    rows = []
    for k in range(workers):
        path = worker_dir(out, k) / "state.json"
        try:
            rows.append(json.loads(path.read_text())["stats"])
        except (OSError, ValueError, KeyError):
            rows.append({})
    return rows


def _replace_outputs(staging: Path, out: Path) -> None:
    # each merged output moves into place with a rename: a reader sees the old or the new one
    for name in MERGED:
        new, old = staging / name, out / name
        if not new.exists():
            continue
        if new.is_dir() and old.exists():
            trash = out / f".old-{name}"
            shutil.rmtree(trash, ignore_errors=True)
            old.rename(trash)
            new.rename(old)
            shutil.rmtree(trash, ignore_errors=True)
        else:
            new.replace(old)
    shutil.rmtree(staging, ignore_errors=True)


def _copy_failures(out: Path, workers: int, staging: Path) -> int:
    """Gather each campaign's failures, one per (exception, location), renumbered."""
    seen: set[tuple[str, str]] = set()
    target = staging / "failures"
    for k in range(workers):
        folder = worker_dir(out, k) / "failures"
        for meta_path in sorted(folder.glob("failure_*.json")):
            meta = json.loads(meta_path.read_text())
            key = (meta.get("exception", "?"), meta.get("location", "?"))
            if key in seen:
                continue
            name = f"failure_{len(seen):06d}"
            seen.add(key)
            for suffix in (".bin", ".txt", ".json"):
                src = meta_path.with_suffix(suffix)
                if src.is_file():
                    write_atomic(target / f"{name}{suffix}", src.read_bytes())
    return len(seen)


def _load_program(spec: str, prefixes: tuple[str, ...] | None, config: FuzzConfig) -> tuple[Target, Program | None]:
    """The target and its mutants, as the merge needs them (no mutants under coverage guidance)."""
    target = resolve_target(spec, prefixes)
    return target, Program(target) if config.guidance == "mutation" else None


def _seeds(source: Any, out: Path, workers: int) -> list[Any]:
    """Every campaign's saved inputs, worker 0's first, each in its campaign's order."""
    entries = []
    for k in range(workers):
        entries.extend(Corpus(source, worker_dir(out, k) / "corpus").load())
    return entries


def merge(spec: str, prefixes: tuple[str, ...] | None, config: FuzzConfig, workers: int,
          loaded: tuple[Target, Program | None] | None = None, deadline: Deadline = Deadline.never(),
          mutant_runs: int = 0) -> FuzzResult:
    """Replay every campaign's corpus through one mutation-guided pass into `config.out` (see module doc).

    Under --time the pass takes each input's kills from its campaign (`Fuzzer.adopt`, whose mutant runs,
    `mutant_runs` in all, are the merged campaign's) and ends by `deadline`; under a trial budget it runs the
    mutants again, as a campaign of that many trials would.  `loaded` is the target and its mutants when the caller
    has them already."""
    out = config.out
    assert out is not None
    target, program = loaded or _load_program(spec, prefixes, config)
    assert target.driver is not None
    source = source_for(target.driver.source)
    entries = _seeds(source, out, workers)
    staging = out / ".merging"
    shutil.rmtree(staging, ignore_errors=True)
    if config.seconds is None:
        merged = replace(config, trials=max(len(entries), 1), seconds=None, initial=[e.choices for e in entries],
                         out=staging, split=False, filter=None)
        result = Fuzzer(target, merged, source=source, program=program).run()
    else:
        merged = replace(config, initial=[], out=staging, split=False, filter=None)
        fuzzer = Fuzzer(target, merged, source=source, program=program)
        fuzzer.stats.mutant_runs = mutant_runs
        if fuzzer.analysis is not None:
            fuzzer.analysis.mutant_runs = mutant_runs
        result = fuzzer.adopt(entries, deadline)
    failures = _copy_failures(out, workers, staging)
    result.stats.failures = failures
    _replace_outputs(staging, out)
    return result


def run_parallel(spec: str, prefixes: tuple[str, ...] | None, config: FuzzConfig, workers: int,
                 on_progress: Callable[[list[dict[str, Any]]], None] | None = None,
                 cluster: Any = None, budget: Budget | None = None) -> tuple[FuzzResult, list[Any]]:
    """Run `workers` campaigns in parallel, then merge; returns the merged result and per-campaign summaries.

    With `cluster` (an executor such as `mu2py.processes.cluster.DaskExecutor`) the campaigns run there and
    send their corpora back as data; they start afresh (a cluster run does not resume campaigns).  `budget` is the
    command's (default: `config`'s, from now): under --time, everything here ends by its deadline.
    """
    out = config.out
    if out is None:
        raise ValueError("parallel campaigns need an output directory")
    lock = DirectoryLock(out)  # each campaign locks its own workers/wK as well (see Fuzzer)
    try:
        return _run_parallel(spec, prefixes, config, workers, on_progress, cluster,
                             budget or Budget(config.trials, config.seconds))
    finally:
        lock.release()


def _run_parallel(spec: str, prefixes: tuple[str, ...] | None, config: FuzzConfig, workers: int,
                  on_progress: Callable[[list[dict[str, Any]]], None] | None,
                  cluster: Any, budget: Budget) -> tuple[FuzzResult, list[Any]]:
    out = config.out
    assert out is not None
    before = progress(out, workers)  # a resumed run's campaigns: what each has spent already
    # the campaigns ran side by side: the time spent of the budget is the longest one's
    budget = budget.resumed(max((row.get("elapsed", 0.0) for row in before), default=0.0))
    deadline = budget.deadline()
    # the campaigns end early enough for the merge (see MERGE_SECONDS)
    ends = deadline.sooner_by(merge_reserve(config.seconds)) if config.seconds is not None else deadline
    units = []
    for k, trials in enumerate(split_trials(config.trials, workers)):
        own = replace(config, trials=trials, seed=config.seed + k, out=worker_dir(out, k))
        fields = asdict(own)
        units.append({"spec": spec, "prefixes": prefixes, "config": fields, "until": ends.at,
                      "started": budget.started, "elapsed": before[k].get("elapsed", 0.0), "sent": budget_clock(),
                      "parent": os.getpid()})
    write_json(out / "workers" / "plan.json", {"workers": workers, "seed": config.seed, "trials": config.trials,
                                                "seconds": config.seconds})
    summaries: list[Any] = [None] * workers
    tick = (lambda: on_progress(progress(out, workers))) if on_progress else None
    # the merge's mutants are loaded here while the campaigns run (a second on a large target): off the budget's end
    with ThreadPoolExecutor(1, thread_name_prefix="mu2py-merge-load") as loader:
        loading: Future[tuple[Target, Program | None]] = loader.submit(_load_program, spec, prefixes, config)
        if cluster is not None:
            for index, summary in cluster.map_unordered(remote_campaign, units, on_wait=tick):
                summaries[index] = summary if "error" in summary else _store_remote(out, index, summary)
        else:
            with executor(workers) as pool:
                for index, summary in pool.map_unordered(run_campaign, units, on_wait=tick):
                    summaries[index] = summary
        loaded = loading.result()
    errors = [s["error"] for s in summaries if isinstance(s, dict) and "error" in s]
    if errors:
        raise UserError(errors[0])
    lost = [k for k, s in enumerate(summaries) if isinstance(s, Lost)]
    if lost:
        # a campaign's directory holds everything it checkpointed; merging what is there loses nothing
        for k in lost:
            summaries[k] = {"lost": summaries[k].reason}
    runs = sum(row.get("mutant_runs", 0) for row in progress(out, workers))
    return merge(spec, prefixes, config, workers, loaded, deadline.sooner_by(FINAL_SECONDS), runs), summaries
