"""Fuzzing aimed at survivors: one mutation-guided campaign per function, its mutant runs limited to survivors.

The campaign is the ordinary loop (`Fuzzer`) over the function's generated driver
(`function_driver.function_target`), with `Analysis.only` set to the survivors of the
function's module still alive, so mutant runs go to nothing the suite already kills; a
survivor of a helper the function calls can die in its campaign too. Each probed run of the
original is counted per aimed mutant (inputs that reached its site, inputs that infected it),
and so is each run of an aimed mutant that ended in a verdict and left it alive: the evidence
behind the likely-equivalent list (`equivalents`). Inputs are told apart by `input_key`, so an
input the loop meets twice (decoded from other choices, judged again) counts once among the
distinct ones. Under a trial budget a campaign is reproducible: the same seed, budget and seeds
give the same kills by the same inputs, and the same evidence.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mu2py.budget import Budget, Deadline
from mu2py.engine.runs import Status
from mu2py.errors import UserError
from mu2py.feedback.focus import FocusedProbe
from mu2py.mutants.catalog import Program
from mu2py.target.modules import Target
from mu2py.testgen.signatures import FunctionSpec

# kills a test can assert: the original's output, exception or warnings differ (a hang or a crash makes no readable
# test)
ASSERTABLE = ("output", "exception", "warning")
# infecting inputs a mutant survived kept per mutant, as examples for the likely-equivalent list
EXAMPLES = 3
# calls of the kill check Hypothesis' shrinker may make per killing input (each runs the original and its mutants)
SHRINK_CALLS = 150
# the share of a timed campaign kept for shrinking its killing inputs
SHRINK_SHARE = 0.15


def input_key(value: Any) -> bytes:
    """A digest of `value`'s identity-free repr: equal inputs (argument dicts) give equal keys, whatever their ids."""
    from mu2py.engine.oracle import identity_free_repr

    return hashlib.blake2b(identity_free_repr(value).encode("utf-8", "backslashreplace"), digest_size=8).digest()


@dataclass
class Campaign:
    """What one aimed campaign left: kills (mutant id -> input label, reason), inputs by label, evidence counts.

    Invariants, per aimed mutant id: `survived[i]` is a subset of `infecting[i]`, whose size is at most
    `infected[i]`; `examples[i]` holds at most EXAMPLES argument dicts, inputs of `survived[i]` in the order they ran.
    """

    qualname: str
    spec: FunctionSpec | None = None
    target: Target | None = None
    program: Program | None = None  # the function's module and its mutants (their sources, for verification)
    kills: dict[str, tuple[str, str]] = field(default_factory=dict)
    inputs: dict[str, Any] = field(default_factory=dict)
    reached: Counter[str] = field(default_factory=Counter)  # mutant id -> inputs that reached its site
    infected: Counter[str] = field(default_factory=Counter)  # mutant id -> inputs that infected it
    runs: Counter[str] = field(default_factory=Counter)  # mutant id -> times it ran on an input and lived
    infecting: dict[str, set[bytes]] = field(default_factory=dict)  # mutant id -> distinct inputs infecting it
    # mutant id -> distinct infecting inputs it ran on to a verdict and survived (its output, exception and warnings
    # those of the original)
    survived: dict[str, set[bytes]] = field(default_factory=dict)
    examples: dict[str, list[Any]] = field(default_factory=dict)
    trials: int = 0
    error: str | None = None


def aim(spec: FunctionSpec, alive: set[str], trials: int | None, seconds: float | None, seed: int,
        timeout: float | None = None, on_progress: Callable[[Any], None] | None = None,
        budget: Budget | None = None) -> Campaign:
    """Fuzz `spec`'s function, running only the mutants in `alive` (ids); see the module docstring.  `budget` (default:
    `trials` and `seconds` from the loop's start) is what the campaign may take, loading it included.

    A function whose arguments cannot be drawn, or whose target raises while loading, gives
    a Campaign with `error` set and no kills.
    """
    from mu2py.fuzz.config import FuzzConfig
    from mu2py.fuzz.fuzzer import Fuzzer
    from mu2py.testgen.function_driver import function_target

    found = Campaign(spec.qualname, spec)
    try:
        # a written test asserts the exception's message too: a mutant of the message is killed by it
        target = function_target(spec, messages=True)
        # mutant_share 1: every input runs the aimed mutants it infects, also under a time budget (the timed
        # default runs only mutants no saved input infects, and a survivor is one the suite's inputs infect)
        config = FuzzConfig(trials=trials, seconds=seconds, seed=seed, timeout=timeout, mutant_share=1.0)
        # the killing inputs are shrunk after the loop, inside the campaign's budget: the loop leaves them a share
        whole = budget or (Budget(trials, seconds) if seconds is not None else None)
        fuzzing = Budget(whole.trials, whole.remaining() * (1 - SHRINK_SHARE)) if whole is not None and whole.timed \
            else budget
        fuzzer = Fuzzer(target, config, on_progress=on_progress, budget=fuzzing)
    except UserError as exc:
        found.error = str(exc)
        return found
    found.target, found.program = target, fuzzer.program
    program, analysis = fuzzer.program, fuzzer.analysis
    assert program is not None and analysis is not None
    aimed = {program.index[i] for i in alive if i in program.index}
    analysis.only = frozenset(aimed)
    by_site: dict[int, list[int]] = {}
    for index in aimed:
        by_site.setdefault(program.mutants[index].site, []).append(index)
    probed, selected = analysis.run_original, analysis.run_selected
    ids = [m.id for m in program.mutants]
    # the last input probed and its key: the loop runs an input's mutants right after probing it (the same object)
    last_value: Any = None
    last_key = b""

    def key_of(value: Any) -> bytes:
        nonlocal last_value, last_key
        if last_value is not value:
            last_value, last_key = value, input_key(value)
        return last_key

    def counted(value: Any, focus: FocusedProbe | None = None) -> Any:
        # the evidence for the likely-equivalent list: per aimed mutant, inputs reaching and infecting it
        result, reached, infected = probed(value, focus)
        for site in reached:
            for index in by_site.get(site, ()):
                found.reached[ids[index]] += 1
                if index in infected:
                    found.infected[ids[index]] += 1
                    found.infecting.setdefault(ids[index], set()).add(key_of(value))
        return result, reached, infected

    def judged(sel: Any, value: Any, *args: Any, **kwargs: Any) -> list[int]:
        # which infecting inputs each aimed mutant ran on and survived: a batch that the deadline cut (some run with
        # no verdict, and which one is not said) counts for none of them, so that `survived` never overstates
        executions = analysis.executions
        before = {i: executions[i] for i in sel.run}
        cuts = analysis.cut_runs
        killed = selected(sel, value, *args, **kwargs)
        if analysis.cut_runs == cuts:
            for index, runs in before.items():
                mutant_id = ids[index]
                key = key_of(value)
                # an import-time mutant runs uninfected (no probe sees it): only infecting inputs count
                if executions[index] > runs and index not in analysis.kills \
                        and key in found.infecting.get(mutant_id, ()):
                    survived = found.survived.setdefault(mutant_id, set())
                    if key not in survived and len(found.examples.setdefault(mutant_id, [])) < EXAMPLES:
                        found.examples[mutant_id].append(value)
                    survived.add(key)
        return killed

    # counted for this analysis only, on purpose
    analysis.run_original = counted  # type: ignore[method-assign]  # wrapped for this search only
    analysis.run_selected = judged  # type: ignore[method-assign]  # as above
    fuzzer.close_analysis = False  # its mutant host stays up for the shrinking below
    try:
        try:
            result = fuzzer.run()
        except UserError as exc:
            found.error = str(exc)
            return found
        found.trials = result.stats.trials
        found.inputs = {entry.name: entry.value for entry in result.corpus}
        for index in aimed:
            kill = analysis.kills.get(index)
            if kill is not None:
                found.kills[ids[index]] = (kill.input, kill.reason.value)
            elif analysis.executions[index]:
                found.runs[ids[index]] = analysis.executions[index]
        deadline = whole.deadline() if whole is not None else Deadline.never()
        _shrink_kills(found, result.corpus, fuzzer.source, analysis, probed, deadline, seed)
    finally:
        analysis.close()
    return found


def _shrink_kills(found: Campaign, corpus: list[Any], source: Any, analysis: Any, probed: Callable[..., Any],
                  deadline: Deadline, seed: int) -> None:
    """Each input that killed aimed mutants by an assertable reason, replaced in `found` by the simplest input
    Hypothesis' shrinker finds that still kills every one of them for the same reason (`found.inputs` gains it
    under its own label; the mutants' kills name it).  Inputs are shrunk in the order they were saved, each while
    `deadline` allows; a source that cannot shrink (not a Hypothesis strategy) leaves the inputs as they are."""
    shrink = getattr(source, "shrink", None)
    if shrink is None:
        return
    index_of = analysis.program.index
    by_input: dict[str, dict[int, str]] = {}
    for mutant_id, (label, reason) in found.kills.items():
        if reason in ASSERTABLE:
            by_input.setdefault(label, {})[index_of[mutant_id]] = reason
    choices = {entry.name: entry.choices for entry in corpus}

    def keeps(killed: dict[int, str]) -> Callable[[Any], bool]:
        def check(value: Any) -> bool:
            original, _, _ = probed(value)
            if original.status is Status.TIMEOUT:
                return False
            verdicts = analysis.runner.judge(value, sorted(killed), analysis.mutant_timeout(original),
                                             differential=analysis.differential, deadline=deadline)
            return len(verdicts) == len(killed) and all(
                not v.cut and v.reason is not None and v.reason.value == killed[v.index] for v in verdicts)
        return check

    for label in [name for name in choices if name in by_input]:  # in the order the inputs were saved
        if deadline.expired():
            break
        killed = by_input[label]
        shrunk = shrink(choices[label], keeps(killed), calls=SHRINK_CALLS, deadline=deadline, seed=seed)
        if shrunk is None or tuple(shrunk.choices) == tuple(choices[label]):
            continue
        simpler = f"{label}-shrunk"
        found.inputs[simpler] = shrunk.value
        for index in killed:
            mutant_id = analysis.program.mutants[index].id
            found.kills[mutant_id] = (simpler, found.kills[mutant_id][1])
