"""The `fuzz` and `repro` subcommands of the mu2py command line."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mu2py.budget import now as budget_clock
from mu2py.cli.argtypes import mutant_filter, positive_int
from mu2py.cli.progress import Meter
from mu2py.cli.report import print_mutation_report
from mu2py.errors import OutputError

if TYPE_CHECKING:  # the CLI's own start-up does not import libcst
    from mu2py.api import FuzzProgress
    from mu2py.fuzz.fuzzer import Fuzzer


def _share(text: str) -> float:
    """A fraction in (0, 1] for --mutant-share."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number in (0, 1], got {text!r}")
    return value


def _status_table(fuzzer: Any) -> Table:
    s = fuzzer.stats
    elapsed = max(s.elapsed, 1e-9)  # as of the last checkpoint: after the run, judging time is not the loop's
    table = Table.grid(padding=(0, 2))
    table.add_row("trials", f"{s.trials}", "execs/s", f"{s.trials / elapsed:.0f}")
    table.add_row("corpus", _inputs(len(fuzzer.corpus)), "coverage", f"{len(fuzzer.coverage)} lines+branches")
    if fuzzer.analysis is not None:
        table.add_row("kills confirmed", f"{len(fuzzer.analysis.kills)}/{len(fuzzer.program.mutants)} mutants",
                      "mutant runs", f"{s.mutant_runs}")
        pending = _pending(fuzzer)
        table.add_row(_pending_label(fuzzer), f"{pending[0]} ({pending[1]})" if pending else "none", "", "")
        table.add_row("pruned (exec)", f"{s.pruned_execution}", "pruned (infection)", f"{s.pruned_infection}")
        table.add_row("likely equivalent", f"{s.likely_equivalent} mutants",
                      "backed off", f"{s.backed_off} mutant runs")
    table.add_row("failures", f"{s.failures}", "invalid", f"{s.invalid}")
    if fuzzer.judging is not None:
        done, total = fuzzer.judging
        table.add_row("judging", f"{done}/{_inputs(total)}", "", "")
    # children that decoded to an input tried already: nothing ran for them (predicted: not even decoded)
    table.add_row("duplicates", f"{s.duplicates} ({s.duplicates / max(s.trials, 1):.0%})",
                  "predicted", f"{s.predicted}")
    return table


def _inputs(n: int) -> str:
    return f"{n} input" if n == 1 else f"{n} inputs"


def _pending_label(fuzzer: Any) -> str:
    # --no-judge: nothing judges them at the end, so they are not "pending"
    return "pending final judging" if fuzzer.config.judge else "not judged (--no-judge)"


def _pending(fuzzer: Any) -> tuple[str, str] | None:
    """What the final judging has yet to run, as the campaign knows it now: (`12 mutants`, `infected by 3 saved
    inputs`); None when nothing is pending (every saved input ran its mutants)."""
    inputs, mutants, exact = fuzzer.pending_judging()
    if not inputs:
        return None
    return (f"{'' if exact else 'at least '}{mutants} mutant{'' if mutants == 1 else 's'}",
            f"infected by {inputs} saved {_inputs(inputs).split(' ')[1]}")


def _kills_note(fuzzer: Any) -> str:
    """The kill counter as the campaign knows it while it runs: the kills confirmed, and what awaits the final
    judging (`kills confirmed 0/30 mutants; 29 mutants pending final judging (infected by 1 saved input)`)."""
    if fuzzer.analysis is None:
        return ("coverage guidance: no mutant runs during the loop; the saved inputs are judged against them at the "
                "end" if fuzzer.config.judge else "")
    confirmed = f"kills confirmed {len(fuzzer.analysis.kills)}/{len(fuzzer.program.mutants)} mutants"
    pending = _pending(fuzzer)
    return f"{confirmed}; {pending[0]} {_pending_label(fuzzer)} ({pending[1]})" if pending else confirmed


def _progress_line(fuzzer: Any) -> str:
    """The status as one plain line, for logs (stdout not a terminal)."""
    s = fuzzer.stats
    elapsed = max(fuzzer.elapsed(), 1e-9)
    killed = f"; {_kills_note(fuzzer)}" if fuzzer.analysis is not None else ""
    budget = f"; {_budget_text(fuzzer)}"
    if fuzzer.judging is not None:
        done, total = fuzzer.judging
        return (f"[{elapsed:6.0f} s] judging the corpus: {done}/{_inputs(total)} run through their mutants{killed}"
                f"{budget}")
    return (f"[{elapsed:6.0f} s] trials {s.trials} ({s.trials / elapsed:.0f}/s); corpus {_inputs(len(fuzzer.corpus))}; "
            f"coverage {len(fuzzer.coverage)} lines+branches{killed}; failures {s.failures}{budget}")


def _budget_text(fuzzer: Any) -> str:
    """`budget 20s, 12s left`, `budget 500 trials` or both, from the campaign's own budget (a resumed one's spent
    time included)."""
    from mu2py.cli.progress import budget_seconds, duration

    config = fuzzer.config
    parts = [f"{config.trials} trials"] if config.trials is not None else []
    if config.seconds is not None:
        parts.append(f"{budget_seconds(config.seconds)}, {duration(round(fuzzer.budget.remaining()))} left")
    return "budget " + " or ".join(parts)


class _View:
    """How a `fuzz` run is shown as it goes: the API's progress events as a spinner while loading, then a progress
    bar with the campaign's counters under it (`Meter`) on a terminal, plain lines elsewhere."""

    def __init__(self, console: Console, quiet: bool, seconds: float | None = None, started: float | None = None
                 ) -> None:
        self.console, self.quiet = console, quiet
        self.seconds = seconds  # the --time budget, for the parallel campaigns' display
        self.started = started  # the command's start on the budget clock
        self.fuzzer: Fuzzer | None = None  # the campaign, from the `running` event on
        self.running = False  # between `running` and `ran`: Ctrl-C there says what the campaign saved
        self._status: Any = None  # a spinner (rich Status), stopped by `stop`
        self.meter: Meter | None = None  # the progress display of the loop or of the parallel campaigns

    def __call__(self, event: FuzzProgress) -> None:
        """Show one event (see `mu2py.api.FuzzProgress` for their order)."""
        console, kind = self.console, event.kind
        if kind == "loading":
            self._start(console.status("loading target and mutants"))
        elif kind == "loaded":
            self.stop()
            if event.message and not self.quiet:
                console.print(event.message)
        elif kind in ("warning", "resumed", "judged", "campaign"):
            self.stop()
            console.print(event.message)
        elif kind == "dashboard":
            print(event.message, file=sys.stderr, flush=True)  # a note: stdout is the report's
        elif kind == "running":
            self.fuzzer, self.running = event.fuzzer, True
            if self.quiet or event.fuzzer is None:
                return
            self.stop()
            fuzzer = event.fuzzer
            self.meter = Meter(console, "fuzzing", unit="trials", total=fuzzer.config.trials,
                               seconds=fuzzer.config.seconds, clock=fuzzer.elapsed, plain_at_once=False)
            self._show(fuzzer)
            self.meter.start()
        elif kind == "status" and not self.quiet and self.meter is not None and event.fuzzer is not None:
            self._show(event.fuzzer)
        elif kind == "ran":
            self.running = False
            self.stop()
        elif kind == "judging":
            self._start(console.status("judging the corpus against the mutants"))
        elif kind == "campaigns" and not self.quiet and console.is_terminal:
            trials = sum(row.get("trials", 0) for row in event.rows)
            if self.meter is None:
                started = self.started if self.started is not None else budget_clock()
                self.meter = Meter(console, f"{len(event.rows)} campaigns", unit="trials", seconds=self.seconds,
                                   clock=lambda: budget_clock() - started)
                self.meter.start()
            self.meter.update(completed=trials, detail=_workers_table(list(event.rows)))

    def _show(self, fuzzer: Any) -> None:
        """The campaign's state on the meter: the bar (trials, or inputs judged), the kills note, the table."""
        assert self.meter is not None
        if fuzzer.judging is not None:
            done, total = fuzzer.judging
            self.meter.update(description="judging saved inputs", unit="inputs", completed=done, total=total or 0)
        else:
            self.meter.update(description="fuzzing", unit="trials", completed=fuzzer.stats.trials,
                              total=fuzzer.config.trials or 0)
        # the kills confirmed and those pending judging are rows of the table
        self.meter.update(detail=_status_table(fuzzer))
        self.meter.plain(lambda: _progress_line(fuzzer))

    def _start(self, display: Any) -> None:
        self.stop()
        self._status = display
        display.start()

    def stop(self) -> None:
        """Take the spinner or the progress display off the screen, if any (idempotent)."""
        if self._status is not None:
            self._status.stop()
            self._status = None
        if self.meter is not None:
            self.meter.stop()
            self.meter = None


def _fuzz(args: argparse.Namespace, console: Console, prefixes: Callable[[argparse.Namespace], Any]) -> int:
    from mu2py.api import fuzz
    from mu2py.cli.report import check_mte, write_mte, write_mutants_html

    check_mte(args.mte, args.html)
    view = _View(console, args.quiet, _time_budget(args.time), getattr(args, "started", None))
    try:
        result = fuzz(args.target, trials=args.trials, time=args.time, seed=args.seed, out=args.out,
                      seeds=args.seeds, guidance=args.guidance, split=args.split, mutant_share=args.mutant_share,
                      filter=args.filter, workers=args.workers, cluster=args.cluster, judge=args.judge,
                      targets=prefixes(args), timeout=args.timeout, opt=args.opt, memory_limit=args.memory_limit,
                      started=getattr(args, "started", None), progress=view)
    except KeyboardInterrupt:
        view.stop()
        if not view.running or view.fuzzer is None:
            raise
        # run() has checkpointed every output on its way out: say what there is and where
        console.print(_progress_line(view.fuzzer))
        where = f"; outputs saved in {Path(args.out)} (run the same command to resume)" if args.out else ""
        console.print(f"interrupted{where}")
        return 130
    finally:
        view.stop()
    out = Path(args.out) if args.out else None
    report = result.report
    if args.mte and report is not None:
        write_mte(args.mte, report, args.target)
    elif args.mte:
        console.print(f"--mte: no mutants report to write ({args.mte} not written)")
    if args.html and report is not None:
        console.print(f"HTML report: {write_mutants_html(args.html, report, args.target, 'fuzz')}")
    elif args.html:
        console.print(f"--html: no mutants report to write ({args.html} not written)")
    if args.workers > 1 or args.cluster:  # parallel campaigns, merged
        if report is not None:
            print_mutation_report(console, report, max_rows=10, more=f"all of them in {out / 'mutants.json'}",  # type: ignore[operator]  # not None: parallel runs need --out
                                  survivors=not args.quiet)
        console.print(f"merged corpus: {out / 'corpus'} ({len(result.corpus)} inputs); "  # type: ignore[operator]  # not None: parallel runs need --out
                      f"campaigns in {out / 'workers'}")  # type: ignore[operator]  # not None: parallel runs need --out
        return _failures_found(console, result.stats.failures, out)
    if not args.quiet and view.fuzzer is not None:
        console.print(_status_table(view.fuzzer))
    for warning in result.warnings:
        console.print(f"warning: {warning}")
    if report is not None:
        more = f"all of them in {out / 'mutants.json'}" if out else "give --out to keep the full report"
        print_mutation_report(console, report, max_rows=10, more=more, survivors=not args.quiet)
        if result.unreached:
            console.print(f"warning: {result.unreached}")
        if result.unjudged and not args.judge:
            # the kills above are those made during the run: not the corpus's score, which judging gives
            where = f" --input {out / 'corpus'}" if out else ""
            console.print(f"--no-judge: {_inputs(result.unjudged)} did not run all their mutants, so the kills above "
                          f"are a lower bound; `mu2py mutate {args.target}{where}` gives the corpus's score")
    if out is not None:
        console.print(f"corpus: {out / 'corpus'} ({_inputs(len(result.corpus))}, each kept because it added "
                      "coverage or killed a mutant)")
    return _failures_found(console, result.stats.failures, out)


def _time_budget(text: str | None) -> float | None:
    """--time in seconds for the display (None when absent or bad: the API names a bad one)."""
    from mu2py.budget import parse_duration
    from mu2py.errors import UserError

    try:
        return parse_duration(text) if text else None
    except UserError:
        return None


def _fuzz_or_say_where(args: argparse.Namespace, console: Console,
                       prefixes: Callable[[argparse.Namespace], Any]) -> int:
    """`_fuzz`; an output that cannot be written (disk full, read-only) says that the same command resumes."""
    try:
        return _fuzz(args, console, prefixes)
    except OutputError as exc:
        if args.out is None or not exc.kept:
            raise
        raise OutputError(f"{exc}, and the same command resumes from them once it can write") from exc


def _failures_found(console: Console, failures: int, out: Path | None) -> int:
    """Say where the failures are; the exit code (3 when the original failed on some input)."""
    if not failures:
        return 0
    where = (f"the inputs are in {out / 'failures'}" if out is not None
             else "give --out to keep the inputs")
    console.print(f"{failures} failure{'s' if failures > 1 else ''} found (the original program raised, exited or "
                  f"hung): {where}")
    return 3


def _workers_table(rows: list[dict[str, Any]]) -> Table:
    table = Table(title="campaigns")
    for col in ("worker", "trials", "valid", "mutant runs", "failures"):
        table.add_column(col, justify="right")
    for k, row in enumerate(rows):
        table.add_row(f"w{k}", *(str(row.get(key, "-")) for key in ("trials", "valid", "mutant_runs", "failures")))
    return table


def _repro(args: argparse.Namespace, console: Console, prefixes: Callable[[argparse.Namespace], Any]) -> int:
    from mu2py.engine.runs import run
    from mu2py.inputs.generators import source_for
    from mu2py.inputs.replay import load_files
    from mu2py.target.modules import resolve_target

    target = resolve_target(args.target, prefixes(args))
    assert target.driver is not None
    source = source_for(target.driver.source)
    rows = []
    for item in load_files(args.input, source):
        result = run(target.driver.fn, item.value, args.timeout, guard_exit=True)
        rows.append({
            "file": item.label, "value_repr": repr(item.value), "outcome": result.status.name.lower(),
            "output_repr": (
                repr(result.output) if result.status.name == "OK" else f"{result.exc_type}: {result.exc_message}"
            ),
        })
    if args.json:
        print(json.dumps(rows, indent=1), file=console.file)
    else:
        for row in rows:
            console.print(f"[bold]{escape(row['file'])}[/bold]: {escape(row['value_repr'])}", markup=True)
            console.print(f"  -> {row['outcome']}: {row['output_repr']}", markup=False)
    return 0


def add_commands(sub: Any, evaluation_args: Callable[[argparse.ArgumentParser], None],
                 prefixes: Callable[[argparse.Namespace], Any]) -> None:
    """Register `fuzz` and `repro` on the top-level subparsers."""
    p = sub.add_parser("fuzz", help="mutation-guided (or coverage-guided) fuzzing of TARGET:DRIVER",
                       epilog="exit codes: 0 done; 2 bad input; 3 the original program failed on some inputs "
                              "(kept in OUT/failures); 130 interrupted (outputs so far saved, rerun to resume)")
    p.add_argument("target", metavar="TARGET:DRIVER")
    budget = p.add_argument_group("budget (at least one)")
    budget.add_argument("--trials", type=positive_int,
                        help="number of inputs to try (the campaign's total, across resumes)")
    budget.add_argument("--time", help="wall-clock budget, e.g. 60s, 5m (the campaign's total: a resumed run "
                                       "gets what is left)")
    p.add_argument("--seed", type=int, default=0, help="every random choice flows from this seed")
    p.add_argument("--out", help="output directory (resumed when it holds a previous run)")
    p.add_argument("--in", dest="seeds", metavar="SEEDS", help="directory of .bin inputs to start from")
    p.add_argument("--guidance", choices=("mutation", "coverage"), default="mutation")
    p.add_argument("--split", action="store_true", help="coverage-only guidance for the first half of the budget")
    p.add_argument("--mutant-share", type=_share, default=None, metavar="F",
                   help="with --time: mutants run on inputs that add coverage, and on others while those runs "
                        "have taken at most this fraction of the time so far (default: adapted to the kills per "
                        "second each use of time earns; 1: every input)")
    p.add_argument("--filter", type=mutant_filter,
                   help="aggressive mutant filter: least-executed:K, random:K or random:P%%")
    p.add_argument("--workers", type=positive_int, default=1,
                   help="independent campaigns on N processes (seeds S..S+N-1)")
    p.add_argument("--cluster", metavar="ADDRESS", help="run the campaigns on Dask: tcp://HOST:8786 or local:N")
    p.add_argument("--quiet", action="store_true", help="no status screen or progress lines; summary lines only")
    p.add_argument("--no-judge", dest="judge", action="store_false",
                   help="do not judge the corpus against the mutants at the end (coverage guidance: all of it; "
                        "mutation guidance: the saved inputs whose mutants did not all run)")
    p.add_argument("--mte", metavar="FILE",
                   help="write the mutants report (as mutants.json) as mutation-testing-report-schema JSON (Stryker's "
                        "format: every mutant in its file's source; the inputs stand for the tests)")
    p.add_argument("--html", metavar="DIR",
                   help="write the mutants report as an HTML report (offline: open DIR/index.html): every mutant on "
                        "its line in the file's source, with its status and the input that killed it")
    evaluation_args(p)
    p.set_defaults(run=lambda a, c: _fuzz_or_say_where(a, c, prefixes), own_stdout=True)

    p = sub.add_parser("repro", help="replay saved inputs on the original program and print them")
    p.add_argument("target", metavar="TARGET:DRIVER")
    p.add_argument("--input", nargs="+", action="extend", required=True, metavar="PATH")
    p.add_argument("--json", action="store_true")
    p.add_argument("--timeout", type=float, default=10.0)
    p.add_argument("--targets", help=argparse.SUPPRESS)
    p.set_defaults(run=lambda a, c: _repro(a, c, prefixes))


