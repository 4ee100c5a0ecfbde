"""The work units `mu2py props` sends to score workers (each hosting the project's pytest session).

Each unit is a frozen dataclass and each result a dataclass (`run_unit` dispatches by type):

- score's `BASELINE` (every test on the probed original: outcome, reached, infected) -> `SuiteRecord`;
- `ListTests`: which collected tests `fuzz_one_input` can drive, and why not the others -> `Listed`;
- `DefaultRuns`: one test's default Hypothesis run (its examples, the forced seed) per mutant -> `Defaults`;
- `FindBug`: a test that fails on the original, run again for its error and minimal example -> `Bug`;
- `Campaign`: one test's campaign (`loop.PropertyFuzzer`), its kills saved to the project's database
  -> `CampaignRun`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field, replace
from typing import Any

from hypothesis.database import choices_to_bytes

from mu2py.props.handle import Input, PropertyHandle, direct_params, why_not_fuzzable
from mu2py.props.loop import PropertyFuzzer, mutant_plan, swapped_in
from mu2py.score import given, hosted, runner
from mu2py.score.plan import ScoreUnit
from mu2py.score.recorded import SuiteRecord
from mu2py.score.units import run_unit as score_unit
from mu2py.score.verdicts import Result

STORAGE = "HYPOTHESIS_STORAGE_DIRECTORY"
"""Hypothesis's storage folder (its example database is `examples/` there), which props sets for every worker."""

SHRINK_SECONDS = 10.0  # at most this long shrinking one killing input (else it is kept as found)
SHRINK_SHARE = 0.25  # all shrinking of one test's kills and bugs: at most this share of its fuzzing budget...
SHRINK_LEAST = 2.0  # ...or this many seconds, whichever is more


# -- the units, parent to worker ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ListTests:
    """Which collected tests `fuzz_one_input` can drive (`props_list`)."""


@dataclass(frozen=True)
class DefaultRuns:
    """One test's default run against each of `mutants` (`props_default`); `position` is its place in collection.
    Under `--time`, `each` is the seconds per mutant its default runs may take on average (their share of the
    test's budget): past `each` times its mutants, the rest are left to the fuzzing."""

    nodeid: str
    position: int
    timeout: float
    mutants: tuple[int, ...]
    each: float | None = None


@dataclass(frozen=True)
class FindBug:
    """A test failing on the original, run again for its error and minimal example (`props_bug`)."""

    nodeid: str
    position: int


@dataclass(frozen=True)
class Campaign:
    """One test's fuzzing campaign (`props_fuzz`, `loop.PropertyFuzzer`): its budget (`trials` or `seconds`; `budget`
    is `--time` itself, which bounds shrinking too), seed and guidance, the mutants it may kill (`candidates`) and
    those its default run killed already."""

    nodeid: str
    position: int
    seed: int
    guidance: str
    candidates: tuple[int, ...]
    trials: int | None = None
    seconds: float | None = None
    budget: float | None = None
    save: bool = True
    per_input: int | None = None
    killed_before: tuple[int, ...] = ()
    timeout: float = 1.0
    ship_saves: bool = False  # on a cluster machine: kills go back to the client, which saves them

    @property
    def reserve(self) -> float:
        """Under `--time`, the seconds the fuzzing leaves for shrinking once it found something to shrink (a kill,
        a bug): its shrinking then ends with the budget (see `props_fuzz`)."""
        # a share of the fuzzing's own time, not of the budget: a short budget's default runs may leave the
        # fuzzing little more than that share, and the kills come first
        return SHRINK_SHARE * self.seconds if self.budget is not None and self.seconds is not None else 0.0


PropsUnit = ListTests | DefaultRuns | FindBug | Campaign


# -- the results, worker to parent --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listed:
    """Per collected test (collection order) its node id and None, or why it cannot be fuzzed; or the session's
    error."""

    tests: tuple[tuple[str, str | None], ...] = ()
    error: str | None = None


@dataclass
class Defaults:
    """What one test's default runs found: the mutants killed (index: "exception", "timeout" or "crash"), those
    that cannot be swapped in, those left for a fresh worker (`rest`), those the budget left to the fuzzing
    (`unjudged`), and the seconds taken."""

    killed: dict[int, str] = field(default_factory=dict)
    unswappable: list[int] = field(default_factory=list)
    rest: tuple[int, ...] = ()
    unjudged: list[int] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class Bug:
    """A failure on the original: the error in one line, and Hypothesis's minimal example."""

    error: str
    example: str


@dataclass(frozen=True)
class FuzzKill:
    """A mutant a campaign killed: how, at which trial, the killing input (hex), its `@example` line, whether it
    was saved to the example database, and (on a cluster machine) what the client saves instead."""

    reason: str
    trial: int
    buffer: str
    example: str | None  # None: the test's arguments cannot be written as an `@example` line
    saved: bool
    shipped: tuple[str, str, str] | None = None  # folder in Hypothesis's storage, key and value (hex)

    def to_json(self) -> dict[str, Any]:
        """The report's fields (`shipped` is the client's to act on, not reported)."""
        return {"reason": self.reason, "trial": self.trial, "buffer": self.buffer, "example": self.example,
                "saved": self.saved}


@dataclass
class CampaignRun:
    """One campaign's outcome: its kills (by mutant index), the mutants it reached, its counters and the bugs it
    found on the original (the report's shape)."""

    nodeid: str
    kills: dict[int, FuzzKill]
    reached: list[int]
    trials: int
    no_database: bool
    valid: int
    corpus: int
    lines: int
    mutant_runs: int
    events: list[str]
    targets: dict[str, float]
    bugs: list[dict[str, Any]]
    seconds: float


def shrink_budget(budget: float | None, seconds: float) -> float:
    """Seconds all shrinking after a campaign may take: a share of its time budget (`--time`), else of the
    `seconds` fuzzing took, so that wall time follows `--time` (shrinking 10 s per kill, a campaign with dozens
    of kills took several times its budget)."""
    return max(SHRINK_LEAST, SHRINK_SHARE * (budget if budget is not None else seconds))


def props_list(unit: ListTests) -> Listed:
    """Per collected test (collection order): its node id, and None or why it cannot be fuzzed."""
    state = hosted.state()
    if state.error:
        return Listed(error=state.error)
    return Listed(tuple((item.nodeid, why_not_fuzzable(item)) for item in state.order))


def props_default(unit: DefaultRuns) -> Defaults:
    """The test run as pytest runs it, once per mutant of `unit.mutants`: which mutants it kills.

    A mutant that cannot be swapped in is listed under `unswappable` (props judges function-level
    mutants only).  A timeout inside one example (see `mu2py.score.given`) leaves the worker
    sound; after one elsewhere it is replaced (the alarm may have hit pytest's own bookkeeping)
    and the mutants not yet run come back under `rest`, for a fresh worker.
    """
    state = hosted.state()
    item = hosted.item(state, unit.nodeid, unit.position)
    found = Defaults()
    start = time.perf_counter()
    budget = unit.each * len(unit.mutants) if unit.each is not None else None
    for position, index in enumerate(unit.mutants):
        if budget is not None and time.perf_counter() - start >= budget:
            found.unjudged = list(unit.mutants[position:])  # still candidates of the test's fuzzing
            break
        plan = mutant_plan(index)
        if plan is None:
            found.unswappable.append(index)
            continue
        with swapped_in(index, plan):
            outcome = runner.run_test(item, unit.timeout)
        if outcome != "passed":
            found.killed[index] = "timeout" if outcome == "timeout" else "exception"
        if runner.replacing:  # the worker is replaced (the runner's own decision): the rest go to a fresh one
            found.rest = unit.mutants[position + 1:]
            break
    found.seconds = time.perf_counter() - start
    return found


def props_bug(unit: FindBug) -> Bug:
    """A test failing on the original, run once more as Hypothesis runs it: its error and minimal example.

    Hypothesis shrinks the failure and attaches the falsifying example to the exception as a note.
    """
    state = hosted.state()
    item = hosted.item(state, unit.nodeid, unit.position)
    hosted.fresh_start(state)
    fn = given.function_of(item)
    judging = fn._hypothesis_internal_use_settings
    fn._hypothesis_internal_use_settings = state.shrinking.get(fn, judging)  # shrinking on: the minimal example
    try:
        item.obj(**direct_params(item))
    except Exception as exc:  # noqa: BLE001 - the failure is what is reported
        # Hypothesis notes it as "Falsifying example: ..." (6.1xx) or "Failing test case: ..." (6.170 on)
        notes = [n for n in getattr(exc, "__notes__", ())
                 if n.startswith(("Falsifying", "Failing test case")) or "example" in n.lower()]
        return Bug(f"{type(exc).__name__}: {str(exc)[:300]}".strip(),
                   "\n".join(notes) or "(no falsifying example: not a Hypothesis failure)")
    finally:
        fn._hypothesis_internal_use_settings = judging
    return Bug("passed when run again (flaky?)", "")


def props_fuzz(unit: Campaign) -> CampaignRun:
    """One test's campaign; returns its kills (with `@example` lines and whether each was saved), reach, bugs."""
    state = hosted.state()
    item = hosted.item(state, unit.nodeid, unit.position)
    handle = PropertyHandle(item)
    fuzzer = PropertyFuzzer(handle, unit)
    start = time.perf_counter()
    fuzzer.run()
    seconds = time.perf_counter() - start
    program = state.program
    assert program is not None
    database = handle.database if unit.save else None
    settings = state.shrinking.get(handle.fn, handle.settings)  # the test's own settings, shrinking on
    timeout = max(1.0, unit.timeout)
    # under --time, shrinking ends with the fuzzing budget (the fuzzing left it `unit.reserve`): the test keeps to
    # its --time; else it may take a share of the time the fuzzing took
    shrink_until = (start + unit.seconds if unit.reserve and unit.seconds is not None
                    else time.perf_counter() + shrink_budget(unit.budget, seconds))

    def shrink_time() -> float:
        # past the budget an input is kept as found
        return min(SHRINK_SECONDS, shrink_until - time.perf_counter())

    kills = {}
    for index, kill in sorted(fuzzer.kills.items()):
        saved, serialized, representation = False, _serialized(kill.buffer), kill.representation
        shipped: tuple[str, str, str] | None = None  # saved by the client instead (`run.save_shipped`)
        if unit.reserve and shrink_time() <= 0:
            # under --time, past the budget: kept as found, neither replayed to be saved nor shrunk (the kill
            # stands: the fuzzing saw the mutant fail where the original passed)
            kills[index] = FuzzKill(kill.reason, kill.trial, serialized.hex(), handle.example_line(representation),
                                    False, None)
            continue
        plan = mutant_plan(index)
        assert plan is not None
        hosted.fresh_start(state)
        with swapped_in(index, plan):
            found = handle.failing_choices(kill.buffer, timeout)
            # Hypothesis shrinks it on the mutant: the @example line and the saved input are its minimal form
            left = shrink_time()
            shrunk = handle.shrink(*found, settings, left) if found is not None and left > 0 else None
        if found is not None:
            db_key, value = found
            if shrunk is not None:
                (value, representation), serialized = shrunk, shrunk[0]
            folder = _shippable(database) if unit.ship_saves else None
            if folder is not None:  # on a cluster machine: the client saves it, into its own storage folder
                shipped = (folder, db_key.hex(), value.hex())
            elif database is not None:
                database.save(db_key, value)
                saved = True
        kills[index] = FuzzKill(kill.reason, kill.trial, serialized.hex(), handle.example_line(representation), saved,
                                shipped)
    bugs = []
    for key, bug in fuzzer.bugs.items():
        # on the original code: Hypothesis's minimal form of the input that fails the property
        hosted.fresh_start(state)
        found = handle.failing_choices(fuzzer.bug_inputs[key], timeout)
        left = max(1.0, shrink_time())  # a bug's minimal example is worth a second past the budget
        shrunk = handle.shrink(*found, settings, left) if found is not None else None
        bugs.append(dict(bug, example=shrunk[1]) if shrunk is not None else bug)
    # Hypothesis's "ci" profile (loaded when a CI variable such as CI is set) turns the database off
    no_database = unit.save and database is None
    return CampaignRun(item.nodeid, kills, sorted(fuzzer.reached), fuzzer.trial, no_database, fuzzer.valid,
                       len(fuzzer.corpus), fuzzer.lines, fuzzer.mutant_runs, sorted(fuzzer.labels.events),
                       dict(fuzzer.labels.best), bugs, round(seconds, 3))


def _shippable(database: Any) -> str | None:
    """Where `database` lies in Hypothesis's storage folder (`HYPOTHESIS_STORAGE_DIRECTORY`, as props sets it for
    every worker), relative to it, when it is a folder there (on a cluster machine: a copy of the client's, where
    the client saves what this worker found); else None."""
    from hypothesis.database import DirectoryBasedExampleDatabase

    storage = os.environ.get(STORAGE)
    if not isinstance(database, DirectoryBasedExampleDatabase) or not storage:
        return None
    folder, base = os.path.realpath(database.path), os.path.realpath(storage)
    return os.path.relpath(folder, base) if folder.startswith(base + os.sep) else None


def _serialized(inp: Input) -> bytes:
    """A kill's input as bytes: the buffer itself, or Hypothesis's serialization of a choice sequence."""
    return inp if isinstance(inp, bytes) else choices_to_bytes(inp)


def run_unit(unit: PropsUnit | ScoreUnit) -> Listed | Defaults | Bug | CampaignRun | Result | SuiteRecord:
    """Dispatch a unit by its type: the props units here, score's own (its baseline) there."""
    if isinstance(unit, ScoreUnit):
        return score_unit(unit)  # score's baseline: its record of the suite
    if isinstance(unit, ListTests):
        return props_list(unit)
    if isinstance(unit, DefaultRuns):
        return props_default(unit)
    if isinstance(unit, FindBug):
        return props_bug(unit)
    return props_fuzz(unit)


def shipped_saved(run: CampaignRun) -> list[tuple[str, str, str]]:
    """The kills a cluster worker shipped back instead of saving them, each marked saved from now on (the caller
    saves them): folder in Hypothesis's storage, key and value (hex)."""
    found = []
    for index, kill in run.kills.items():
        if kill.shipped is not None:
            found.append(kill.shipped)
            run.kills[index] = replace(kill, saved=True, shipped=None)
    return found
