"""The `mu2py kill` subcommand: score a suite, write tests that kill its survivors, verify them, score again.

Steps, in order (each prints one or a few plain lines):

1. score the suite (`mu2py.score`, its verdict cache reused) and group the undetected mutants
   by the function that can reach them (`survivors`);
2. run the suite once more under a profile hook to record the arguments it passes to those
   functions (`seeds`), and infer each function's driver from its hints, its `.pyi` stub,
   its defaults and those values;
3. fuzz each function with its mutant runs limited to the survivors still alive (`aim`),
   the budget split evenly between functions, most survivors first;
4. replay each killing input on the original and write one test per input (`write`);
5. verify in fresh interpreters (`verify`): a test failing on the original is dropped, and a
   test is kept only for the mutants it makes fail; the files are rewritten accordingly;
6. score the suite plus the written tests, print before and after (all mutants, and those in
   function bodies), and the likely-equivalent survivors (`equivalents`).

Everything lands in `--out`: `tests/` (the test files, written atomically), `report.json`
and `equivalents.json`. The same seed and `--trials` give the same tests.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

from rich.console import Console

from mu2py.cli.argtypes import add_project_arguments
from mu2py.errors import UserError
from mu2py.survivors.aim import ASSERTABLE, Campaign
from mu2py.survivors.survivors import Group, group_survivors
from mu2py.survivors.write import KillCase, Rendered

DEFAULT_TIME = "60s"
DETECTED = ("killed", "timeout")


def _score_report(spec: Any, workers: int, cache: Path | None) -> dict[str, Any]:
    from mu2py.score.config import ScoreConfig
    from mu2py.score.reports import report
    from mu2py.score.scoring import score

    return report(score(spec, ScoreConfig(workers=workers, cache=cache)))


def score_figures(report: dict[str, Any]) -> dict[str, Any]:
    """Detected / total over all mutants and over function-body mutants (not run at import) of a score report."""
    body = [m for m in report["mutants"] if not m["at_import"]]

    def share(entries: list[dict[str, Any]]) -> dict[str, Any]:
        detected = sum(1 for m in entries if m["status"] in DETECTED)
        return {"detected": detected, "total": len(entries),
                "score": round(detected / len(entries), 4) if entries else None}

    return {"all": share(report["mutants"]), "function_body": share(body)}


def _cases(campaign: Campaign, by_id: dict[str, dict[str, Any]]) -> list[KillCase]:
    """One KillCase per input that killed aimed mutants by output or exception, in the order inputs were saved."""
    from mu2py.engine.runs import Status
    from mu2py.testgen.function_driver import run_original
    from mu2py.testgen.regression import exception_ref
    from mu2py.testgen.render import Case

    assert campaign.spec is not None and campaign.target is not None
    by_input: dict[str, list[str]] = {}
    for mutant_id, (label, reason) in sorted(campaign.kills.items()):
        if reason in ASSERTABLE and label in campaign.inputs:
            by_input.setdefault(label, []).append(mutant_id)
    cases = []
    for label in sorted(by_input):
        value = campaign.inputs[label]
        result, exc = run_original(campaign.target, value)
        if result.status is Status.TIMEOUT:
            continue
        if exc is not None:
            ref, module, _ = exception_ref(exc)
            # the message is asserted (a mutant of it is killed only so) when a second run gives it again: one that
            # names an address or a time would fail the written test on the original
            _, again = run_original(campaign.target, value)
            message = str(exc)
            match = message if message and again is not None and str(again) == message else None
            case = Case(label, value, raises=ref, raises_module=module, match=match)
        else:
            case = Case(label, value, expected=result.output)
        mutants = sorted((by_id[i] for i in by_input[label]), key=lambda m: (m["line"], m["column"], m["id"]))
        cases.append(KillCase(campaign.spec, case, mutants))
    return cases


def _render_all(cases: dict[str, list[KillCase]], command: str, root: Path) -> dict[str, Rendered]:
    from mu2py.survivors.write import render

    return {module: render(module, kcs, command, root) for module, kcs in sorted(cases.items()) if kcs}


def _write_verified(console: Console, cases: dict[str, list[KillCase]], programs: dict[str, Any],
                    tests_out: Path, command: str, root: Path, sys_path: list[str],
                    workers: int) -> tuple[dict[str, Rendered], list[str]]:
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
        return _verified(console, sessions, cases, programs, rendered, files, tests_out, command, root, workers,
                         notes)
    finally:
        sessions.close()


def _verified(console: Console, sessions: Any, cases: dict[str, list[KillCase]], programs: dict[str, Any],
              rendered: dict[str, Rendered], files: dict[str, Path], tests_out: Path, command: str, root: Path,
              workers: int, notes: list[str]) -> tuple[dict[str, Rendered], list[str]]:
    from mu2py.survivors.verify import MutantSource, killing, passing
    from mu2py.survivors.write import file_stem, write

    ok, output = passing(sessions, list(files.values())) if files else ({}, "")
    if files and not ok:
        raise UserError(f"the written tests did not run in a fresh interpreter: {output}")
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
    console.print(f"verifying: {len(claims)} mutants, each with the tests claiming it, in fresh interpreters",
                  highlight=False)
    killed = killing(sessions, claims, workers)
    for module, kcs in cases.items():
        kept = []
        for kc in kcs:
            if kc.test_name not in rendered[module].tests or not ok.get(kc.test_name):
                continue
            verified = [m for m in kc.mutants if kc.test_name in killed.get(m["id"], set())]
            if len(verified) < len(kc.mutants):
                lost = [m["id"] for m in kc.mutants if m not in verified]
                notes.append(f"{file_stem(module)}::{kc.test_name}: does not fail on {', '.join(lost)} in a fresh "
                             "interpreter" + ("; dropped" if not verified else ""))
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


def _command_line(args: argparse.Namespace) -> str:
    what = f"--package {args.package}" if args.package else f"--paths {' '.join(args.paths)}" if args.paths else ""
    parts = ["mu2py kill", what, f"--tests {' '.join(args.tests)}" if args.tests else "",
             f"--trials {args.trials}" if args.trials is not None else f"--time {args.time or DEFAULT_TIME}",
             f"--seed {args.seed}"]
    return " ".join(p for p in parts if p)


def _figure(f: dict[str, Any]) -> str:
    from mu2py.score.reports import score_percent

    return f"{score_percent(f['detected'], f['total'])} ({f['detected']}/{f['total']})"


def _kill(args: argparse.Namespace, console: Console) -> int:
    from mu2py.cli.argtypes import parse_duration
    from mu2py.score.spec import SuiteSpec
    from mu2py.store.atomic import DirectoryLock, write_json
    from mu2py.survivors.aim import aim
    from mu2py.survivors.equivalents import rank
    from mu2py.survivors.seeds import record_seeds, seeded
    from mu2py.target.project import load_config, modules_to_mutate
    from mu2py.testgen.regression import split_budget
    from mu2py.testgen.signatures import infer_named

    if args.trials is not None and args.trials < 1:
        raise UserError("--trials must be at least 1")
    seconds = None if args.trials is not None else parse_duration(args.time or DEFAULT_TIME)
    root = Path(args.root).resolve()
    config = load_config(root)
    skip = list(config.get("skip", []))
    modules, files, sys_path = modules_to_mutate(root, config, args.package, args.paths, skip)
    pytest_args = [*(args.tests or config.get("tests") or []), *config.get("pytest_args", [])]
    spec = SuiteSpec(root=str(root), pytest_args=tuple(pytest_args), modules=tuple(modules), files=tuple(files),
                     sys_path=tuple(sys_path), skip_patterns=tuple(config.get("skip_lines", [])))
    out = Path(args.out).resolve()
    lock = DirectoryLock(out)  # one run per output folder
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

    console.print(f"scoring the suite ({', '.join(pytest_args) or 'pytest defaults'}) on {', '.join(modules)}",
                  highlight=False)
    before = _score_report(spec, args.workers, None if args.no_cache else root / ".mu2py-cache" / "score.json")
    by_id = {m["id"]: m for m in before["mutants"]}
    grouped = group_survivors(before)
    phase("score before")
    console.print(f"score before: {_figure(score_figures(before)['all'])}; function bodies "
                  f"{_figure(score_figures(before)['function_body'])}", highlight=False)
    if not grouped.groups:
        raise UserError("no surviving mutant to aim at: the suite detects every mutant in a function"
                        + (f" ({len(grouped.left_out)} module-level survivors cannot be aimed at)"
                           if grouped.left_out else ""))
    console.print(f"survivors: {grouped.aimed} in {len(grouped.groups)} functions"
                  + (f" ({len(grouped.left_out)} at module level or in nested classes, not aimed at)"
                     if grouped.left_out else ""), highlight=False)
    seeds = record_seeds(str(root), pytest_args, [(g.module, g.function) for g in grouped.groups], sys_path)
    phase("seeds")
    alive: dict[str, set[str]] = {}
    for g in grouped.groups:
        alive.setdefault(g.module, set()).update(m["id"] for m in g.mutants)
    per_trials, per_seconds = split_budget(args.trials, seconds, len(grouped.groups), 1)
    campaigns: list[Campaign] = []
    notes: list[str] = []
    for n, (group, trials) in enumerate(zip(grouped.groups, per_trials, strict=True), 1):
        campaign = _aim_one(group, trials, per_seconds, args, seeds, alive, infer_named, seeded, aim)
        campaigns.append(campaign)
        alive[group.module] -= set(campaign.kills)
        status = campaign.error or (f"{campaign.trials} trials, killed {len(campaign.kills)} "
                                    f"({sum(1 for m in group.mutants if m['id'] in campaign.kills)}"
                                    f"/{len(group.mutants)} of its own survivors)")
        console.print(f"[{n}/{len(grouped.groups)}] {group.qualname}: {status}", highlight=False)
        if campaign.error:
            notes.append(f"{group.qualname}: not fuzzed, {campaign.error}")
    phase("fuzz")
    cases: dict[str, list[KillCase]] = {}
    programs: dict[str, Any] = {}
    for campaign in campaigns:
        if campaign.error is None and campaign.spec is not None:
            cases.setdefault(campaign.spec.module, []).extend(_cases(campaign, by_id))
            programs.setdefault(campaign.spec.module, campaign.program)
    command = _command_line(args)
    final, verify_notes = _write_verified(console, cases, programs, tests_out, command, root, sys_path,
                                          args.workers)
    notes += verify_notes
    phase("write and verify")
    written = {m: sorted(r.tests) for m, r in final.items()}
    killed_by_tests = {m["id"] for r in final.values() for kc in r.tests.values() for m in kc.mutants}
    after = before
    if final:
        console.print("scoring the suite with the written tests", highlight=False)
        after_spec = replace(spec, pytest_args=(*spec.pytest_args, str(tests_out)))
        after = _score_report(after_spec, args.workers, None if args.no_cache else out / "score-cache.json")
    phase("score after")
    reached, infected, runs = Counter[str](), Counter[str](), Counter[str]()
    for campaign in campaigns:
        reached.update(campaign.reached)
        infected.update(campaign.infected)
        runs.update(campaign.runs)
    after_by_id = {m["id"]: m for m in after["mutants"]}
    aimed_ids = [m["id"] for g in grouped.groups for m in g.mutants]
    still = [by_id[i] for i in aimed_ids if after_by_id.get(i, {}).get("status") not in DETECTED]
    likely, unreached = rank(still, reached, infected, runs)
    figures = {"before": score_figures(before), "after": score_figures(after)}
    for note in notes:
        console.print(f"note: {note}", highlight=False)
    tests_count = sum(len(t) for t in written.values())
    console.print(f"tests written: {tests_count} in {tests_out} "
                  f"({', '.join(f'{m}: {len(t)}' for m, t in written.items()) or 'none'}); each passes on the "
                  f"original and kills {len(killed_by_tests)} survivors in all, verified in fresh interpreters",
                  highlight=False)
    console.print(f"score after (suite + written tests): {_figure(figures['after']['all'])} (before "
                  f"{_figure(figures['before']['all'])}); function bodies {_figure(figures['after']['function_body'])}"
                  f" (before {_figure(figures['before']['function_body'])})", highlight=False)
    if likely:
        console.print(f"likely equivalent (reached and infected by fuzzing, never killed), most evidence first; "
                      f"{unreached} survivors fuzzing never reached are left out:", highlight=False)
        for e in likely[: args.show]:
            console.print(f"  {_rel(e.file, root)}:{e.line} {e.original} → {e.mutated} (reached by {e.reached} "
                          f"inputs, infected by {e.infected}, ran {e.runs} times, never killed)", highlight=False)
    console.print("time: " + ", ".join(f"{k} {v:.1f}s" for k, v in phases.items()), highlight=False)
    write_json(out / "equivalents.json", {"likely": [e.to_json() for e in likely], "unreached": unreached})
    write_json(out / "report.json", {
        "command": command, "scores": figures, "phases": phases, "notes": notes,
        "tests": {m: {"file": str(tests_out / f"{_stem(m)}.py"),
                      "tests": {name: [k["id"] for k in final[m].tests[name].mutants] for name in names}}
                  for m, names in written.items()},
        "functions": [{"function": c.qualname, "trials": c.trials, "killed": sorted(c.kills), "error": c.error}
                      for c in campaigns],
        "killed_by_tests": sorted(killed_by_tests), "left_out": [
            {"id": m["id"], "why": why} for m, why in grouped.left_out],
    })
    lock.release()
    return 0


def _stem(module: str) -> str:
    from mu2py.survivors.write import file_stem

    return file_stem(module)


def _rel(file: str, root: Path) -> str:
    path = Path(file)
    return str(path.relative_to(root)) if path.is_relative_to(root) else file


def _aim_one(group: Group, trials: int | None, seconds: float | None, args: argparse.Namespace,
             seeds: dict[str, dict[str, list[Any]]], alive: dict[str, set[str]], infer_named: Any, seeded: Any,
             aim: Any) -> Campaign:
    """Infer `group`'s function's driver (with the suite's values as seeds) and fuzz it at the module's survivors."""
    values = seeds.get(group.qualname, {})
    try:
        spec = infer_named(group.module, group.function, seeds={name: seeded(v) for name, v in values.items()})
    except (UserError, AttributeError) as exc:
        return Campaign(group.qualname, error=f"cannot be called: {exc}")
    if spec.skipped:
        return Campaign(group.qualname, spec, error=spec.skipped)
    return aim(spec, set(alive[group.module]), trials, seconds, args.seed, args.timeout)


def add_kill_command(sub: Any) -> None:
    """Register `kill` on the top-level subparsers."""
    p = sub.add_parser("kill", help="write pytest tests that kill the mutants a suite lets survive")
    add_project_arguments(p, tests="the suite's test paths (default: pytest's own)")
    p.add_argument("--out", default="mu2py-kill", help="output folder: tests/, report.json, equivalents.json")
    budget = p.add_mutually_exclusive_group()
    budget.add_argument("--time", help=f"fuzzing budget for all functions, e.g. 2m (default {DEFAULT_TIME})")
    budget.add_argument("--trials", type=int, help="inputs to try, split evenly across the functions (reproducible)")
    p.add_argument("--seed", type=int, default=0, help="every random choice flows from this seed")
    p.add_argument("--workers", type=int, default=1, help="processes scoring mutants and verifying tests")
    p.add_argument("--timeout", type=float, help="seconds a mutant may run on one input (default: 20x original)")
    p.add_argument("--no-cache", action="store_true", help="score without the verdict caches")
    p.add_argument("--show", type=int, default=10, help="likely-equivalent survivors to list")
    p.set_defaults(run=_kill, own_stdout=True)
