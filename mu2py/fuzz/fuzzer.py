"""The Mu2 fuzzing loop (Algorithm 3): coverage plus mutants killed as feedback, over choice sequences.

One trial: pick a corpus input (favored ones get more energy), mutate its choice
sequence, decode, and — unless the child decodes to an input already tried (a *duplicate*:
it runs nothing) — run the original with coverage probes.  Under mutation guidance, when
its mutants are to run (see `Fuzzer._mutation_analysis`), the probed original runs the input
again for the sites it reaches and the mutants it infects, and the mutants Algorithm 4
selects run in the host.  The input is kept when it adds coverage or kills a mutant no
saved input has killed.

Coverage comes from one copy only (the plain one, on every input): the probed copy costs
several plain runs and runs only where mutants will, and the two never mix coverage keys.
"""

from __future__ import annotations

import csv
import io
import json
import random
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from mu2py.engine.oracle import KillReason
from mu2py.engine.runs import RunResult, Status, run
from mu2py.errors import UserError
from mu2py.feedback.analysis import Analysis, Filter, Kill
from mu2py.feedback.coverage import CoverageMap
from mu2py.feedback.share import MutantShare
from mu2py.fuzz.tried import Tried
from mu2py.inputs.generators import source_for
from mu2py.inputs.mutator import havoc
from mu2py.inputs.source import Decoded, InputSource
from mu2py.interrupts import NoteInterrupts
from mu2py.mutants.catalog import Program
from mu2py.store.atomic import DirectoryLock, write_atomic, write_json
from mu2py.store.corpus import Corpus, Entry
from mu2py.target.modules import Target

GUIDANCE = ("mutation", "coverage")
# a campaign whose first SANITY_TRIALS trials draw no input, or whose every valid input fails the
# same way, has a broken driver: stop early with a clear error instead of burning the budget
SANITY_TRIALS = 100
# the original's budget per input when --timeout is not given: an input it cannot finish in this time is a
# failure found (a hang), never a stalled campaign
ORIGINAL_TIMEOUT = 10.0
PLOT_FIELDS = (
    "elapsed", "trials", "execs_per_sec", "corpus", "coverage", "mutants", "killed",
    "run_this_input", "pruned_execution", "pruned_infection", "filtered", "invalid", "failures",
)
_TRIED = Decoded(value=None, choices=())  # _next_input's answer for an input tried already: nothing runs
REPORT_EVERY = 15.0  # seconds between two mutants.json written during a campaign (see _write_mutants)


@dataclass
class FuzzConfig:
    """Budget, seed and variant of a campaign; `trials` or `seconds` (or both) bound it."""

    trials: int | None = None
    seconds: float | None = None
    seed: int = 0
    guidance: str = "mutation"
    split: bool = False
    pruning: str = "infection"
    filter: str | None = None
    timeout: float | None = None
    differential: bool = True
    out: Path | None = None
    initial: list[tuple[Any, ...]] = field(default_factory=list)
    plot_every: float = 1.0
    static_per_input: int | None = 32  # see Analysis.static_per_input
    memory_mb: int = 4096  # the mutant host's memory limit (see mu2py.engine.host)
    # under --time only (see Fuzzer._mutation_analysis): None adapts it to measured yields
    # (mu2py.feedback.share), 1 runs mutants on every input, another fraction is a fixed share
    mutant_share: float | None = None
    judge: bool = True  # at the end, judge the saved inputs whose mutants did not all run (see finish_judging)

    def __post_init__(self) -> None:
        if self.trials is None and self.seconds is None:
            raise UserError("give a budget: --trials N or --time DURATION")
        if self.guidance not in GUIDANCE:
            raise UserError(f"--guidance must be one of {', '.join(GUIDANCE)}")


@dataclass
class Stats:
    """Counters of a campaign, as printed on the status line and in plot_data.csv."""

    trials: int = 0
    valid: int = 0
    invalid: int = 0
    duplicates: int = 0  # children that decoded to an input already tried: nothing ran
    predicted: int = 0  # duplicates and rejections known from the choices a decode reads, without decoding
    analysed: int = 0  # inputs the probed original ran on (their mutants too, where the share allowed)
    share: float = 0.5  # the share of time mutation analysis may take, as last measured (see mu2py.feedback.share)
    failures: int = 0
    mutant_runs: int = 0
    run_this_input: int = 0
    pruned_execution: int = 0
    pruned_infection: int = 0
    filtered: int = 0
    elapsed: float = 0.0
    # where the trials' time went: drawing inputs, the original (with coverage), the probed original (sites and
    # infection, only on inputs whose mutants run), mutant selection, mutant runs
    seconds_input: float = 0.0
    seconds_original: float = 0.0
    seconds_probed: float = 0.0
    seconds_selection: float = 0.0
    seconds_mutants: float = 0.0
    # mutation analysis in all: probed runs, selections and mutant runs (what the share bounds); of which that of
    # coverage-neutral inputs (the adaptive share's spend on mutant runs)
    seconds_analysis: float = 0.0
    seconds_neutral: float = 0.0
    # finer split of the loop's own cost: havoc (part of seconds_input; the rest is decoding), coverage
    # collection (part of seconds_original; the rest is the run), saving inputs and failures, status output
    seconds_mutate: float = 0.0
    seconds_coverage: float = 0.0
    seconds_corpus: float = 0.0
    seconds_status: float = 0.0


@dataclass
class FuzzResult:
    """What a campaign leaves: corpus entries, coverage size, kill report and counters."""

    corpus: list[Entry]
    coverage: int
    stats: Stats
    report: dict[str, Any] | None


class Fuzzer:
    """One campaign over one target (see the module docstring)."""

    def __init__(
        self,
        target: Target,
        config: FuzzConfig,
        *,
        source: InputSource | None = None,
        program: Program | None = None,
        on_progress: Callable[[Fuzzer], None] | None = None,
    ) -> None:
        assert target.driver is not None
        self.target = target
        self.config = config
        self.source = source or source_for(target.driver.source)
        self.rng = random.Random(config.seed)
        self.coverage = CoverageMap()
        self.stats = Stats()
        self.on_progress = on_progress
        self.failures: dict[tuple[str, str], str] = {}
        self._next_failure = 0  # invariant: above every failure_N in failures/, so none is written over
        out = config.out
        # one writer per output directory: taken before anything is read or written there
        self._lock = DirectoryLock(out) if out is not None else None
        self.corpus = Corpus(self.source, out / "corpus" if out else None)
        self.uses_mutants = config.guidance == "mutation"
        self.program = program
        if self.uses_mutants and self.program is None:
            self.program = Program(target)
        self.analysis: Analysis | None = None
        self.original_timeout = config.timeout or ORIGINAL_TIMEOUT
        if self.program is not None and self.uses_mutants:
            self.analysis = Analysis(
                self.program, pruning=config.pruning, differential=config.differential,
                timeout=config.timeout, filter=Filter.parse(config.filter),
                rng=random.Random(config.seed + 1),
                static_per_input=config.static_per_input, memory_mb=config.memory_mb,
                original_timeout=self.original_timeout,
            )
        self._run_original = self._covered_runner()
        # the realized inputs tried, and the choice prefixes that decided decodes: a child matching either is a
        # duplicate (or a known rejection), and one matching a prefix is answered without decoding it
        self.tried = Tried()
        self.share = MutantShare.fresh()
        self._share_elapsed = self._share_neutral = 0.0  # what the share's last update saw: elapsed, seconds_neutral
        self._novel_kills = self._novel_runs = 0  # kills and runs of mutants no saved input infected (timed)
        # the mutants some saved input infects (see _mutation_analysis)
        self._corpus_infected: set[int] = set()
        self._favored: list[Entry] = []
        self._succeeded = False  # has any input run without an exception on the original?
        self._plot_rows: list[dict[str, Any]] = []
        self._mutants_written: tuple[int, int] | None = None  # (kills, reached sites) of the last mutants.json
        self._report: dict[str, Any] | None = None  # the last mutants.json written
        self._mutants_at = -REPORT_EVERY  # perf_counter() when it was written
        self._start = 0.0
        self._stop_at: float | None = None

    # -- running the original ---------------------------------------------------------

    def _covered_runner(self) -> Callable[[Any], RunResult]:
        fn = self.coverage.driver(self.target)
        containers = self.coverage.containers
        timeout = self.original_timeout

        def runner(value: Any) -> RunResult:
            if containers is not None:
                containers.reset()
            return run(fn, value, timeout, guard_exit=True)

        return runner

    # -- the loop ---------------------------------------------------------------------

    def _mutation_phase(self) -> bool:
        if not self.uses_mutants:
            return False
        if not self.config.split:
            return True
        if self.config.trials is not None:
            return self.stats.trials >= self.config.trials // 2
        return (time.perf_counter() - self._start) >= (self.config.seconds or 0) / 2

    def _done(self) -> bool:
        if self.config.trials is not None and self.stats.trials >= self.config.trials:
            return True
        return self.config.seconds is not None and time.perf_counter() - self._start >= self.config.seconds

    def _pick_parent(self) -> Entry | None:
        entries = self.corpus.entries
        if not entries:
            return None
        # favored inputs (those that killed mutants) get twice the energy of others
        if self.rng.random() < 0.5 and self._favored:
            return self.rng.choice(self._favored)
        return self.rng.choice(entries)

    def _next_input(self) -> Decoded | None:
        """The next input: a seed or a havoc child, decoded; None if rejected, `_TRIED` if tried before."""
        seeds = self.config.initial
        if self.stats.trials <= len(seeds):  # trials counts from 1: trial k replays seed k-1
            return self._unless_tried(self.source.decode(seeds[self.stats.trials - 1], self.rng))
        t0 = time.perf_counter()
        parent = self._pick_parent()
        if parent is None:
            child: list[Any] | tuple[()] = ()
        else:
            donor = self.rng.choice(self.corpus.entries).choices if len(self.corpus) > 1 else None
            child = havoc(parent.choices, self.source, self.rng, donor, parent.kinds)
        self.stats.seconds_mutate += time.perf_counter() - t0
        known = self.tried.predict(child)
        if known is not None:  # decoding would give a tried input or a rejection, and draw nothing
            self.stats.predicted += 1
            return _TRIED if known else None
        decoded = self.source.decode(child, self.rng)
        outcome = self._unless_tried(decoded)
        self.tried.record(child, getattr(self.source, "last_read", None), decoded is not None)
        return outcome

    def _unless_tried(self, decoded: Decoded | None) -> Decoded | None:
        """`decoded`, or `_TRIED` when its realized choices were tried already (remembering them)."""
        if decoded is None or self.tried.first_time(decoded.choices):
            return decoded
        return _TRIED

    def _sanity_check(self, original: RunResult | None) -> None:
        """Raise UserError when the first trials show a driver that cannot work (see SANITY_TRIALS)."""
        s = self.stats
        if original is None:
            if s.valid == 0 and s.invalid >= SANITY_TRIALS and not self.corpus.entries:
                error = getattr(self.source, "last_error", None)
                why = f"the last draw raised {error}" if error else "filter or assume too strict?"
                raise UserError(f"the driver's strategy drew no input in {s.invalid} tries: "
                                f"it rejects everything ({why})")
            return
        if original.status is Status.OK:
            self._succeeded = True
        elif not self._succeeded and s.valid >= SANITY_TRIALS and len(self.failures) == 1:
            where = f"; the failing inputs are in {self.config.out / 'failures'}" if self.config.out else ""
            raise UserError(f"the target failed on all of the first {s.valid} inputs with {original.exc_type} "
                            f"at {original.location}: {original.exc_message}{where}")

    def trial(self) -> Entry | None:
        """Run one trial; returns the saved entry, if the input was kept.

        The phases' seconds add up in `stats.seconds_*` (input, original, selection, mutants), so
        a profile of where a trial goes is in every `state.json`.
        """
        stats = self.stats
        stats.trials += 1
        t0 = time.perf_counter()
        decoded = self._next_input()
        t1 = time.perf_counter()
        stats.seconds_input += t1 - t0
        if decoded is None:
            self.stats.invalid += 1
            if self.stats.valid == 0:
                self._sanity_check(None)
            return None
        if decoded is _TRIED:
            stats.duplicates += 1
            return None
        stats.valid += 1
        original = self._run_original(decoded.value)
        tc = time.perf_counter()
        new_cov = self.coverage.collect()
        t2 = time.perf_counter()
        stats.seconds_coverage += t2 - tc
        stats.seconds_original += t2 - t1
        if original.status is not Status.OK:  # raised, exited or hung: a failure found
            self._record_failure(decoded, original)
            stats.seconds_corpus += time.perf_counter() - t2
        if not self._succeeded:  # once the driver has worked, the per-trial path skips this check
            self._sanity_check(original)
        killed: list[int] = []
        name = ""
        complete = False
        if self.analysis is not None and self._mutation_phase():
            name = self.corpus.next_name()
            killed, complete = self._mutation_analysis(decoded.value, original, name, new_cov, t2)
        if not new_cov and not killed:
            return None
        t4 = time.perf_counter()
        name = name or self.corpus.next_name()
        kills = {self.analysis.program.mutants[i].id: self.analysis.kills[i].reason.value
                 for i in killed} if self.analysis else {}
        text = self.source.render(decoded.value)
        # judged: every selected mutant ran on it (no batch cut, filter or rotation left one out): the final
        # judging pass (finish_judging) skips it
        entry = Entry(name=name, choices=decoded.choices, kinds=decoded.kinds, size=len(text), favored=bool(killed),
                      new_coverage=new_cov, kills=kills, trial=self.stats.trials, value=decoded.value,
                      judged=complete)
        self.corpus.add(entry, text)
        if entry.favored:
            self._favored.append(entry)
        stats.seconds_corpus += time.perf_counter() - t4
        return entry

    def _timed_share(self) -> bool:
        """Whether a share of time bounds mutant runs: under a time budget only (a trial budget runs them all,
        so that the same seed and trials give the same corpus), and unless --mutant-share 1."""
        share = self.config.mutant_share
        return self.config.trials is None and (share is None or share < 1)

    def _share(self) -> float:
        """The share of time mutant runs on coverage-neutral inputs may take: fixed, or measured (feedback.share)."""
        return self.share.share if self.config.mutant_share is None else self.config.mutant_share

    def _mutation_analysis(self, value: Any, original: RunResult, name: str, new_cov: int,
                           now: float) -> tuple[list[int], bool]:
        """Under mutation guidance: run `value`'s mutants; (the mutants killed, whether every mutant selected for
        it ran: the final pass, `finish_judging`, runs the others).

        Under a trial budget every input runs every mutant Algorithm 4 selects (reproducible).  Under a
        time budget the corpus is judged at the end, as coverage guidance's is, and the campaign spends
        its mutant runs where they add to that judgement: an input that adds coverage gets its probed run
        only (the mutants it infects join `_corpus_infected`); a coverage-neutral input, while mutation
        analysis has taken at most its share of the time (`_share`), runs the selected mutants no saved
        input infects.  Pruning is sound, so the corpus cannot kill those: each kill is one coverage
        guidance's corpus would not have, which is what Mu2's feedback adds.  An input whose probe finds
        no such mutant costs one probed run.
        """
        analysis, stats = self.analysis, self.stats
        assert analysis is not None
        timed = self._timed_share()
        if timed and not new_cov and stats.seconds_analysis > self._share() * (now - self._start):
            return [], False
        stats.analysed += 1
        _, reached, infected = analysis.run_original(value)
        tp = time.perf_counter()
        stats.seconds_probed += tp - now
        killed: list[int] = []
        complete = False
        if not (timed and new_cov):
            sel = analysis.select(reached, infected)
            stats.pruned_execution += sel.pruned_execution
            stats.pruned_infection += sel.pruned_infection
            stats.filtered += sel.filtered
            stop_at = self._stop_at
            if timed:
                covered = self._corpus_infected
                sel.run = [i for i in sel.run if i not in covered]
                # a batch may not take exploration's time either (thousands of mutants reached at once): it
                # stops at its share of the time, at least a second; the least executed go first
                allowed = self._share() * (tp - self._start) - stats.seconds_analysis
                batch_end = time.monotonic() + max(1.0, allowed)
                stop_at = batch_end if stop_at is None else min(stop_at, batch_end)
                executions = analysis.executions
                sel.run.sort(key=lambda i: (executions[i], i))
            stats.run_this_input = len(sel.run)
            t3 = time.perf_counter()
            stats.seconds_selection += t3 - tp
            runs_before = analysis.mutant_runs
            killed = analysis.run_selected(sel, value, original, name, stop_at=stop_at)
            stats.seconds_mutants += time.perf_counter() - t3
            stats.mutant_runs = analysis.mutant_runs
            # complete only when nothing was left out: not under a time budget, where mutants are chosen
            complete = (not timed and analysis.mutant_runs - runs_before == len(sel.run) and not sel.filtered
                        and not sel.deferred_static)
        if new_cov or killed:
            # the input is saved: the mutants it infects are the corpus's to kill from now on
            novel = len(infected - self._corpus_infected)
            self._corpus_infected |= infected
        spent = time.perf_counter() - now
        stats.seconds_analysis += spent
        if new_cov:
            # exploration's yield (see mu2py.feedback.share): a saved input's kills are known once it is judged, at the
            # end; meanwhile they are estimated as the mutants it is the first to infect, times the rate at
            # which such mutants died where they ran (on neutral inputs; one in two before any ran)
            self.share.explore.kills += novel * (self._novel_kills + 1) / (self._novel_runs + 2)
        else:
            stats.seconds_neutral += spent
            self.share.mutants.kills += len(killed)
            self._novel_kills += len(killed)
            self._novel_runs += analysis.mutant_runs - runs_before if timed else 0
        return killed, complete

    def _record_kills(self, entry: Entry, killed: list[int]) -> None:
        """Add kills made by judging an already saved input to its index entry (favored from now on)."""
        analysis = self.analysis
        assert analysis is not None
        entry.kills.update({analysis.program.mutants[i].id: analysis.kills[i].reason.value for i in killed})
        if not entry.favored:
            entry.favored = True
            self._favored.append(entry)
        self.corpus.write_index()

    def _update_share(self, elapsed: float) -> None:
        """Charge the seconds since the last call to exploration or to mutation analysis of coverage-neutral
        inputs, then age both yields."""
        spent = elapsed - self._share_elapsed
        neutral = self.stats.seconds_neutral - self._share_neutral
        self.share.explore.seconds += max(0.0, spent - neutral)
        self.share.mutants.seconds += neutral
        self._share_elapsed, self._share_neutral = elapsed, self.stats.seconds_neutral
        self.share.decay()
        self.stats.share = round(self._share(), 3)

    def _record_failure(self, decoded: Decoded, result: RunResult) -> None:
        key = (result.exc_type or "?", result.location or "?")
        if key in self.failures:
            return
        name = f"failure_{self._next_failure:06d}"
        self._next_failure += 1
        self.failures[key] = name
        self.stats.failures = len(self.failures)
        if self.config.out is not None:
            folder = self.config.out / "failures"
            write_atomic(folder / f"{name}.bin", self.source.to_bytes(decoded.choices))
            write_atomic(folder / f"{name}.txt", self.source.render(decoded.value) + "\n")
            message = (result.exc_message if result.status is Status.EXCEPTION
                       else f"did not finish within {self.original_timeout:g} s (a hang)")
            write_json(folder / f"{name}.json", {"exception": key[0], "location": key[1], "message": message})

    # -- outputs ----------------------------------------------------------------------

    def _plot_row(self) -> dict[str, Any]:
        elapsed = time.perf_counter() - self._start
        self.stats.elapsed = elapsed
        return {
            "elapsed": round(elapsed, 3), "trials": self.stats.trials,
            "execs_per_sec": round(self.stats.trials / elapsed, 1) if elapsed else 0.0,
            "corpus": len(self.corpus), "coverage": len(self.coverage),
            "mutants": len(self.program.mutants) if self.program else 0,
            "killed": len(self.analysis.kills) if self.analysis else 0,
            "run_this_input": self.stats.run_this_input,
            "pruned_execution": self.stats.pruned_execution, "pruned_infection": self.stats.pruned_infection,
            "filtered": self.stats.filtered, "invalid": self.stats.invalid, "failures": self.stats.failures,
        }

    def _write_plot(self) -> None:
        if self.config.out is None:
            return
        buf = io.StringIO()
        writer = csv.DictWriter(buf, fieldnames=PLOT_FIELDS)
        writer.writeheader()
        writer.writerows(self._plot_rows)
        write_atomic(self.config.out / "plot_data.csv", buf.getvalue())

    def _write_mutants(self, final: bool) -> None:
        if self.config.out is None or self.analysis is None:
            return
        # the report covers every mutant (thousands in a real package): rebuilt only when a kill or a newly
        # reached site changed it (both only grow), or at the end, where its run counter is brought up to date
        version = (len(self.analysis.kills), len(self.analysis.reached))
        now = time.perf_counter()
        # and at most every REPORT_EVERY seconds: it is derived from the corpus index (resume reads kills from
        # there), and turning it into indented JSON costs tens of milliseconds, a tenth of a second-long slice
        if final or (version != self._mutants_written and now - self._mutants_at >= REPORT_EVERY):
            self._mutants_at = now
            self._report = self.analysis.report()
            write_json(self.config.out / "mutants.json", self._report)
            self._mutants_written = version

    def _write_state(self) -> None:
        if self.config.out is None:
            return
        config = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self.config).items() if k != "initial"}
        write_json(self.config.out / "state.json", {"config": config, "stats": asdict(self.stats)})

    def checkpoint(self, final: bool = False) -> None:
        """Write every output file from the current state (consistent at any moment; `final`: the last one)."""
        self._plot_rows.append(self._plot_row())
        self._write_plot()
        self._write_mutants(final)
        self._write_state()

    # -- resume -----------------------------------------------------------------------

    def resume(self) -> int:
        """Reload a previous run's corpus, kills, failures and counters from `out`; returns the inputs restored.

        Every saved input is replayed on the original to rebuild coverage; kills come from the corpus
        index, which is rewritten with every saved input.  Every counter carries on (trials, valid,
        failures, elapsed, ...): a `--trials` or `--time` budget is the campaign's total, so a resumed run
        gets what is left of it.  A corrupt file raises UserError naming it, before anything is written.
        """
        if self.config.out is None:
            return 0
        out = self.config.out
        stats = self._read_state(out / "state.json")
        plot_rows = self._read_plot(out / "plot_data.csv")
        self._read_failures(out / "failures")
        entries = self.corpus.load()
        for entry in entries:
            decoded = self.source.decode(entry.choices, self.rng)
            if decoded is None:
                continue
            entry.value, entry.kinds = decoded.value, decoded.kinds
            self.tried.first_time(decoded.choices)
            self.corpus.entries.append(entry)
            if entry.favored:
                self._favored.append(entry)
            self._succeeded = True  # a saved corpus proves the driver works
            self._run_original(decoded.value)
            self.coverage.collect()
            if self.analysis is not None:
                # the sites it reached (for the report) and the mutants it infects (see _mutation_analysis)
                self._corpus_infected |= self.analysis.run_original(decoded.value)[2]
                for mutant_id, reason in entry.kills.items():
                    index = self.analysis.program.index.get(mutant_id)
                    if index is not None:
                        self.analysis.add_kill(index, Kill(entry.name, KillReason(reason)))
        if stats:
            for name, value in stats.items():
                if name in Stats.__dataclass_fields__:
                    setattr(self.stats, name, type(getattr(self.stats, name))(value))
            self.stats.failures = len(self.failures)
            self.rng = random.Random(f"{self.config.seed}:{self.stats.trials}")
        self._plot_rows = plot_rows
        return len(self.corpus)

    @staticmethod
    def _corrupt(path: Path, detail: str, remedy: str) -> UserError:
        return UserError(f"{path} is corrupt ({detail}); {remedy}, or move the output directory aside to start afresh")

    def _read_state(self, path: Path) -> dict[str, Any]:
        if not path.is_file():
            return {}
        try:
            stats = json.loads(path.read_text())["stats"]
            if not isinstance(stats, dict) or not all(isinstance(v, int | float) for v in stats.values()):
                raise ValueError("its counters are not numbers")
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
            raise self._corrupt(path, str(exc) or type(exc).__name__,
                                "delete it to resume with counters from zero (the corpus is kept)") from None
        return stats

    @staticmethod
    def _read_plot(path: Path) -> list[dict[str, Any]]:
        if not path.is_file():
            return []
        try:
            reader = csv.DictReader(io.StringIO(path.read_text()))
            rows = list(reader)
            if tuple(reader.fieldnames or ()) != PLOT_FIELDS:
                raise ValueError(f"its header is not {','.join(PLOT_FIELDS)}")
            for row in rows:
                for value in row.values():
                    float(value)  # raises on a garbled (or short: None) cell
        except (ValueError, TypeError, UnicodeDecodeError, csv.Error) as exc:
            raise Fuzzer._corrupt(path, str(exc), "delete it to start the plot afresh (nothing else is lost)") from None
        return rows

    def _read_failures(self, folder: Path) -> None:
        for meta_path in sorted(folder.glob("failure_*.json")):
            try:
                meta = json.loads(meta_path.read_text())
                key = (str(meta["exception"]), str(meta["location"]))
                number = int(meta_path.stem.removeprefix("failure_"))
            except (ValueError, KeyError, TypeError, UnicodeDecodeError) as exc:
                raise self._corrupt(meta_path, str(exc), "delete it (and its .bin and .txt) to resume") from None
            self.failures.setdefault(key, meta_path.stem)
            self._next_failure = max(self._next_failure, number + 1)
        for other in folder.glob("failure_*.*"):  # a .bin or .txt whose .json was never written
            stem = other.stem.removeprefix("failure_")
            if stem.isdigit():
                self._next_failure = max(self._next_failure, int(stem) + 1)

    def finish_judging(self) -> int:
        """Run every saved input not yet judged through the mutants it can kill, as `mutate` would; returns
        how many inputs that took.

        Under a time budget the mutants of an input may be cut short (its batch's share), left out
        (a filter, the rotation of import-time mutants) or not run at all (an input that added coverage
        while mutants were not in their phase): after this pass the report equals what `mutate`
        gives on the corpus, kills and reached sites alike.  It runs after the budget, as coverage
        guidance's judging of its corpus does; each judged input is marked in the index.
        """
        analysis = self.analysis
        if analysis is None:
            return 0
        pending = [e for e in self.corpus.entries if not e.judged]
        # every mutant, as `mutate` runs them: no filter, no rotation of import-time mutants
        analysis.filter, analysis.static_per_input = None, None
        for entry in pending:
            killed = analysis.analyse(entry.value, entry.name)[2]
            entry.judged = True
            if killed:
                self._record_kills(entry, killed)
            self.stats.mutant_runs = analysis.mutant_runs
        if pending:
            self.corpus.write_index()
        return len(pending)

    def run(self) -> FuzzResult:
        """Run until the budget is spent (or Ctrl-C); outputs are consistent either way."""
        self._start = time.perf_counter() - (self.stats.elapsed or 0.0)
        # a batch of mutant runs stops at the end of a --time budget, not after it
        self._stop_at = (time.monotonic() + self.config.seconds - (self.stats.elapsed or 0.0)
                         if self.config.seconds is not None else None)
        last = time.perf_counter()
        self._share_elapsed, self._share_neutral = self.stats.elapsed, self.stats.seconds_neutral
        # a Ctrl-C swallowed on its way (by a gc callback, say) still stops the loop at the next trial
        with NoteInterrupts() as interrupts:
            try:
                while not self._done():
                    self.trial()
                    if interrupts.seen:  # an attribute read: this runs on every trial
                        raise KeyboardInterrupt
                    now = time.perf_counter()
                    if now - last >= self.config.plot_every:
                        last = now
                        self._update_share(now - self._start)
                        self.checkpoint()
                        if self.on_progress:
                            self.on_progress(self)
                        self.stats.seconds_status += time.perf_counter() - now
                if self.config.judge:
                    self.finish_judging()
            finally:
                self.checkpoint(final=True)
                if self.analysis is not None:
                    self.analysis.close()
                if self._lock is not None:
                    self._lock.release()
        return FuzzResult(
            corpus=list(self.corpus.entries), coverage=len(self.coverage), stats=self.stats,
            # the final checkpoint built it already when there is an output directory
            report=(self._report or self.analysis.report()) if self.analysis else None,
        )


def judge_inputs(target: Target, config: FuzzConfig, inputs: list[tuple[str, Any]],
                 program: Program | None = None) -> dict[str, Any]:
    """Run labelled inputs through every mutant they reach, as `mutate` does; the report (see Analysis.report)."""
    analysis = Analysis(program or Program(target), pruning=config.pruning, differential=config.differential,
                        timeout=config.timeout, memory_mb=config.memory_mb,
                        original_timeout=config.timeout or ORIGINAL_TIMEOUT)
    try:
        for label, value in inputs:
            analysis.analyse(value, label)
    finally:
        analysis.close()
    return analysis.report()
