"""The work units `mu2py props` sends to score workers (each hosting the project's pytest session).

- `baseline`: score's own (every test on the probed original: outcome, reached, infected);
- `props_list`: which collected tests `fuzz_one_input` can drive, and why not the others;
- `props_default`: one test's default Hypothesis run (its examples, the forced seed) per mutant;
- `props_bug`: a test that fails on the original, run again for its error and Hypothesis's minimal example;
- `props_fuzz`: one test's campaign (`loop.PropertyFuzzer`), its kills saved to the project's database.
"""

from __future__ import annotations

import os
import time
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


def shrink_budget(unit: dict[str, Any], seconds: float) -> float:
    """Seconds all shrinking after a campaign may take: a share of its time budget, so that wall time follows
    `--time` (shrinking 10 s per kill, a campaign with dozens of kills took several times its budget)."""
    budget = unit.get("budget")
    return max(SHRINK_LEAST, SHRINK_SHARE * (budget if budget is not None else seconds))


def props_list(unit: dict[str, Any]) -> dict[str, Any]:
    """Per collected test (collection order): its node id, and None or why it cannot be fuzzed."""
    state = hosted.state()
    if state.error:
        return {"error": state.error}
    return {"tests": [(item.nodeid, why_not_fuzzable(item)) for item in state.order]}


def props_default(unit: dict[str, Any]) -> dict[str, Any]:
    """The test run as pytest runs it, once per mutant of `unit["mutants"]`: which mutants it kills.

    A mutant that cannot be swapped in is listed under `unswappable` (props judges function-level
    mutants only).  A timeout inside one example (see `mu2py.score.given`) leaves the worker
    sound; after one elsewhere it is replaced (the alarm may have hit pytest's own bookkeeping)
    and the mutants not yet run come back under `rest`, for a fresh worker.
    """
    state = hosted.state()
    item = hosted.item(state, unit["nodeid"], unit["position"])
    killed, unswappable = {}, []
    start = time.perf_counter()
    for position, index in enumerate(unit["mutants"]):
        plan = mutant_plan(index)
        if plan is None:
            unswappable.append(index)
            continue
        with swapped_in(index, plan):
            outcome = runner.run_test(item, unit["timeout"])
        if outcome != "passed":
            killed[index] = "timeout" if outcome == "timeout" else "exception"
        if runner.replacing:  # the worker is replaced (the runner's own decision): the rest go to a fresh one
            return {"killed": killed, "unswappable": unswappable, "rest": unit["mutants"][position + 1:],
                    "seconds": time.perf_counter() - start}
    return {"killed": killed, "unswappable": unswappable, "rest": [], "seconds": time.perf_counter() - start}


def props_bug(unit: dict[str, Any]) -> dict[str, Any]:
    """A test failing on the original, run once more as Hypothesis runs it: its error and minimal example.

    Hypothesis shrinks the failure and attaches the falsifying example to the exception as a note.
    """
    state = hosted.state()
    item = hosted.item(state, unit["nodeid"], unit["position"])
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
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}".strip(),
                "example": "\n".join(notes) or "(no falsifying example: not a Hypothesis failure)"}
    finally:
        fn._hypothesis_internal_use_settings = judging
    return {"error": "passed when run again (flaky?)", "example": ""}


def props_fuzz(unit: dict[str, Any]) -> dict[str, Any]:
    """One test's campaign; returns its kills (with `@example` lines and whether each was saved), reach, bugs."""
    state = hosted.state()
    item = hosted.item(state, unit["nodeid"], unit["position"])
    handle = PropertyHandle(item)
    fuzzer = PropertyFuzzer(handle, unit)
    start = time.perf_counter()
    fuzzer.run()
    seconds = time.perf_counter() - start
    program = state.program
    assert program is not None
    database = handle.database if unit.get("save", True) else None
    settings = state.shrinking.get(handle.fn, handle.settings)  # the test's own settings, shrinking on
    timeout = max(1.0, unit.get("timeout", 1.0))
    shrink_until = time.perf_counter() + shrink_budget(unit, seconds)

    def shrink_time() -> float:
        # past the budget an input is kept as found (its replay is still checked)
        return min(SHRINK_SECONDS, shrink_until - time.perf_counter())

    kills = {}
    for index, kill in sorted(fuzzer.kills.items()):
        saved, serialized, representation = False, _serialized(kill.buffer), kill.representation
        shipped: list[str] | None = None  # [folder in the storage, key, value], saved by the client (`save_shipped`)
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
            folder = _shippable(database) if unit.get("ship_saves") else None
            if folder is not None:  # on a cluster machine: the client saves it, into its own storage folder
                shipped = [folder, db_key.hex(), value.hex()]
            elif database is not None:
                database.save(db_key, value)
                saved = True
        kills[index] = {"reason": kill.reason, "trial": kill.trial, "buffer": serialized.hex(),
                        "example": handle.example_line(representation), "saved": saved}
        if shipped is not None:
            kills[index]["shipped"] = shipped
    bugs = []
    for key, bug in fuzzer.bugs.items():
        # on the original code: Hypothesis's minimal form of the input that fails the property
        hosted.fresh_start(state)
        found = handle.failing_choices(fuzzer.bug_inputs[key], timeout)
        left = max(1.0, shrink_time())  # a bug's minimal example is worth a second past the budget
        shrunk = handle.shrink(*found, settings, left) if found is not None else None
        bugs.append(dict(bug, example=shrunk[1]) if shrunk is not None else bug)
    # Hypothesis's "ci" profile (loaded when a CI variable such as CI is set) turns the database off
    no_database = unit.get("save", True) and database is None
    return {"nodeid": item.nodeid, "kills": kills, "reached": sorted(fuzzer.reached), "trials": fuzzer.trial,
            "no_database": no_database,
            "valid": fuzzer.valid, "corpus": len(fuzzer.corpus), "lines": fuzzer.lines,
            "mutant_runs": fuzzer.mutant_runs, "events": sorted(fuzzer.labels.events),
            "targets": dict(fuzzer.labels.best), "bugs": bugs, "seconds": round(seconds, 3)}


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


UNITS = {"props_list": props_list, "props_default": props_default, "props_bug": props_bug, "props_fuzz": props_fuzz}


def run_unit(unit: dict[str, Any] | ScoreUnit) -> dict[str, Any] | Result | SuiteRecord:
    """Dispatch a unit: the props units here (dicts, by their `kind`), score's own (its baseline) there."""
    if isinstance(unit, ScoreUnit):
        return score_unit(unit)  # score's baseline: its record of the suite
    return UNITS[unit["kind"]](unit)
