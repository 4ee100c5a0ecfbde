"""The kill workflow: score a suite, fuzz its survivors' functions, write and verify tests, score again.

Steps, in order (each reported through `progress` as one plain line, a `mu2py.steps.Step` naming its phase):

1. score the suite (`mu2py.score`, its verdict cache reused) and group the undetected mutants
   by the function that can reach them (`survivors`);
2. run the suite once more under a profile hook to record the arguments it passes to those
   functions and how it builds their classes' instances (`seeds`), and infer each function's
   driver from its hints (inline, in stubs or its docstring: `testgen.hints.type_hints`), its
   defaults and those values (a method's receiver built as the suite builds one first);
3. fuzz each function with its mutant runs limited to the survivors still alive (`aim`),
   the budget split evenly between functions, most survivors first;
3b. aim a short search at each likely-equivalent candidate alone (`equivalents`: a survivor several inputs
   infected without killing it), on a budget of its own (`equivalents.aimed_budget`); its kills join the others;
4. replay each killing input on the original and write one test per input (`write`);
5. verify in fresh interpreters (`verify`): a test failing on the original is dropped, and a
   test is kept only for the mutants it makes fail; the files are rewritten accordingly;
6. score the suite plus the written tests (before and after: all mutants, and those in
   function bodies), and list the likely-equivalent survivors (`equivalents.rank`): the candidates still alive.

Everything lands in `out`: `tests/` (the test files, written atomically), `report.json`
and `equivalents.json`; `out` is locked for the whole run and released however it ends.
The same seed and trial budget give the same tests.  `mu2py.api.kill` is the public entry.

With a Dask `cluster`, both scores (steps 1 and 6: the suite against every mutant, the part that grows with
the package) run on its workers, the project shipped as `score --cluster` ships it; the fuzzing, which
shares the budget function by function, and the verification in fresh interpreters stay on this machine.

A `--time` budget is the whole command's, from its start: the fuzzing ends early enough for the
steps after it (`after_fuzzing`, estimated from the first score's time and the survivors aimed at),
and those stop at the budget's end: a mutant whose verification the budget cut is not claimed by
any test, and one the second score did not judge keeps its first verdict (or the verified kill of
a written test), with a note.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mu2py.budget import Budget, Deadline
from mu2py.budget import now as budget_clock
from mu2py.errors import UserError
from mu2py.steps import Step
from mu2py.survivors import DEFAULT_TIME
from mu2py.survivors.aim import ASSERTABLE, Campaign
from mu2py.survivors.equivalents import AIMED_SHARE, Likely, Unlisted
from mu2py.survivors.survivors import Group, group_survivors
from mu2py.survivors.write import KillCase, Rendered

if TYPE_CHECKING:
    from mu2py.score.spec import SuiteSpec
    from mu2py.survivors.equivalents import Evidence
    from mu2py.testgen.seeds import SuiteValues

DETECTED = ("killed", "timeout")
# under --time, what the steps after the fuzzing are expected to take (see `after_fuzzing`): writing the tests and
# running them on the original in a fresh session; one forked session per survivor a test claims to kill; the suite
# and the written tests scored, as long as the first score took (the written tests are few and fast: measured 0.6 to
# 0.85 of it); the report
VERIFY_SECONDS = 1.0
VERIFY_PER_SURVIVOR = 0.15
RESCORE_FACTOR = 1.0
FINAL_SECONDS = 0.5


@dataclass(frozen=True)
class KillOptions:
    """What `mu2py kill` is given: the project, the suite, the fuzzing budget and where the tests go.

    Invariant: `trials` and `time` exclude each other; neither given is `time` `DEFAULT_TIME`.
    """

    root: Path
    package: str | None = None
    paths: tuple[str, ...] | None = None
    tests: tuple[str, ...] | None = None
    out: Path = Path("mu2py-kill")
    time: str | None = None  # as the user wrote it (it is quoted in the written tests' header)
    trials: int | None = None
    seed: int = 0
    workers: int = 1
    cluster: str | None = None  # a Dask address: both scores run there (the fuzzing and verifying stay here)
    timeout: float | None = None
    no_cache: bool = False
    started: float | None = None  # the command's start on the budget clock (`mu2py.budget.now`; default: run's)
    # internal, for measuring what the suite's values bring: False fuzzes without them (no recording run)
    suite_values: bool = True


@dataclass(frozen=True)
class KillResult:
    """What a kill run wrote and measured; `report` is `OUT/report.json` as written, `after` the score report of
    the suite plus the written tests (the suite's own when no test was written).

    Invariants: every id in `killed_by_tests` is claimed by a test in `written`; `scores` holds `before` and
    `after` figures (`score_figures`); `likely` is ranked most evidence first, each of its mutants alive after and
    searched for alone (`aimed`: the searches' budget and outcomes, as in `equivalents.json`); `unlisted` counts the
    other survivors of the functions aimed at.
    """

    report: dict[str, Any]
    out: Path
    tests_out: Path
    written: dict[str, list[str]]  # module -> names of the verified tests written for it
    killed_by_tests: list[str]
    scores: dict[str, dict[str, dict[str, Any]]]
    notes: list[str]
    likely: list[Likely]
    phases: dict[str, float]
    after: dict[str, Any] = field(default_factory=dict)
    exit_code: int = 0
    unlisted: Unlisted = field(default_factory=Unlisted)
    aimed: dict[str, Any] = field(default_factory=dict)

    @property
    def unreached(self) -> int:
        """Survivors of the functions aimed at that no input reached (counted in `unlisted`)."""
        return self.unlisted.unreached


def _score_report(spec: Any, options: KillOptions, cache: Path | None, say: Callable[[str], None],
                  deadline: Deadline = Deadline.never()) -> dict[str, Any]:
    """The score report of `spec`'s suite, on `options.workers` local workers or on `options.cluster` (whose
    dashboard link `say` hears)."""
    from mu2py.score.config import ScoreConfig
    from mu2py.score.reports import report
    from mu2py.score.scoring import score

    def told(_: Any, phase: str) -> None:
        if phase.startswith("Dask dashboard"):
            say(phase.replace("dashboard ", "dashboard: ", 1))

    config = ScoreConfig(workers=options.workers, cache=cache, cluster=options.cluster)
    return report(score(spec, config, told, deadline=deadline))


MIN_SEARCH_SECONDS = 0.1  # an aimed search given less than this (the budget's end is near) is not started
# under --time, a function's campaign given less than this is not started (inferring its driver and starting its
# mutant host take about that), and with less than MIN_FUZZ_SECONDS left after the first score none is
MIN_CAMPAIGN_SECONDS = 0.2
MIN_FUZZ_SECONDS = 5.0


def after_fuzzing(before_seconds: float, survivors: int) -> float:
    """Seconds the steps after the fuzzing are expected to take (see VERIFY_SECONDS), the first score having taken
    `before_seconds` and the fuzzing aiming at `survivors` mutants."""
    return VERIFY_SECONDS + VERIFY_PER_SURVIVOR * survivors + RESCORE_FACTOR * before_seconds + FINAL_SECONDS


def fill_cut(after: dict[str, Any], before: dict[str, Any], killers: dict[str, str]) -> int:
    """Give the mutants the second score did not judge (its deadline came first) their first verdict, or the
    verified kill of a written test (`killers`: mutant id -> the test's node id), in `after`; how many there were.

    Sound: the suite is part of the second score's tests, so what it detected stays detected, and a verified
    kill is a test run that failed on the mutant in a fresh interpreter."""
    judged = {m["id"] for m in after["mutants"]}
    cut = [dict(m) for m in before["mutants"] if m["id"] not in judged]
    for m in cut:
        if m["status"] not in DETECTED and m["id"] in killers:
            m.update(status="killed", killed_by=killers[m["id"]], mode="verified", cached=False)
    after["mutants"] = sorted([*after["mutants"], *cut], key=lambda e: (e["file"], e["line"], e["column"], e["id"]))
    return len(cut)


def score_figures(report: dict[str, Any]) -> dict[str, Any]:
    """Detected / total over all mutants and over function-body mutants (not run at import) of a score report."""
    body = [m for m in report["mutants"] if not m["at_import"]]

    def share(entries: list[dict[str, Any]]) -> dict[str, Any]:
        detected = sum(1 for m in entries if m["status"] in DETECTED)
        return {"detected": detected, "total": len(entries),
                "score": round(detected / len(entries), 4) if entries else None}

    return {"all": share(report["mutants"]), "function_body": share(body)}


def figure(f: dict[str, Any]) -> str:
    """A score figure as the kill summary shows it: `50.0% (3/6)`."""
    from mu2py.score.reports import score_percent

    return f"{score_percent(f['detected'], f['total'])} ({f['detected']}/{f['total']})"


def _cases(campaign: Campaign, by_id: dict[str, dict[str, Any]]) -> list[KillCase]:
    """One KillCase per input that killed aimed mutants by output, exception or warnings, in the order inputs were
    saved."""
    from mu2py.engine.runs import Status
    from mu2py.testgen.function_driver import run_original
    from mu2py.testgen.regression import exception_ref, raised_by
    from mu2py.testgen.render import Case
    from mu2py.testgen.warned import expected_warnings

    assert campaign.spec is not None and campaign.target is not None
    by_input: dict[str, list[str]] = {}
    for mutant_id, (label, reason) in sorted(campaign.kills.items()):
        if reason in ASSERTABLE and label in campaign.inputs:
            by_input.setdefault(label, []).append(mutant_id)
    sources = {m.file: m.source for m in campaign.target.copied}
    cases = []
    for label in sorted(by_input):
        value = campaign.inputs[label]
        result, exc = run_original(campaign.target, value)
        if result.status is Status.TIMEOUT:
            continue
        # a message (of the exception or of a warning) is asserted, so that a mutant of it is killed, only when a
        # second run gives it again: one that names an address or a time would fail the written test on the original
        second, again = run_original(campaign.target, value) if exc is not None or result.warnings else (result, None)
        warns, _ = expected_warnings(result, second)
        if exc is not None:
            ref, module, _ = exception_ref(exc)
            message = str(exc)
            # only the package's own words: CPython's wording of the same error changes between versions
            match = message if message and again is not None and str(again) == message \
                and raised_by(exc, sources) else None
            case = Case(label, value, raises=ref, raises_module=module, match=match, warns=warns)
        else:
            case = Case(label, value, expected=result.output, warns=warns)
        mutants = sorted((by_id[i] for i in by_input[label]), key=lambda m: (m["line"], m["column"], m["id"]))
        cases.append(KillCase(campaign.spec, case, mutants))
    return cases


def _render_all(cases: dict[str, list[KillCase]], command: str, root: Path) -> dict[str, Rendered]:
    from mu2py.survivors.write import render

    return {module: render(module, kcs, command, root) for module, kcs in sorted(cases.items()) if kcs}


def _write_verified(say: Callable[[str], None], cases: dict[str, list[KillCase]], programs: dict[str, Any],
                    tests_out: Path, command: str, root: Path, sys_path: list[str],
                    workers: int, deadline: Deadline = Deadline.never()) -> tuple[dict[str, Rendered], list[str]]:
    """Write, verify in fresh interpreters, and rewrite with only what verified; returns the modules and notes."""
    from mu2py.survivors.verify import Sessions
    from mu2py.survivors.write import write

    notes: list[str] = []
    rendered = _render_all(cases, command, root)
    for r in rendered.values():
        notes += [f"{kc.spec.qualname} input {kc.case.id}: no test written, {why}" for kc, why in r.left_out]
    files = {module: write(tests_out, module, r) for module, r in rendered.items()}
    sessions = Sessions(str(root), sys_path, sorted(programs))
    try:
        return _verified(say, sessions, cases, programs, rendered, files, tests_out, command, root, workers,
                         notes, deadline)
    finally:
        sessions.close()


def _unwarn(rendered: dict[str, Rendered], ok: dict[str, bool], notes: list[str]) -> bool:
    """Drop the warnings of the tests that assert some and failed on the original (`ok`: per test, passed?) in a
    fresh interpreter (a package that warns once per process); whether any was (the files are then written again)."""
    failed = [kc for r in rendered.values() for name, kc in r.tests.items() if kc.case.warns and ok.get(name) is False]
    for kc in failed:
        kc.case.warns = ()
        notes.append(f"{kc.spec.qualname} input {kc.case.id}: its warnings are not asserted, the test failed with "
                     "them on the original in a fresh interpreter")
    return bool(failed)


def _verified(say: Callable[[str], None], sessions: Any, cases: dict[str, list[KillCase]], programs: dict[str, Any],
              rendered: dict[str, Rendered], files: dict[str, Path], tests_out: Path, command: str, root: Path,
              workers: int, notes: list[str], deadline: Deadline = Deadline.never()
              ) -> tuple[dict[str, Rendered], list[str]]:
    from mu2py.survivors.verify import MutantSource, killing, passing
    from mu2py.survivors.write import file_stem, write

    ok, output = passing(sessions, list(files.values())) if files else ({}, "")
    if files and not ok:
        raise UserError(f"the written tests did not run in a fresh interpreter: {output}")
    if _unwarn(rendered, ok, notes):
        # once more, without the warnings that failed them: the test may still kill by output or exception
        rendered = _render_all(cases, command, root)
        files = {module: write(tests_out, module, r) for module, r in rendered.items()}
        ok, output = passing(sessions, list(files.values()))
    claims: dict[MutantSource, list[str]] = {}
    for module, r in rendered.items():
        program = programs[module]
        for name, kc in r.tests.items():
            if not ok.get(name):
                notes.append(f"{file_stem(module)}::{name}: dropped, it fails on the original in a fresh interpreter")
                continue
            for m in kc.mutants:
                info = program.module_of(m["id"])
                source = MutantSource(m["id"], m["module"], info.file, info.is_package, program.mutant_source(m["id"]))
                claims.setdefault(source, []).append(f"{files[module]}::{name}")
    say(Step(f"verifying: {len(claims)} mutants, each with the tests claiming it, in fresh interpreters", "verifying"))
    killed = killing(sessions, claims, workers, deadline)
    cut = {source.id for source in claims} - set(killed)
    if cut:
        notes.append(f"the --time budget ended before {len(cut)} of the {len(claims)} mutants the written tests "
                     "claim were verified: no test claims them")
    for module, kcs in cases.items():
        kept = []
        for kc in kcs:
            if kc.test_name not in rendered[module].tests or not ok.get(kc.test_name):
                continue
            verified = [m for m in kc.mutants if kc.test_name in killed.get(m["id"], set())]
            # a mutant the budget left unverified is not one the test failed to kill: it is only not claimed
            lost = [m["id"] for m in kc.mutants if m not in verified and m["id"] not in cut]
            if lost:
                notes.append(f"{file_stem(module)}::{kc.test_name}: does not fail on {', '.join(lost)} in a fresh "
                             "interpreter" + ("; dropped" if not verified else ""))
            elif not verified:
                notes.append(f"{file_stem(module)}::{kc.test_name}: dropped, the --time budget ended before it was "
                             "verified")
            if verified:
                kept.append(replace(kc, mutants=verified))
        cases[module] = kept
    final = _render_all(cases, command, root)
    for module in rendered:
        if module not in final:
            for suffix in (".py", ".pickle"):
                (tests_out / f"{file_stem(module)}{suffix}").unlink(missing_ok=True)
    for module, r in final.items():
        write(tests_out, module, r)
    return final, notes


def command_line(options: KillOptions) -> str:
    """The `mu2py kill` command that gives `options` (quoted in the written tests' header)."""
    what = (f"--package {options.package}" if options.package else
            f"--paths {' '.join(options.paths)}" if options.paths else "")
    parts = ["mu2py kill", what, f"--tests {' '.join(options.tests)}" if options.tests else "",
             f"--trials {options.trials}" if options.trials is not None else f"--time {options.time or DEFAULT_TIME}",
             f"--seed {options.seed}"]
    return " ".join(p for p in parts if p)


def run_kill(options: KillOptions, say: Callable[[str], None]) -> KillResult:
    """The whole kill workflow (see the module docstring); `say` gets each progress line as it happens.

    Raises `UserError` for bad options or a suite with no survivor to aim at; `options.out` stays locked
    until this returns or raises.
    """
    from mu2py.budget import parse_duration
    from mu2py.score.spec import SuiteSpec
    from mu2py.store.atomic import DirectoryLock
    from mu2py.target.project import load_config, modules_to_mutate

    if options.trials is not None and options.trials < 1:
        raise UserError("--trials must be at least 1")
    if options.trials is not None and options.time is not None:
        raise UserError("give --trials or --time, not both")
    # every option is checked before the output folder is touched: a typo leaves nothing behind
    seconds = None if options.trials is not None else parse_duration(options.time or DEFAULT_TIME)
    root = options.root.resolve()
    config = load_config(root)
    skip = list(config.get("skip", []))
    modules, files, sys_path = modules_to_mutate(root, config, options.package,
                                                 list(options.paths) if options.paths else None, skip)
    pytest_args = [*(options.tests or config.get("tests") or []), *config.get("pytest_args", [])]
    spec = SuiteSpec(root=str(root), pytest_args=tuple(pytest_args), modules=tuple(modules), files=tuple(files),
                     sys_path=tuple(sys_path), skip_patterns=tuple(config.get("skip_lines", [])))
    out = options.out.resolve()
    # one budget for the whole command, from its start (see the module docstring)
    whole = Budget(options.trials, seconds, started=budget_clock() if options.started is None else options.started)
    lock = DirectoryLock(out)  # one run per output folder
    try:
        return _locked(options, spec, whole, out, say)
    finally:
        lock.release()


def _locked(options: KillOptions, spec: SuiteSpec, whole: Budget, out: Path,
            say: Callable[[str], None]) -> KillResult:
    """`run_kill` once its options are checked and `out` is locked; all of it ends by `whole`'s deadline."""
    from mu2py.store.atomic import write_json
    from mu2py.survivors.equivalents import MIN_INFECTING, gather, rank
    from mu2py.testgen.regression import split_budget
    from mu2py.testgen.seeds import record_seeds

    root = Path(spec.root)
    seconds, deadline = whole.seconds, whole.deadline()
    modules, sys_path, pytest_args = list(spec.modules), list(spec.sys_path), list(spec.pytest_args)
    tests_out = out / "tests"
    for entry in reversed(sys_path):  # the package is imported here to infer its functions' drivers
        if entry not in sys.path:
            sys.path.insert(0, entry)
    phases: dict[str, float] = {}
    clock = time.monotonic()

    def phase(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        phases[name] = round(now - clock, 2)
        clock = now

    say(Step(f"scoring the suite ({', '.join(pytest_args) or 'pytest defaults'}) on {', '.join(modules)}",
             "scoring the suite"))
    before = _score_report(spec, options, None if options.no_cache else root / ".mu2py-cache" / "score.json", say)
    by_id = {m["id"]: m for m in before["mutants"]}
    grouped = group_survivors(before)
    phase("score before")
    say(f"score before: {figure(score_figures(before)['all'])}; function bodies "
        f"{figure(score_figures(before)['function_body'])}")
    if not grouped.groups:
        raise UserError("no surviving mutant to aim at: the suite detects every mutant in a function"
                        + (f" ({len(grouped.left_out)} module-level survivors cannot be aimed at)"
                           if grouped.left_out else ""))
    say(Step(f"survivors: {grouped.aimed} in {len(grouped.groups)} functions"
             + (f" ({len(grouped.left_out)} at module level, in nested classes or in unnamed lambdas, not aimed at)"
                if grouped.left_out else ""), "recording seeds"))
    # a private function's survivors are aimed at through a public caller first (`callers`): its values are recorded
    routes = public_routes(grouped.groups)
    aimed_functions = [(g.module, g.function) for g in grouped.groups]
    aimed_functions += [(g.module, caller) for g in grouped.groups for caller in routes.get(g.qualname, ())]
    kept_after = after_fuzzing(phases["score before"], grouped.aimed)
    # the first score may have taken the whole --time budget (a slow suite): then nothing more is started
    spent = seconds is not None and deadline.remaining() < MIN_FUZZ_SECONDS
    seeds = record_seeds(str(root), pytest_args, list(dict.fromkeys(aimed_functions)), sys_path) \
        if options.suite_values and not spent else None
    phase("seeds")
    alive: dict[str, set[str]] = {}
    for g in grouped.groups:
        alive.setdefault(g.module, set()).update(m["id"] for m in g.mutants)
    per_trials, _ = split_budget(options.trials, seconds, len(grouped.groups), 1)
    # under --time the functions share what the steps before left, less what the steps after keep: function k of n
    # fuzzes until k/n of that span (a function that ends early leaves its time to the next)
    # the searches aimed at likely-equivalent candidates come between the fuzzing and the steps after it: their
    # share of the budget is kept too (`equivalents.AIMED_SHARE`)
    aimed_share = AIMED_SHARE * seconds if seconds is not None else 0.0
    fuzz_end = deadline.sooner_by(min(kept_after + aimed_share, deadline.remaining() / 2))
    start, span = budget_clock(), fuzz_end.remaining()
    budget = f"{options.trials} trials" if options.trials is not None else f"{seconds:g}s"
    say(Step(f"fuzzing {len(grouped.groups)} functions ({budget} in all)", "fuzzing", 0, len(grouped.groups),
             "functions"))
    campaigns: list[Campaign] = []
    notes: list[str] = []
    through: set[str] = set()  # the public callers already fuzzed (each once)
    for n, (group, trials) in enumerate(zip(grouped.groups, per_trials, strict=True), 1):
        until = None if seconds is None else start + span * n / len(grouped.groups)
        begin = budget_clock()
        if spent or (until is not None and until - begin < MIN_CAMPAIGN_SECONDS):
            # its share is gone (the first score took the budget): no driver is inferred, no mutant host started
            ran = [Campaign(group.qualname, error="the --time budget ended before its turn")]
        else:
            ran = _aim_group(group, trials, begin, until, routes.get(group.qualname, ()), through, options, seeds,
                             alive)
        campaigns += ran
        for campaign in ran:
            status = campaign.error or (f"{campaign.trials} trials, killed {len(campaign.kills)} "
                                        f"({sum(1 for m in group.mutants if m['id'] in campaign.kills)}"
                                        f"/{len(group.mutants)} of its own survivors)")
            via = f" through {campaign.qualname}" if campaign.qualname != group.qualname else ""
            say(Step(f"[{n}/{len(grouped.groups)}] {group.qualname}{via}: {status}", "fuzzing", n,
                     len(grouped.groups), "functions"))
            if campaign.error:
                notes.append(f"{campaign.qualname}: not fuzzed, {campaign.error}")
    phase("fuzz")
    evidence = gather(campaigns)
    aimed_ids = [m["id"] for g in grouped.groups for m in g.mutants]
    # the steps after are estimated again from the kills the tests will claim (known now, not the survivors aimed
    # at): what the fuzzing did not spend goes to the aimed searches
    claimed = len({mutant_id for c in campaigns for mutant_id in c.kills})
    searches, aimed = aimed_searches(say, campaigns, evidence, aimed_ids, options, seconds,
                                     deadline.sooner_by(after_fuzzing(phases["score before"], claimed)))
    phase("aimed search")
    cases: dict[str, list[KillCase]] = {}
    programs: dict[str, Any] = {}
    for campaign in [*campaigns, *(c for _, c in searches)]:
        if campaign.error is None and campaign.spec is not None:
            cases.setdefault(campaign.spec.module, []).extend(_cases(campaign, by_id))
            programs.setdefault(campaign.spec.module, campaign.program)
    command = command_line(options)
    final, verify_notes = _write_verified(say, cases, programs, tests_out, command, root, sys_path, options.workers,
                                          deadline.sooner_by(FINAL_SECONDS))
    notes += verify_notes
    phase("write and verify")
    written = {m: sorted(r.tests) for m, r in final.items()}
    killed_by_tests = {m["id"] for r in final.values() for kc in r.tests.values() for m in kc.mutants}
    after = before
    if final:
        say(Step("scoring the suite with the written tests", "scoring again"))
        # under the root, relative: the workers run the suite in a copy of the project, the written tests in it too,
        # and their node ids are the project's (`out/tests/test_kill_m.py::test_f_1`), as the --mte document names them
        written_tests = str(tests_out.relative_to(root)) if tests_out.is_relative_to(root) else str(tests_out)
        after_spec = replace(spec, pytest_args=(*spec.pytest_args, written_tests))
        # the dashboard's address was told with the first score: not a second time
        after = _score_report(after_spec, options, None if options.no_cache else out / "score-cache.json",
                              lambda _: None, deadline.sooner_by(FINAL_SECONDS))
        killers = {m["id"]: f"{written_tests}/{_stem(module)}.py::{name}"
                   for module, r in final.items() for name, kc in r.tests.items() for m in kc.mutants}
        if fill_cut(after, before, killers):
            notes.append(f"the --time budget ended before {after['summary']['cut_by_budget']} mutants were scored "
                         "again: each keeps its first verdict, or the verified kill of a written test")
    phase("score after")
    after_by_id = {m["id"]: m for m in after["mutants"]}
    still = [by_id[i] for i in aimed_ids if after_by_id.get(i, {}).get("status") not in DETECTED]
    searched = {mutant_id for mutant_id, c in searches if c.error is None}
    likely, unlisted = rank(still, evidence, searched)
    figures = {"before": score_figures(before), "after": score_figures(after)}
    write_json(out / "equivalents.json", {"min_infecting": MIN_INFECTING, "likely": [e.to_json() for e in likely],
                                          "unlisted": unlisted.to_json(), "aimed": aimed})
    report = {
        "command": command, "scores": figures, "phases": phases, "notes": notes,
        "tests": {m: {"file": str(tests_out / f"{_stem(m)}.py"),
                      "tests": {name: [k["id"] for k in final[m].tests[name].mutants] for name in names}}
                  for m, names in written.items()},
        "functions": [{"function": c.qualname, "trials": c.trials, "killed": sorted(c.kills), "error": c.error}
                      for c in campaigns],
        "aimed": aimed["searches"],
        "killed_by_tests": sorted(killed_by_tests), "left_out": [
            {"id": m["id"], "why": why} for m, why in grouped.left_out],
    }
    write_json(out / "report.json", report)
    return KillResult(report=report, out=out, tests_out=tests_out, written=written,
                      killed_by_tests=sorted(killed_by_tests), scores=figures, notes=notes, likely=likely,
                      phases=phases, after=after, unlisted=unlisted, aimed=aimed)


def aimed_searches(say: Callable[[str], None], campaigns: list[Campaign], evidence: dict[str, Evidence],
                       ids: list[str], options: KillOptions, seconds: float | None,
                       until: Deadline = Deadline.never()) -> tuple[list[tuple[str, Campaign]], dict[str, Any]]:
    """One search aimed at each likely-equivalent candidate among `ids` alone (see `equivalents`), most evidence
    first: (mutant id, its campaign) in that order, and the searches as `equivalents.json`'s `aimed` holds them.

    Each search fuzzes the function whose campaign saw the mutant survive the most distinct inputs (the first such
    campaign on a tie); its evidence joins `evidence`, and its inputs are labelled `aimedN-` (N: its rank) so that
    the notes tell them from the function campaign's.  Under --time none runs past `until`.
    """
    from mu2py.survivors.aim import aim
    from mu2py.survivors.equivalents import aimed_budget, aimed_seed

    candidates = sorted((i for i in dict.fromkeys(ids) if i in evidence and evidence[i].candidate),
                        key=lambda i: (-len(evidence[i].survived), -evidence[i].runs, i))
    trials, per_seconds = aimed_budget(options.trials, seconds, len(candidates))
    searches: list[tuple[str, Campaign]] = []
    shared_seconds = round(until.remaining(), 1) if until.bounded else None
    if candidates:
        shared = f", sharing {shared_seconds:.0f}s" if shared_seconds is not None else (
            f", at most {per_seconds:.2g}s" if per_seconds is not None else "")
        say(Step(f"aiming a search at each of {len(candidates)} likely-equivalent candidates alone ({trials} trials"
                 f" each{shared})",
                 "aimed search", 0, len(candidates), "mutants"))
    for n, mutant_id in enumerate(candidates, 1):
        home = max((c for c in campaigns if c.spec is not None and c.error is None),
                   key=lambda c: len(c.survived.get(mutant_id, ())))
        assert home.spec is not None  # a candidate survived some campaign's inputs: that campaign had a spec
        # under --time, no search runs past `until` (what the steps after keep), and the candidates left share what
        # is left evenly: the time a search ends early with (its trials all run) goes to the next ones
        share = until.remaining() / (len(candidates) - n + 1) if until.bounded else per_seconds
        if share is not None and share < MIN_SEARCH_SECONDS:
            found = Campaign(home.qualname, home.spec, error="the --time budget ended before its search")
        else:
            found = aim(home.spec, {mutant_id}, trials, share, aimed_seed(options.seed, mutant_id), options.timeout)
        prefix = f"aimed{n}-"
        found.inputs = {prefix + label: value for label, value in found.inputs.items()}
        found.kills = {i: (prefix + label, reason) for i, (label, reason) in found.kills.items()}
        evidence[mutant_id].add(found, mutant_id)
        searches.append((mutant_id, found))
        status = found.error or (f"killed ({found.kills[mutant_id][1]})" if mutant_id in found.kills
                                 else "not killed")
        say(Step(f"[{n}/{len(candidates)}] {mutant_id} in {home.qualname}: {found.trials} trials, {status}",
                 "aimed search", n, len(candidates), "mutants"))
    return searches, {"trials": trials, "seconds": per_seconds, "shared_seconds": shared_seconds, "searches": [
        {"id": i, "function": c.qualname, "trials": c.trials,
         "killed": c.kills[i][1] if i in c.kills else None, "error": c.error} for i, c in searches]}


def _stem(module: str) -> str:
    from mu2py.survivors.write import file_stem

    return file_stem(module)


def public_routes(groups: list[Group]) -> dict[str, list[str]]:
    """Per group of a private function (by qualname), the public callers of its module it can be aimed through
    (`callers.public_callers`), nearest first; groups with none are absent."""
    from mu2py.survivors.callers import is_public, public_callers
    from mu2py.survivors.survivors import parsed

    routes: dict[str, list[str]] = {}
    for group in groups:
        if is_public(group.function) or not group.mutants:
            continue
        tree = parsed(group.mutants[0]["file"])
        callers = public_callers(tree, group.function) if tree is not None else []
        if callers:
            routes[group.qualname] = callers
    return routes


def _aim_group(group: Group, trials: int | None, begin: float, until: float | None, callers: Sequence[str],
               through: set[str], options: KillOptions, seeds: SuiteValues | None,
               alive: dict[str, set[str]]) -> list[Campaign]:
    """The campaigns aimed at `group` (`alive` loses what they kill): through the first of its public `callers` not
    fuzzed yet (`through` gains it) that can be fuzzed, in half the group's share (`begin` to `until`, or half its
    trials), then at the function itself for what that left alive, in the rest."""
    ran: list[Campaign] = []
    for caller in callers:
        if f"{group.module}.{caller}" in through:
            continue
        through.add(f"{group.module}.{caller}")
        half = None if until is None else begin + (until - begin) / 2
        campaign = _aim_one(group, None if trials is None else max(1, trials // 2), half, options, seeds, alive,
                            function=caller)
        if campaign.error is not None:
            continue  # this caller cannot be fuzzed (no way to draw its arguments): the next one, or the helper
        ran.append(campaign)
        alive[group.module] -= set(campaign.kills)
        trials = None if trials is None else max(1, trials - trials // 2)
        break
    if not ran or any(m["id"] in alive[group.module] for m in group.mutants):
        ran.append(_aim_one(group, trials, until, options, seeds, alive))
        alive[group.module] -= set(ran[-1].kills)
    return ran


def _aim_one(group: Group, trials: int | None, until: float | None, options: KillOptions,
             seeds: SuiteValues | None, alive: dict[str, set[str]], function: str | None = None) -> Campaign:
    """Infer the driver of `group`'s function, or of `function` of its module (a public caller), with the suite's
    values as seeds (its receivers built as the suite builds them), and fuzz it at the module's survivors, until
    `until` on the budget clock under --time (inferring and loading it included)."""
    from mu2py.survivors.aim import aim
    from mu2py.testgen.seeds import infer_seeded

    budget = None if until is None else Budget(None, max(until - budget_clock(), 0.0))

    name = function or group.function
    qualname = f"{group.module}.{name}"
    try:
        spec = infer_seeded(seeds, group.module, name)
    except (UserError, AttributeError) as exc:
        return Campaign(qualname, error=f"cannot be called: {exc}")
    if spec.skipped:
        return Campaign(qualname, spec, error=spec.skipped)
    return aim(spec, set(alive[group.module]), trials, budget.seconds if budget else None, options.seed,
               options.timeout, budget=budget)


