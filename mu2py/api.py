"""mu2py as a library: one function per job (`score`, `mutate`, `fuzz`, `kill`, `corpus`, `props`), each returning a
typed result.

Each function takes the options of the command of the same name as keyword arguments (the same
names, `-` as `_`, with the same defaults) and does what the command does, minus the printing:

    import mu2py

    result = mu2py.score("path/to/project", paths=["src/pkg"], tests=["tests"], fail_under=80)
    print(result.score, result.exit_code)

Invariants, for every function here:

- nothing is printed on stdout (the code under test may print: that is its own); progress goes
  only to the optional `progress` callback, which gets a small dataclass (or one line of text);
- bad input raises `mu2py.errors.UserError` (one line a user can act on), never `SystemExit`;
- the result holds what the command's `--json` prints (or writes), and `exit_code` is the exit
  status the command would use for it (0 done, 1 below `fail_under`, 3 failures found);
- the command line (`mu2py.cli`) only maps its options onto these functions and renders the result.

`import mu2py` does not import this module: `mu2py.score` and the others load it on first use.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from mu2py.errors import UserError
from mu2py.inputs.storage import in_own_storage

if TYPE_CHECKING:  # importing the API does not import the engine: each job imports what it runs
    from mu2py.budget import Budget
    from mu2py.fuzz.config import FuzzConfig, Stats
    from mu2py.fuzz.fuzzer import Fuzzer
    from mu2py.inputs.replay import LoadedInput
    from mu2py.inputs.source import InputSource
    from mu2py.mutants.catalog import Program
    from mu2py.score.verdicts import Status, Verdict
    from mu2py.store.corpus import Entry
    from mu2py.survivors.kill import KillResult
    from mu2py.target.modules import Target
    from mu2py.testgen.corpus import CorpusResult

__all__ = ["FuzzProgress", "FuzzRunResult", "MutateProgress", "MutateResult", "PropsResult", "ScoreProgress",
           "ScoreResult", "ScoredMutant", "corpus", "fuzz", "kill", "mutate", "props", "score"]

PathLike = str | os.PathLike[str]
# a report as the command's --json prints it: JSON values only (str, numbers, bools, None, lists, dicts)
Report = dict[str, object]

PRUNING = ("none", "execution", "infection")
IMPORT_TIME = ("reload", "fresh", "skip")


# set while a job that runs pytest (`score`, `kill`; every command) is under way, so every process it starts inherits
# it: mu2py's pytest plugin ignores `--mu2py` there, and a suite whose addopts hold `--mu2py` never scores itself
# from inside a scoring run's workers
RUNNING_ENV = "MU2PY_RUNNING"


@contextmanager
def running() -> Iterator[None]:
    """`RUNNING_ENV` set in this process's environment for the block (then as it was before)."""
    saved = os.environ.get(RUNNING_ENV)
    os.environ[RUNNING_ENV] = "1"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(RUNNING_ENV, None)
        else:
            os.environ[RUNNING_ENV] = saved


def _check_choice(option: str, value: str, choices: Sequence[str]) -> None:
    if value not in choices:
        raise UserError(f"{option} must be one of {', '.join(choices)}, got {value!r}")


def _check_percent(option: str, value: float | None) -> None:
    if value is not None and not 0 <= value <= 100:
        raise UserError(f"{option} must be a percentage between 0 and 100, got {value!r}")


def _check_positive(option: str, value: int) -> None:
    if value < 1:
        raise UserError(f"{option} must be a positive integer, got {value!r}")


def below_fail_under(score: float | None, fail_under: float | None) -> str | None:
    """The one line saying a score (a percentage) is under `fail_under`, else None.

    No score (no mutant was judged, e.g. a `since` run whose change touches none) is no shortfall.
    """
    if fail_under is None or score is None or score >= fail_under:
        return None
    shown = f"{score:.1f}"
    if float(shown) >= fail_under:  # 94.96 is below 95, though it prints as 95.0: say so with the digits that show it
        shown = f"{score:.2f}"
    return f"mutation score {shown}% is below --fail-under {fail_under:g}%"


def _summary(report: Report) -> dict[str, object]:
    """A report's `summary` object (every job's report has one)."""
    summary = report["summary"]
    assert isinstance(summary, dict)
    return summary


# --- score -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScoreProgress:
    """Where a scoring run is: its phase, and how many of the mutants in scope are judged (`cached` from the cache).

    A phase starting with `Dask` is a note for people following the run (the dashboard's address).
    """

    phase: str
    judged: int
    total: int
    cached: int
    killed: int = 0  # of the judged: killed (each confirmed on the original before it counts)
    survived: int = 0  # of the judged: survived
    timeout: int = 0  # of the judged: timed out (confirmed as kills are), as the summary counts them apart

    def tally(self) -> str:
        """`killed 12, survived 3` (`, timeout 1` once one timed out): the verdicts so far, each final; empty
        before the first."""
        if not self.judged:
            return ""
        return f"killed {self.killed}, survived {self.survived}" + (f", timeout {self.timeout}" if self.timeout else "")


class _Gate:
    """A result with a `--fail-under` gate: `shortfall` (None when it passes) decides `passed` and `exit_code`."""

    @property
    def shortfall(self) -> str | None:
        """The line saying the score is under `fail_under` (None when it is not)."""
        raise NotImplementedError

    @property
    def passed(self) -> bool:
        """Whether the score is at least `fail_under` (always, without one)."""
        return self.shortfall is None

    @property
    def exit_code(self) -> int:
        """The exit status of the command for this result: 0, or 1 below `fail_under` (`score`: --baseline aside)."""
        return 0 if self.passed else 1


@dataclass(frozen=True)
class ScoredMutant:
    """One mutant of a `score` run, typed: where it is, what it changes, and its `verdict` (`verdict.status` a
    `Status`, equal to its name: `m.status == "survived"`).  Made from the report's entry for it."""

    id: str
    module: str
    file: Path
    line: int
    operator: str
    original: str
    mutated: str
    at_import: bool
    diff: str
    verdict: Verdict

    @property
    def status(self) -> Status:
        """The verdict's status."""
        return self.verdict.status

    @classmethod
    def from_report(cls, entry: dict[str, Any]) -> ScoredMutant:
        """The mutant an entry of `report["mutants"]` describes."""
        from mu2py.score.verdicts import Verdict

        return cls(entry["id"], entry["module"], Path(entry["file"]), entry["line"], entry["operator"],
                   entry["original"], entry["mutated"], entry["at_import"], entry.get("diff", ""),
                   Verdict.from_json(entry))


@dataclass(frozen=True)
class ScoreResult(_Gate):
    """A suite's mutation score: `report` is what `mu2py score --json` prints for the same run, `mutants` the same
    mutants typed.

    Invariants: `report["root"]` is `str(root)`; every mutant's entry has its `diff`; `exit_code` is 1
    exactly when `shortfall` is not None (the score is under `fail_under`), else 0.
    """

    report: Report
    root: Path
    fail_under: float | None = None

    @property
    def mutants(self) -> list[ScoredMutant]:
        """Every mutant of the run, in the report's order, with its verdict."""
        return [ScoredMutant.from_report(entry) for entry in cast(list[dict[str, Any]], self.report["mutants"])]

    @property
    def score(self) -> float | None:
        """Detected / total in [0, 1]; None when no mutant was judged."""
        value = _summary(self.report)["score"]
        return None if value is None else float(cast(float, value))

    @property
    def shortfall(self) -> str | None:
        """The line saying the score is under `fail_under` (None when it is not, or when there is no score)."""
        s = _summary(self.report)
        # from the counts: the summary's `score` is rounded to four digits already
        detected, total = cast(int, s["killed"]) + cast(int, s["timeout"]), cast(int, s["total"])
        return below_fail_under(100 * detected / total if total else None, self.fail_under)


# `score`'s options when neither the call nor `[tool.mu2py.score]` gives them
SCORE_DEFAULTS: dict[str, Any] = {"workers": 1, "timeout_factor": 10.0, "opt": "infection", "import_time": "reload",
                                  "fail_under": None, "cluster": None}


def score(root: PathLike = ".", *, package: str | None = None, paths: Sequence[str] | None = None,
          tests: Sequence[str] | None = None, skip: Sequence[str] | None = None,
          pytest_args: Sequence[str] | None = None, workers: int | None = None, cluster: str | None = None,
          timeout_factor: float | None = None, opt: str | None = None, import_time: str | None = None,
          cache: PathLike | None = None, no_cache: bool = False, since: str | None = None,
          shard: tuple[int, int] | None = None, fail_under: float | None = None,
          progress: Callable[[ScoreProgress], None] | None = None) -> ScoreResult:
    """The mutation score of a project's own pytest suite (`mu2py score`).

    The project's `[tool.mu2py]` table gives what is not given here (the command line wins; `package` and `paths`
    exclude each other), and its `[tool.mu2py.score]` table the options left None here (else `SCORE_DEFAULTS`).
    The verdict cache is `cache` (default `ROOT/.mu2py-cache/score.json`; none with `no_cache`). `since` judges
    only the mutants on lines changed since a git ref, `shard` (I, N) the I-th of N deterministic shards.
    """
    from mu2py.score.config import ScoreConfig
    from mu2py.score.diffs import add_diffs
    from mu2py.score.reports import report
    from mu2py.score.scope import Scope
    from mu2py.score.scoring import score as run_score
    from mu2py.score.since import changed_lines
    from mu2py.score.spec import SuiteSpec
    from mu2py.score.verdicts import Status
    from mu2py.target.project import command_options, load_config, modules_to_mutate

    if shard is not None and not 1 <= shard[0] <= shard[1]:
        raise UserError(f"--shard must be I/N with 1 <= I <= N, got {shard[0]}/{shard[1]}")
    where = Path(root).resolve()
    config = load_config(where)
    own = {**SCORE_DEFAULTS, **command_options(config, "score")}  # what an argument left None falls back to
    workers = workers if workers is not None else own["workers"]
    timeout_factor = float(timeout_factor if timeout_factor is not None else own["timeout_factor"])
    opt = opt or own["opt"]
    import_time = import_time or own["import_time"]
    fail_under = fail_under if fail_under is not None else own["fail_under"]
    cluster = cluster or own["cluster"]
    _check_positive("--workers", workers)
    _check_choice("--opt", opt, PRUNING[1:])
    _check_choice("--import-time", import_time, IMPORT_TIME)
    _check_percent("--fail-under", fail_under)
    skipped = list(config.get("skip", [])) + list(skip or [])
    # the arguments win over [tool.mu2py]; the two forms exclude each other
    modules, files, sys_path = modules_to_mutate(where, config, package, list(paths) if paths else None, skipped)
    suite = [*(tests or config.get("tests") or []), *config.get("pytest_args", []), *(pytest_args or [])]
    spec = SuiteSpec(root=str(where), pytest_args=tuple(suite), modules=tuple(modules), files=tuple(files),
                     sys_path=tuple(sys_path), skip_patterns=tuple(config.get("skip_lines", [])))
    cache_file = None if no_cache else Path(cache) if cache else where / ".mu2py-cache" / "score.json"
    lines = changed_lines(where, since, files) if since else None
    score_config = ScoreConfig(workers=workers, pruning=opt, timeout_factor=timeout_factor, cache=cache_file,
                               cluster=cluster, import_time=import_time,
                               scope=Scope(lines=lines, shard=shard, since=since))

    def on_progress(state: Any, phase: str) -> None:
        assert progress is not None
        scoped = state.selected  # --since, --shard: the others are not this run's to judge
        mine = [v for i, v in state.verdicts.items() if scoped is None or i in scoped]
        # mutants left out (a module this platform cannot import, `--import-time skip`) are not in the summary's
        # total either
        left_out = sum(1 for v in mine if v.status is Status.SKIPPED)
        mine = [v for v in mine if v.status is not Status.SKIPPED]
        total = (len(scoped) if scoped is not None else len(state.program.mutants)) - left_out
        killed = sum(1 for v in mine if v.status is Status.KILLED)
        survived = sum(1 for v in mine if v.status is Status.SURVIVED)
        timeout = sum(1 for v in mine if v.status is Status.TIMEOUT)
        progress(ScoreProgress(phase, len(mine), total, state.cached, killed, survived, timeout))

    with running():  # its workers' pytest sessions ignore --mu2py
        state = run_score(spec, score_config, on_progress if progress is not None else None)
    result = report(state)
    result["root"] = str(where)  # so that score-merge can move the paths to its own checkout
    add_diffs(result, state.program, where)  # every mutant's: 0.2 s for 3,000 (see `score.diffs`)
    if cache_file is not None:
        from mu2py.score.show import keep_last

        keep_last(result, cache_file)  # what `show` and `apply` read
    return ScoreResult(result, where, fail_under)


# --- mutate ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MutateProgress:
    """Where a `mutate` run is: `judged` of `total` inputs run through the mutants, `killed` mutants so far.

    Sent before each input (`label` names it) and once after the last (`label` None). When the inputs
    run in shards (`workers` > 1 or a `cluster`) there is no per-input progress: one event with `sharded`
    set, and `note` carries the Dask dashboard's address when there is one.
    """

    judged: int
    total: int
    killed: int
    label: str | None = None
    sharded: bool = False
    note: str | None = None


@dataclass(frozen=True)
class MutateResult(_Gate):
    """Kills of a set of inputs: `report` is what `mu2py mutate --json` prints for the same inputs.

    Invariants: `report["inputs"]` lists the inputs' labels, unique (a repeated one gets ` (#k)`);
    `exit_code` is 1 exactly when the score is under `fail_under`, else 0.
    """

    report: Report
    fail_under: float | None = None

    @property
    def killed(self) -> int:
        """Mutants killed by some input."""
        return cast(int, _summary(self.report)["killed"])

    @property
    def total(self) -> int:
        """Mutants of the target."""
        return cast(int, _summary(self.report)["total"])

    @property
    def shortfall(self) -> str | None:
        """The line saying the score is under `fail_under` (None when it is not)."""
        return below_fail_under(100 * self.killed / self.total if self.total else 100.0, self.fail_under)


@in_own_storage
def mutate(target: str, *, inputs: Sequence[PathLike] = (), values: Sequence[str] = (),
           targets: Sequence[str] | None = None, timeout: float | None = None, opt: str = "infection",
           memory_limit: int = 4096, workers: int = 1, cluster: str | None = None,
           fail_under: float | None = None, progress: Callable[[MutateProgress], None] | None = None
           ) -> MutateResult:
    """Run inputs through the original and every mutant of `target` (`MODULE:DRIVER`; `mu2py mutate`).

    `inputs` are input files or corpus directories, `values` Python literals (at least one of them);
    `targets` the module prefixes to mutate (default: the driver's package).
    """
    from mu2py.feedback.analysis import Analysis
    from mu2py.inputs.generators import source_for
    from mu2py.inputs.replay import load_files, load_literals
    from mu2py.mutants.catalog import Program
    from mu2py.target.modules import resolve_target

    if not inputs and not values:
        raise UserError("give inputs with --input PATH... or --value LITERAL...")
    _check_positive("--workers", workers)
    _check_choice("--opt", opt, PRUNING)
    _check_percent("--fail-under", fail_under)
    prefixes = tuple(targets) if targets else None
    resolved = resolve_target(target, prefixes)
    assert resolved.driver is not None
    loaded: list[LoadedInput] = []
    if inputs:
        loaded += load_files([os.fspath(p) for p in inputs], source_for(resolved.driver.source))
    if values:
        loaded += load_literals(values)
    loaded = _unique_labels(loaded)
    program = Program(resolved)
    analysis = Analysis(program, pruning=opt, timeout=timeout, memory_mb=memory_limit)
    say = progress or (lambda _: None)
    try:
        if cluster or workers > 1:
            from mu2py.feedback.shards import mutate_sharded
            from mu2py.processes.cluster import executor_for

            # the driver's and mutated modules, when they come from this machine's folders, travel with the job
            needs = [resolved.driver.module, *(m.name for m in resolved.modules)]
            with executor_for(workers, cluster, needs=needs) as pool:
                note = f"Dask dashboard: {pool.dashboard}" if cluster else None  # type: ignore[union-attr]  # a DaskExecutor when `cluster` is set
                say(MutateProgress(0, len(loaded), 0, sharded=True, note=note))
                shards = 4 * max(pool.workers, 1)  # a few shards per worker: a slow shard does not idle the rest
                mutate_sharded(analysis, target, prefixes, [(i.label, i.value) for i in loaded], pool, shards)
        else:
            for n, item in enumerate(loaded):
                say(MutateProgress(n, len(loaded), len(analysis.kills), item.label))
                analysis.analyse(item.value, item.label)
            say(MutateProgress(len(loaded), len(loaded), len(analysis.kills)))
    finally:
        analysis.close()  # the mutant host
    result = analysis.report()
    result["inputs"] = [i.label for i in loaded]
    return MutateResult(result, fail_under)


def _unique_labels(inputs: list[LoadedInput]) -> list[LoadedInput]:
    """The inputs with distinct labels: a repeated one gets ` (#k)`, so every kill names one input."""
    seen: dict[str, int] = {}
    unique = []
    for item in inputs:
        seen[item.label] = seen.get(item.label, 0) + 1
        unique.append(item if seen[item.label] == 1 else replace(item, label=f"{item.label} (#{seen[item.label]})"))
    return unique


# --- fuzz ------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FuzzProgress:
    """One step of a `fuzz` run, in order; `fuzzer` is the live campaign (read it, never change it).

    `kind` is one of: `loading` (the target and its mutants are being loaded), `loaded` (`message` says how many
    mutants, in how long), `warning` and `resumed` (a line for the user), `running` (the loop starts:
    `fuzzer` is set from here on), `status` (a checkpoint of the loop or of the final judging), `ran` (the
    loop ended), `judging` (coverage guidance: the corpus is being judged against the mutants), `judged`
    (`message` says so), `campaigns` (parallel campaigns: `rows` holds each one's counters), `dashboard`
    (`message` is the Dask dashboard's address), `campaign` (`message` sums up one parallel campaign, once
    they all ended).
    """

    kind: str
    message: str = ""
    fuzzer: Fuzzer | None = None
    rows: tuple[dict[str, int], ...] = ()


@dataclass(frozen=True)
class FuzzRunResult:
    """What a `fuzz` run leaves: `report` is `OUT/mutants.json` as written (the shape `mutate --json` prints).

    Invariants: `report` is None only under `judge=False` with coverage guidance; `exit_code` is 3 exactly when
    the original failed on some input (`stats.failures`; kept in `OUT/failures`), else 0. `campaigns` holds one
    summary line per parallel campaign (empty for one campaign).
    """

    report: Report | None
    corpus: list[Entry]
    stats: Stats
    coverage: int
    out: Path | None
    mutants: int = 0
    warnings: list[str] = field(default_factory=list)
    unreached: str | None = None  # why no input reached the targets' functions, when none did
    campaigns: list[str] = field(default_factory=list)

    @property
    def unjudged(self) -> int:
        """Saved inputs whose mutants did not all run (only under `judge=False`: the kills are a lower bound)."""
        return sum(not e.judged for e in self.corpus)

    @property
    def exit_code(self) -> int:
        """The exit status of `mu2py fuzz` for this result: 3 when failures were found, else 0."""
        return 3 if self.stats.failures else 0


@in_own_storage
def fuzz(target: str, *, trials: int | None = None, time: str | float | None = None, seed: int = 0,
         out: PathLike | None = None, seeds: PathLike | None = None, guidance: str = "mutation", split: bool = False,
         mutant_share: float | None = None, filter: str | None = None, workers: int = 1, cluster: str | None = None,
         judge: bool = True, targets: Sequence[str] | None = None, timeout: float | None = None,
         opt: str = "infection", memory_limit: int = 4096, started: float | None = None,
         progress: Callable[[FuzzProgress], None] | None = None) -> FuzzRunResult:
    """Mutation-guided (or coverage-guided) fuzzing of `target` (`MODULE:DRIVER`; `mu2py fuzz`).

    The budget is `trials` (reproducible with the same `seed`) and/or `time` (seconds, or a duration such as
    `60s`), counted from `started` on the budget clock (`mu2py.budget.now()`; default: now), loading and the
    final judging included. `out` is resumed when it holds a campaign; `seeds` (`--in`) is a directory of `.bin`
    inputs to start from. Ctrl-C propagates as `KeyboardInterrupt`, every output checkpointed first.
    """
    from mu2py.budget import Budget
    from mu2py.budget import now as budget_clock
    from mu2py.fuzz.config import FuzzConfig
    from mu2py.inputs.generators import source_for
    from mu2py.inputs.replay import CHOICES_SUFFIX
    from mu2py.target.modules import resolve_target

    if trials is None and time is None:
        raise UserError("give a budget: --trials N or --time DURATION")
    if trials is not None:
        _check_positive("--trials", trials)
    _check_positive("--workers", workers)
    _check_choice("--opt", opt, PRUNING)
    seconds = _seconds(time)
    if mutant_share is not None and not 0 < mutant_share <= 1:
        raise UserError(f"--mutant-share must be a number in (0, 1], got {mutant_share!r}")
    say = progress or (lambda _: None)
    # the budget started with the command: loading the target and its mutants, the final judging and the report
    # are all in it
    budget = Budget(trials, seconds, started=started or budget_clock())
    prefixes = tuple(targets) if targets else None
    resolved = resolve_target(target, prefixes)
    assert resolved.driver is not None
    source = source_for(resolved.driver.source)
    initial = []
    if seeds:
        for path in sorted(Path(seeds).glob(f"*{CHOICES_SUFFIX}")):
            initial.append(source.from_bytes(path.read_bytes()))
        if not initial:
            raise UserError(f"seed directory {os.fspath(seeds)} holds no {CHOICES_SUFFIX} inputs")
    where = Path(out) if out else None
    config = FuzzConfig(trials=trials, seconds=seconds, seed=seed, guidance=guidance, split=split, pruning=opt,
                        filter=filter, timeout=timeout, out=where, initial=initial, memory_mb=memory_limit,
                        mutant_share=mutant_share, judge=judge)
    if workers > 1 or cluster:
        return _fuzz_parallel(target, prefixes, config, workers, cluster, say, budget)
    return _fuzz_one(resolved, source, config, budget, say)


def _seconds(time: str | float | None) -> float | None:
    """A --time value (a duration such as `60s`, or seconds) in seconds; a `UserError` unless positive."""
    from mu2py.budget import parse_duration

    if time is None:
        return None
    seconds = parse_duration(time) if isinstance(time, str) else float(time)
    if seconds <= 0:
        raise UserError(f"--time {time} is not a positive duration")
    return seconds


def _fuzz_one(target: Target, source: InputSource, config: FuzzConfig, budget: Budget,
              say: Callable[[FuzzProgress], None]) -> FuzzRunResult:
    """One campaign: load, resume, run, judge what coverage guidance left unjudged."""
    import time as clock

    from mu2py.fuzz.fuzzer import Fuzzer

    loading = clock.perf_counter()
    say(FuzzProgress("loading"))
    fuzzer = Fuzzer(target, config, source=source, budget=budget)
    resumed = fuzzer.resume()
    if fuzzer.program is not None:
        say(FuzzProgress("loaded", f"loaded {len(fuzzer.program.mutants)} mutants of {', '.join(target.prefixes)} "
                                   f"in {clock.perf_counter() - loading:.1f} s"))
    else:
        say(FuzzProgress("loaded"))
    for warning in fuzzer.corpus.warnings:
        say(FuzzProgress("warning", f"warning: {warning}"))
    if resumed or fuzzer.stats.trials:
        say(FuzzProgress("resumed", f"resuming from {config.out}: {resumed} inputs, {fuzzer.stats.trials} trials "
                                    f"and {fuzzer.stats.elapsed:.0f} s done (budgets count the whole campaign)"))
    fuzzer.on_progress = lambda f: say(FuzzProgress("status", fuzzer=f))
    say(FuzzProgress("running", fuzzer=fuzzer))
    result = fuzzer.run()
    say(FuzzProgress("ran", fuzzer=fuzzer))
    if fuzzer.stats.valid == 0:
        raise UserError("the driver's strategy produced no valid input in the whole budget")
    report = result.report
    if report is None and config.judge:
        report = _judge_corpus(target, config, result.corpus, say, fuzzer.program)
    return FuzzRunResult(report, result.corpus, fuzzer.stats, len(fuzzer.coverage), config.out,
                         len(fuzzer.program.mutants) if fuzzer.program is not None else 0, list(fuzzer.warnings),
                         _unreached(report, fuzzer.program, target.prefixes) if report is not None else None)


def _unreached(report: Report, program: Program | None, targets: Sequence[str]) -> str | None:
    """Why no input reached a function of the targets, when none did (else None).

    The driver runs mu2py's copies of the targets only through the modules it imports from them;
    a call made through a module outside `targets` (or an import inside the driver function) runs
    the original modules, so no mutant can be killed and the campaign learns nothing.
    """
    if program is None:
        return None
    mutants = cast(list[dict[str, object]], report["mutants"])
    in_functions = [m for i, m in enumerate(mutants) if i not in program.static]
    if not in_functions or any(m["reached"] for m in in_functions):
        return None
    return (f"no input reached the code of {', '.join(targets)} (0 of {len(in_functions)} mutants in functions "
            "reached): the driver calls mu2py's copies of the targets only through target modules it imports at "
            "module level.  A call through another module, or an import inside the driver function, runs the "
            "original modules: import a target module in the driver's module, or add the modules the call goes "
            "through to targets=[...]")


def _judge_corpus(target: Target, config: FuzzConfig, corpus: list[Entry], say: Callable[[FuzzProgress], None],
                  program: Program | None = None) -> Report:
    """The mutation report of a corpus that no mutant ran on (coverage guidance), judged now and written to
    `OUT/mutants.json` as a mutation-guided run would have it."""
    from mu2py.fuzz.mutant_runs import judge_inputs
    from mu2py.store.atomic import write_json

    say(FuzzProgress("judging"))
    report = judge_inputs(target, config, [(e.name, e.value) for e in corpus], program)
    where = ""
    if config.out is not None:
        write_json(config.out / "mutants.json", report)
        where = f" ({config.out / 'mutants.json'})"
    say(FuzzProgress("judged", f"coverage guidance runs no mutants: the {len(corpus)} saved inputs were judged "
                               f"against them at the end{where}"))
    return report


def _fuzz_parallel(target: str, prefixes: tuple[str, ...] | None, config: FuzzConfig, workers: int,
                   cluster: str | None, say: Callable[[FuzzProgress], None], budget: Budget) -> FuzzRunResult:
    """`workers` campaigns (seeds S..S+N-1), locally or on Dask, their corpora merged into `config.out`, all of it
    within `budget` (the command's)."""
    from mu2py.fuzz.campaigns import run_parallel
    from mu2py.target.modules import resolve_target

    if config.out is None:
        raise UserError("--workers needs --out: each campaign writes its own directory under it")
    executor = None
    if cluster:
        from mu2py.processes.cluster import DaskExecutor
        from mu2py.target.driver import split_spec

        # the target's modules, when they come from this machine's folders, travel with the job
        executor = DaskExecutor(cluster, needs=[split_spec(target)[0], *(prefixes or ())])
        say(FuzzProgress("dashboard", f"Dask dashboard: {executor.dashboard}"))
    try:
        say(FuzzProgress("campaigns", rows=({},) * workers))
        result, summaries = run_parallel(target, prefixes, config, workers,
                                         lambda rows: say(FuzzProgress("campaigns", rows=tuple(rows))), executor,
                                         budget)
    finally:
        if executor is not None:
            executor.close()
    campaigns = [f"campaign w{k} (seed {config.seed + k}): {summary}" for k, summary in enumerate(summaries)]
    for line in campaigns:
        say(FuzzProgress("campaign", line))
    report = result.report
    if report is None and config.judge:
        report = _judge_corpus(resolve_target(target, prefixes), config, result.corpus, say)
    return FuzzRunResult(report, result.corpus, result.stats, result.coverage, config.out, campaigns=campaigns)


# --- kill ------------------------------------------------------------------------------------------------------


@in_own_storage
def kill(root: PathLike = ".", *, package: str | None = None, paths: Sequence[str] | None = None,
         tests: Sequence[str] | None = None, out: PathLike = "mu2py-kill", time: str | None = None,
         trials: int | None = None, seed: int = 0, workers: int = 1, cluster: str | None = None,
         timeout: float | None = None, no_cache: bool = False, started: float | None = None,
         progress: Callable[[str], None] | None = None) -> KillResult:
    """Write pytest tests that kill the mutants a suite lets survive (`mu2py kill`; see `mu2py.survivors.kill`).

    The budget is `trials` (reproducible: the same seed gives the same tests) or `time` (`60s`, `5m`;
    default 60s: the whole command's, counted from `started` on the budget clock, `mu2py.budget.now()`, default now),
    split evenly between the functions holding survivors; `cluster` (a Dask address) runs both scores of the suite
    there, as `score(cluster=...)` does. `progress` gets each line the
    command prints while it runs (a `mu2py.steps.Step`: a str that also names its phase and, while fuzzing,
    counts the functions done). `out` is locked for the run and released however it ends.
    """
    from mu2py.survivors.kill import KillOptions, run_kill

    options = KillOptions(root=Path(root), package=package, paths=tuple(paths) if paths else None,
                          tests=tuple(tests) if tests else None, out=Path(out), time=time, trials=trials, seed=seed,
                          workers=workers, cluster=cluster, timeout=timeout, no_cache=no_cache, started=started)
    with running():
        return run_kill(options, progress or (lambda _: None))



# --- corpus ----------------------------------------------------------------------------------------------------


@in_own_storage
def corpus(package: str, *, trials: int | None = None, time: str | None = None, seed: int = 0,
           out: PathLike = "mu2py-corpus", tests_out: PathLike | None = None, workers: int = 1,
           strategies: str | None = None, suite: Sequence[str] | None = None, no_score: bool = False,
           no_constants: bool = False, timeout: float | None = None, started: float | None = None,
           progress: Callable[[str], None] | None = None) -> CorpusResult:
    """Regression corpora for the public functions of `package` (`PKG[.module][:function]`) as pytest tests
    (`mu2py corpus`; see `mu2py.testgen.corpus`).

    The budget is `trials` (reproducible: the same seed gives the same test files) or `time` (`60s`, `5m`; default
    60s, counted from `started` on the budget clock, `mu2py.budget.now()`, default now: finding the functions,
    fuzzing them, writing and scoring the tests all fit in it), split evenly between the functions. The tests go to
    `tests_out` (default `OUT/tests`), the campaigns and `report.json` to `out`; `suite` (the package's own test
    paths) is scored alone and with the written tests, and the values it passes and the instances it builds seed
    the fuzzing (without `suite`: `[tool.mu2py] tests`, else what a plain `pytest` collects there, seeds it).
    `progress` gets each step (a `mu2py.steps.Step`; the first and the one after writing carry the functions found
    and their outcomes: `mu2py.testgen.corpus.Found`, `Written`).
    """
    from mu2py.testgen.corpus import CorpusOptions, run_corpus

    options = CorpusOptions(target=package, trials=trials, time=time, seed=seed, out=Path(out),
                            tests_out=Path(tests_out) if tests_out else None, workers=workers, strategies=strategies,
                            suite=tuple(suite) if suite else None, no_score=no_score, no_constants=no_constants,
                            timeout=timeout, started=started)
    with running():
        return run_corpus(options, progress or (lambda _: None))


# --- props -----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PropsResult:
    """How a suite's `@given` tests fare under mutation: `report` is what `mu2py props --json` prints.

    Invariants: every property's `killed` includes its `killed_default`; `weak` names the properties that reached
    a mutant they never killed; `html` is the HTML report's index when one was asked for; `exit_code` is 0 (a
    property failing on the original is reported in `report["bugs"]`, not an exit status).
    """

    report: Report
    html: Path | None = None
    exit_code: int = 0

    @property
    def killed(self) -> int:
        """Mutants killed by the properties after fuzzing (the default runs' kills included)."""
        return cast(int, _summary(self.report)["killed"])

    @property
    def reached(self) -> int:
        """Mutants reached by the properties."""
        return cast(int, _summary(self.report)["reached"])

    @property
    def weak(self) -> list[str]:
        """The properties that reached some mutant and never killed it."""
        return cast(list[str], _summary(self.report)["weak"])


def props(root: PathLike = ".", tests: Sequence[str] = (), *, package: str | None = None,
          paths: Sequence[str] | None = None, trials: int | None = None, time: str | float | None = None,
          seed: int = 0, workers: int = 1, cluster: str | None = None, guidance: str = "mutation", per_input: int = 8,
          no_save: bool = False, html: PathLike | None = None, judged: list[dict[str, Any]] | None = None,
          progress: Callable[[str], None] | None = None) -> PropsResult:
    """Score and strengthen the `@given` tests of a suite under mutation guidance (`mu2py props`; see
    `mu2py.props.run`).

    `tests` are test files or node ids (default: the whole suite); the budget is per test, one of `trials`
    (reproducible) or `time`; `cluster` (a Dask address) runs the tests' units on its workers, the project shipped
    as `score(cluster=...)` ships it, and the kills they find saved here. `per_input` mutants run per fuzzed input
    (0: every infected one); `no_save` keeps the killing inputs out of Hypothesis's example database; `html` is a
    folder for the HTML report; `judged`, when given, receives every mutant judged (for a
    mutation-testing-report-schema document). `progress` gets each phase as a `mu2py.steps.Step` (its text the
    phase's name), and while fuzzing each test fuzzed.
    """
    from mu2py.props.run import PropsConfig, spec_for
    from mu2py.props.run import props as run_props

    if (time is None) == (trials is None):
        raise UserError("give one budget per test: --trials N or --time DURATION")
    if trials is not None:
        _check_positive("--trials", trials)
    _check_positive("--workers", workers)
    _check_choice("--guidance", guidance, ("mutation", "coverage"))
    if per_input < 0:
        raise UserError(f"--per-input must be a non-negative integer, got {per_input!r}")
    if html is not None:
        from mu2py.store.atomic import ensure_writable

        ensure_writable(Path(html))  # said now, not after the run
    where = Path(root).resolve()
    selected = list(tests)
    spec = spec_for(where, package, list(paths) if paths else None, selected)
    config = PropsConfig(trials=trials, seconds=_seconds(time), seed=seed, guidance=guidance, workers=workers,
                         cluster=cluster, save=not no_save, per_input=per_input or None)
    with running():
        report = run_props(spec, config, selected, progress, judged=judged)
    index = None
    if html is not None:
        from mu2py.props.html import write_html

        index = write_html(report, Path(html))
    return PropsResult(report, index)
