"""The Mu2 fuzzing loop (Algorithm 3): coverage plus mutants killed as feedback, over choice sequences.

One trial: pick a corpus input (favored ones get more energy), mutate its choice
sequence, decode, and — unless the child decodes to an input already tried (a *duplicate*:
it runs nothing) — run the original with coverage probes.  Under mutation guidance, when
its mutants are to run (see `MutantRuns.run`), the probed original runs the input
again for the sites it reaches and the mutants it infects, and the mutants Algorithm 4
selects run in the host.  The input is kept when it adds coverage or kills a mutant no
saved input has killed.

Coverage comes from one copy only (the plain one, on every input): the probed copy costs
several plain runs and runs only where mutants will, and the two never mix coverage keys.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mu2py.budget import Budget, Deadline
from mu2py.engine.oracle import KillReason
from mu2py.engine.runs import RunResult, Status, run
from mu2py.errors import UserError
from mu2py.feedback.analysis import Analysis, Filter, Kill
from mu2py.feedback.backoff import likely_equivalent
from mu2py.feedback.coverage import CoverageMap
from mu2py.feedback.schedule import Energy, donor
from mu2py.fuzz.config import ORIGINAL_TIMEOUT, SANITY_TRIALS, FuzzConfig, FuzzResult, Stats
from mu2py.fuzz.folder import CampaignFolder
from mu2py.fuzz.mutant_runs import MutantRuns
from mu2py.fuzz.tried import Tried
from mu2py.inputs.generators import source_for
from mu2py.inputs.mutator import havoc
from mu2py.inputs.source import Decoded, InputSource
from mu2py.interrupts import NoteInterrupts
from mu2py.mutants.catalog import Program
from mu2py.rng import stream
from mu2py.store.atomic import DirectoryLock
from mu2py.store.corpus import Corpus, Entry
from mu2py.target.modules import Target

# favored inputs (those that killed mutants) get twice the energy of others
ENERGY = Energy(favored=0.5)
_TRIED = Decoded(value=None, choices=())  # _next_input's answer for an input tried already: nothing runs
# what a --time budget keeps for its end beyond the estimated final judging and the measured cost of a checkpoint:
# closing the mutant host, the command's own report
FINAL_MARGIN = 0.5
# the final judging's estimate (MutantRuns.judging_cost) is multiplied by this before it is reserved
JUDGING_SAFETY = 1.25
# at most this share of a --time budget is reserved for its end: past it, the final judging stops at the deadline
MAX_RESERVE = 0.6
# a timed campaign whose final judging left at least this many seconds of its budget goes on fuzzing (see `run`)
MIN_ROUND = 1.0


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
        budget: Budget | None = None,
    ) -> None:
        """`budget` (default: `config`'s trials and seconds, its clock started by `run`) is all the campaign may
        take, the final judging and writing included; a caller passes one to charge its own set-up to it too."""
        assert target.driver is not None
        self.target = target
        self.config = config
        self.source = source or source_for(target.driver.source)
        self.rng = stream(config.seed, "inputs")
        self.coverage = CoverageMap()
        self.stats = Stats()
        self.on_progress = on_progress
        self.failures: dict[tuple[str, str], str] = {}
        self.warnings: list[str] = []  # what the user should know about the run, printed with its results
        self.judging: tuple[int, int] | None = None  # during finish_judging: (inputs judged, inputs to judge)
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
                rng=stream(config.seed, "filter"),
                static_per_input=config.static_per_input, memory_mb=config.memory_mb,
                original_timeout=self.original_timeout,
            )
        self._run_original = self._covered_runner()
        # the realized inputs tried, and the choice prefixes that decided decodes: a child matching either is a
        # duplicate (or a known rejection), and one matching a prefix is answered without decoding it
        self.tried = Tried()
        self.mutant_runs = MutantRuns(self.analysis, config, self.stats)
        self._favored: list[Entry] = []
        self._succeeded = False  # has any input run without an exception on the original (or the check warned)?
        self.folder = CampaignFolder(out)
        self._given_budget = budget
        self.budget = budget or Budget(config.trials, config.seconds)
        # no trial's run outlasts it: under --time, the budget's end less what the end keeps (see `_reserve`)
        self.deadline = Deadline.never()
        self._checkpoint_cost = 0.0  # the longest checkpoint so far, in seconds: the final one must fit too
        # whether the campaign's end stops the mutant host; a caller that runs mutants after it (kill's shrinking)
        # sets False and closes the analysis itself
        self.close_analysis = True
        self._max_reserve = 0.0  # see `_reserve` (set by `run`)

    # -- running the original ---------------------------------------------------------

    def _covered_runner(self) -> Callable[..., RunResult]:
        fn = self.coverage.driver(self.target)
        containers = self.coverage.containers
        default = self.original_timeout

        def runner(value: Any, timeout: float | None = None) -> RunResult:
            if containers is not None:
                containers.reset()
            return run(fn, value, default if timeout is None else timeout, guard_exit=True)

        return runner

    # -- the loop ---------------------------------------------------------------------

    def _mutation_phase(self) -> bool:
        if not self.uses_mutants:
            return False
        if not self.config.split:
            return True
        if self.config.trials is not None:
            return self.stats.trials >= self.config.trials // 2
        return self.budget.elapsed() >= (self.config.seconds or 0) / 2

    def _done(self) -> bool:
        if self.config.trials is not None and self.stats.trials >= self.config.trials:
            return True
        return self.deadline.expired()

    def elapsed(self) -> float:
        """Seconds the campaign has spent of its budget (earlier runs of a resumed one included)."""
        return self.budget.elapsed()

    def pending_judging(self) -> tuple[int, int, bool]:
        """What the final judging still has to run, as known now: (saved inputs whose selected mutants did not all
        run, mutants alive that those inputs infect, whether that count is exact).

        Under --time a saved input that added coverage runs only its probe during the loop: the kills it makes
        are confirmed at the end.  An input saved before its probe could run (the first half of --split) infects
        mutants nobody counted yet: then the count is a lower bound."""
        if self.analysis is None:
            return 0, 0, True
        pending = [e.name for e in self.corpus.entries if not e.judged]
        kills = self.analysis.kills
        infected: set[int] = set()
        exact = True
        for name in pending:
            known = self.mutant_runs.infected_of.get(name)
            if known is None:
                exact = False
            else:
                infected |= known
        return len(pending), sum(1 for i in infected if i not in kills), exact

    def _reserve(self) -> float:
        """Seconds a timed campaign's end keeps for itself: the final judging of the saved inputs not yet judged
        (estimated from measured times), the final checkpoint, and FINAL_MARGIN; at most MAX_RESERVE of what was
        left of the budget when `run` began."""
        pending = [e.name for e in self.corpus.entries if not e.judged] if self.config.judge else []
        judging = self.mutant_runs.judging_cost(pending) * JUDGING_SAFETY
        return min(judging + self._checkpoint_cost + FINAL_MARGIN, self._max_reserve)

    def _next_input(self) -> Decoded | None:
        """The next input: a seed or a havoc child, decoded; None if rejected, `_TRIED` if tried before."""
        seeds = self.config.initial
        if self.stats.trials <= len(seeds):  # trials counts from 1: trial k replays seed k-1
            return self._unless_tried(self.source.decode(seeds[self.stats.trials - 1], self.rng))
        t0 = time.perf_counter()
        parent = ENERGY.parent(self.rng, self.corpus.entries, self._favored)
        if parent is None:
            child: list[Any] | tuple[()] = ()
        else:
            splice = donor(self.rng, self.corpus.entries)
            child = havoc(parent.choices, self.source, self.rng, splice.choices if splice else None, parent.kinds)
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
            what = (f"the first {s.valid} inputs all failed with {original.exc_type} at {original.location}: "
                    f"{original.exc_message}{where}")
            driver = self.target.driver_module
            if driver is not None and (original.location or "").rpartition(":")[0] == driver.file:
                raise UserError(f"the driver is broken: {what}")
            self._succeeded = True  # warned once; the fuzzing goes on
            self.warnings.append(f"{what}.  The target rejects what the strategy draws, at one place: the "
                                 "campaign went on, but a strategy nearer the inputs it accepts would reach more")

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
        # under --time the original's run ends with the loop: a slow input must not overrun the campaign by up
        # to the original's timeout, and a run stopped by the budget, not by that timeout, is no hang found
        timeout, capped = self.deadline.allot(self.original_timeout)
        original = self._run_original(decoded.value, timeout)
        tc = time.perf_counter()
        new_cov = self.coverage.collect()
        t2 = time.perf_counter()
        stats.seconds_coverage += t2 - tc
        stats.seconds_original += t2 - t1
        if capped and original.status is Status.TIMEOUT:
            return None  # the budget is spent: nothing is known of this input
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
            killed, complete = self.mutant_runs.run(decoded.value, original, name, new_cov, t2,
                                                    self.budget.elapsed(), self.deadline)
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

    def _record_kills(self, entry: Entry, killed: list[int]) -> None:
        """Add kills made by judging an already saved input to its index entry (favored from now on)."""
        analysis = self.analysis
        assert analysis is not None
        entry.kills.update({analysis.program.mutants[i].id: analysis.kills[i].reason.value for i in killed})
        if not entry.favored:
            entry.favored = True
            self._favored.append(entry)
        self.corpus.write_index()

    def _record_failure(self, decoded: Decoded, result: RunResult) -> None:
        key = (result.exc_type or "?", result.location or "?")
        if key in self.failures:
            return
        name = f"failure_{self._next_failure:06d}"
        self._next_failure += 1
        self.failures[key] = name
        self.stats.failures = len(self.failures)
        if self.config.out is not None:
            message = (result.exc_message if result.status is Status.EXCEPTION
                       else f"did not finish within {self.original_timeout:g} s (a hang)")
            self.folder.write_failure(name, self.source.to_bytes(decoded.choices), self.source.render(decoded.value),
                                      {"exception": key[0], "location": key[1], "message": message})

    # -- outputs ----------------------------------------------------------------------

    def _plot_row(self) -> dict[str, Any]:
        elapsed = self.budget.elapsed()
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

    def checkpoint(self, final: bool = False) -> None:
        """Write every output file from the current state (consistent at any moment; `final`: the last one)."""
        started = time.perf_counter()
        if self.analysis is not None:
            self.stats.likely_equivalent = likely_equivalent(self.analysis.executions, self.analysis.kills)
        self.folder.add_plot_row(self._plot_row())
        self.folder.write_mutants(self.analysis, final)
        config = {k: (str(v) if isinstance(v, Path) else v) for k, v in asdict(self.config).items() if k != "initial"}
        self.folder.write_state(config, asdict(self.stats))
        self._checkpoint_cost = max(self._checkpoint_cost, time.perf_counter() - started)

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
        stats = self.folder.read_state()
        self.folder.read_plot()
        self.failures, self._next_failure = self.folder.read_failures()
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
                # the sites it reached (for the report) and the mutants it infects (see MutantRuns.run)
                infected = self.analysis.run_original(decoded.value)[2]
                self.mutant_runs.corpus_infected |= infected
                if not entry.judged:  # what judging it at the end will cost (see MutantRuns.judging_cost)
                    self.mutant_runs.infected_of[entry.name] = infected
                for mutant_id, reason in entry.kills.items():
                    index = self.analysis.program.index.get(mutant_id)
                    if index is not None:
                        self.analysis.add_kill(index, Kill(entry.name, KillReason(reason)))
        if stats:
            for name, value in stats.items():
                if name in Stats.__dataclass_fields__:
                    setattr(self.stats, name, type(getattr(self.stats, name))(value))
            self.stats.failures = len(self.failures)
            # both streams from where the run stopped: a resumed run neither replays its first trials' choices
            # nor draws its filters from the start again
            self.rng = stream(self.config.seed, "inputs", self.stats.trials)
            if self.analysis is not None:
                self.analysis.rng = stream(self.config.seed, "filter", self.stats.trials)
        return len(self.corpus)

    def finish_judging(self, deadline: Deadline = Deadline.never()) -> int:
        """Run every saved input not yet judged through the mutants it can kill, as `mutate` would, until
        `deadline`; returns how many inputs were judged.

        Under a time budget the mutants of an input may be cut short (its batch's share), left out
        (a filter, the rotation of import-time mutants) or not run at all (an input that added coverage
        while mutants were not in their phase): after this pass the report equals what `mutate`
        gives on the corpus, kills and reached sites alike.  It runs after the budget, as coverage
        guidance's judging of its corpus does; each judged input is marked in the index.  Under --time, `run`
        keeps the time it is expected to take (see `_reserve`); should it take longer, the inputs the
        deadline left unjudged stay so in the index, and a warning says so.
        """
        analysis = self.analysis
        if analysis is None:
            return 0
        pending = [e for e in self.corpus.entries if not e.judged]
        # every mutant, as `mutate` runs them: no filter, no rotation of import-time mutants
        analysis.filter, analysis.static_per_input = None, None
        judged = 0
        for k, entry in enumerate(pending):
            if deadline.expired():
                break
            self.judging = (k, len(pending))
            if self.on_progress:  # a slow input's mutants can take minutes: the user sees where the judging is
                self.on_progress(self)
            runs_before = analysis.mutant_runs
            _, sel, killed = analysis.analyse(entry.value, entry.name, deadline)
            # judged unless the deadline stopped its batch short (a batch the host ended otherwise is as `mutate`'s)
            entry.judged = analysis.mutant_runs - runs_before == len(sel.run) or not deadline.expired()
            judged += entry.judged
            if killed:
                self._record_kills(entry, killed)
            self.stats.mutant_runs = analysis.mutant_runs
        self.judging = None
        if judged < len(pending):
            self.warnings.append(f"the --time budget ended before {len(pending) - judged} of the {len(pending)} "
                                 "saved inputs left to judge were judged: the kills reported are a lower bound, "
                                 "and `mu2py mutate` on the corpus gives its score")
        if pending:
            self.corpus.write_index()
        return judged

    def run(self) -> FuzzResult:
        """Run until the budget is spent (or Ctrl-C); outputs are consistent either way.

        Under --time the whole run fits in the budget: the loop ends early enough for the final judging and
        the last checkpoint (see `_reserve`, re-estimated at every checkpoint), and no run outlasts its deadline.
        The estimate errs on the long side: what the judging left of the budget goes to another round of
        trials and judging, while at least MIN_ROUND seconds are left.
        """
        # a resumed campaign gets what is left of its budget
        self.budget = (self._given_budget or Budget(self.config.trials, self.config.seconds)).resumed(
            self.stats.elapsed or 0.0)
        self.stats.elapsed = self.budget.elapsed()
        self._max_reserve = MAX_RESERVE * min(self.budget.remaining(), self.config.seconds or 0.0)
        self.deadline = self.budget.deadline().sooner_by(self._reserve())
        last = time.perf_counter()
        self.mutant_runs.restart()
        # a Ctrl-C swallowed on its way (by a gc callback, say) still stops the loop at the next trial
        with NoteInterrupts() as interrupts:
            try:
                while True:
                    while not self._done():
                        self.trial()
                        if interrupts.seen:  # an attribute read: this runs on every trial
                            raise KeyboardInterrupt
                        now = time.perf_counter()
                        if now - last >= self.config.plot_every:
                            last = now
                            self.mutant_runs.update_share(self.budget.elapsed())
                            self.checkpoint()
                            self.deadline = self.budget.deadline().sooner_by(self._reserve())
                            if self.on_progress:
                                self.on_progress(self)
                            self.stats.seconds_status += time.perf_counter() - now
                    if self.config.judge:
                        # what is left of the budget, less what the last checkpoint and the command's end take
                        self.finish_judging(self.budget.deadline().sooner_by(self._checkpoint_cost + FINAL_MARGIN))
                    # the judging took less than was kept for it: the time left goes to another round of trials
                    # (whose new inputs are judged in their turn), unless too little is left to be worth it
                    self.deadline = self.budget.deadline().sooner_by(self._reserve())
                    if (self.config.trials is not None and self.stats.trials >= self.config.trials) \
                            or self.deadline.remaining() < MIN_ROUND:
                        break
            finally:
                self._close()
        return self._result()

    def adopt(self, entries: Sequence[Entry], deadline: Deadline = Deadline.never()) -> FuzzResult:
        """Merge inputs saved and judged by other campaigns (parallel ones' corpora, in order) into this one, then
        end it as `run` does; no trial of its own runs.

        Each input is replayed on the original (its coverage, and the sites it reaches and mutants it infects, as
        `resume` does) and kept when it adds coverage or brings a kill no input kept before it brought; its mutants
        do not run again: the kills its campaign judged come from its index entry, and so does `judged`.  A mutant
        an input kills either is in its entry or was killed earlier in its own campaign's order (which the merged
        order keeps), so the kills are those of every campaign together.  The inputs its campaign left unjudged
        are then judged until `deadline` (less the final checkpoint); past `deadline` the inputs not yet replayed
        are kept as they are, unreplayed, so that nothing a campaign found is lost.
        """
        analysis = self.analysis
        index = analysis.program.index if analysis is not None else {}
        try:
            for entry in entries:
                decoded = self._unless_tried(self.source.decode(entry.choices, self.rng))
                if decoded is None or decoded is _TRIED:
                    continue
                self.stats.trials += 1
                self.stats.valid += 1
                infected: set[int] | None = None
                if not deadline.expired():
                    self._run_original(decoded.value)
                    new_cov = self.coverage.collect()
                    if analysis is not None:
                        infected = analysis.run_original(decoded.value)[2]
                        self.mutant_runs.corpus_infected |= infected
                else:
                    new_cov = entry.new_coverage or 1  # not replayed: kept, as its campaign kept it
                # the kills it brings that no input kept before it brought
                kills = {} if analysis is None else {
                    mutant_id: reason for mutant_id, reason in entry.kills.items()
                    if mutant_id in index and index[mutant_id] not in analysis.kills}
                if not new_cov and not kills:
                    continue
                name = self.corpus.next_name()
                for mutant_id, reason in kills.items():
                    assert analysis is not None  # kills come from an analysis
                    analysis.add_kill(index[mutant_id], Kill(name, KillReason(reason)))
                if infected is not None and not entry.judged:  # what judging it below costs (judging_cost)
                    self.mutant_runs.infected_of[name] = infected
                kept = Entry(name=name, choices=decoded.choices, kinds=decoded.kinds, size=0, favored=bool(kills),
                             new_coverage=new_cov, kills=kills, trial=self.stats.trials, value=decoded.value,
                             judged=entry.judged)
                text = self.source.render(decoded.value)
                kept.size = len(text)
                self.corpus.add(kept, text)
                if kept.favored:
                    self._favored.append(kept)
            if self.config.judge:
                self.finish_judging(deadline.sooner_by(self._checkpoint_cost + FINAL_MARGIN))
        finally:
            self._close()
        return self._result()

    def _close(self) -> None:
        """The end of a campaign, however it ends: the last checkpoint, the mutant host closed, `out` unlocked."""
        self.checkpoint(final=True)
        if self.analysis is not None and self.close_analysis:
            self.analysis.close()
        if self._lock is not None:
            self._lock.release()

    def _result(self) -> FuzzResult:
        return FuzzResult(
            corpus=list(self.corpus.entries), coverage=len(self.coverage), stats=self.stats,
            # the final checkpoint built it already when there is an output directory
            report=(self.folder.report or self.analysis.report()) if self.analysis else None,
        )
