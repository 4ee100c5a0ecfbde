"""The mutant runs of a mutation-guided campaign (on which inputs, for how long), and judging inputs as `mutate` does.

Under a trial budget every input runs every mutant Algorithm 4 selects, so the same seed and
trials give the same corpus.  Under a time budget an adaptive (or fixed) share of the time bounds
them (`mu2py.feedback.share` measures the yields that set it).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from mu2py.budget import Deadline
from mu2py.engine.runs import RunResult, Status
from mu2py.feedback.analysis import Analysis
from mu2py.feedback.backoff import Backoff
from mu2py.feedback.focus import FocusedProbe
from mu2py.feedback.schedule import least_executed_first
from mu2py.feedback.share import MutantShare
from mu2py.fuzz.config import ORIGINAL_TIMEOUT, FuzzConfig, Stats
from mu2py.mutants.catalog import Program
from mu2py.target.modules import Target

# the mean time of a mutant run is taken as measured once this many ran (before: UNMEASURED_MUTANT_SECONDS)
MEASURED_RUNS = 20
UNMEASURED_MUTANT_SECONDS = 0.01
# what judging one input at the end costs besides its runs (a batch sent to the host and its verdicts back), and
# judging at all (the mutant host started, when no mutant ran yet: a tenth of a second forked)
JUDGE_INPUT_SECONDS = 0.005
JUDGING_START = 0.25


class MutantRuns:
    """Runs the mutants of a campaign's inputs and keeps the yields that share its time (see the module docstring).

    `corpus_infected` only grows: the mutants some saved input infects.
    """

    def __init__(self, analysis: Analysis | None, config: FuzzConfig, stats: Stats) -> None:
        self.analysis, self.config, self.stats = analysis, config, stats
        self.share = MutantShare.fresh()
        self.corpus_infected: set[int] = set()
        self._share_elapsed = self._share_neutral = 0.0  # what the share's last update saw: elapsed, seconds_neutral
        # first runs of mutants (timed) and the kills among them: what a mutant newly infected by a saved input is
        # worth (its first run kills it far more often than any later one: see feedback.backoff)
        self._first_kills = self._first_runs = 0
        self.backoff = Backoff(config.seed)
        # timed, the probed original watches only the sites of mutants neither killed nor infected by a saved
        # input: no other is ever selected (see `run`), and a probe where none is open only slows every run
        self.focus = FocusedProbe(analysis.program) if analysis is not None and self.timed() else None
        # timed: the mutants each saved input infected when it was saved, by name (what judging it at the end
        # will run, but for those killed since: see `judging_cost`)
        self.infected_of: dict[str, set[int]] = {}
        if analysis is not None:
            stats.share = round(self.current_share(), 3)

    def restart(self) -> None:
        """Start measuring from the current counters (a run's start, or a resumed one's)."""
        self._share_elapsed, self._share_neutral = self.stats.elapsed, self.stats.seconds_neutral

    def timed(self) -> bool:
        """Whether a share of time bounds mutant runs: under a time budget only (a trial budget runs them all,
        so that the same seed and trials give the same corpus), and unless --mutant-share 1."""
        share = self.config.mutant_share
        return self.config.trials is None and (share is None or share < 1)

    def current_share(self) -> float:
        """The share of time mutant runs on coverage-neutral inputs may take: fixed, or measured (feedback.share)."""
        return self.share.share if self.config.mutant_share is None else self.config.mutant_share

    def run(self, value: Any, original: RunResult, name: str, new_cov: int, now: float, elapsed: float,
            deadline: Deadline) -> tuple[list[int], bool]:
        """Run `value`'s mutants (mutation guidance); (the mutants killed, whether every mutant selected for
        it ran: the final pass, `finish_judging`, runs the others).  `now` is the trial's `perf_counter()`
        reading (for the phase timings), `elapsed` the campaign's budget spent then, and no run outlasts `deadline`.

        Under a trial budget every input runs every mutant Algorithm 4 selects (reproducible).  Under a
        time budget the corpus is judged at the end, as coverage guidance's is, and the campaign spends
        its mutant runs where they add to that judgement: an input that adds coverage gets its probed run
        only (the mutants it infects join `corpus_infected`); a coverage-neutral input, while mutation
        analysis has taken at most its share of the time (`current_share`), runs the selected mutants no saved
        input infects.  Pruning is sound, so the corpus cannot kill those: each kill is one coverage
        guidance's corpus would not have, which is what Mu2's feedback adds.  An input whose probe finds
        no such mutant costs one probed run.
        """
        analysis, stats = self.analysis, self.stats
        assert analysis is not None
        timed = self.timed()
        if original.status is Status.TIMEOUT:
            return [], False  # it kills no mutant (see Analysis.run_selected); the final judging probes it once
        if timed and not new_cov and stats.seconds_analysis > self.current_share() * elapsed:
            return [], False
        stats.analysed += 1
        _, reached, infected = analysis.run_original(value, self.focus)
        tp = time.perf_counter()
        stats.seconds_probed += tp - now
        killed: list[int] = []
        complete = False
        if not (timed and new_cov):
            executions = analysis.executions
            sel = analysis.select(reached, infected)
            stats.pruned_execution += sel.pruned_execution
            stats.pruned_infection += sel.pruned_infection
            stats.filtered += sel.filtered
            if timed:
                covered = self.corpus_infected
                fresh = [i for i in sel.run if i not in covered]
                sel.run = self.backoff.thin(fresh, executions)
                stats.backed_off += len(fresh) - len(sel.run)  # a counter like the others: it carries on past a resume
                # a batch may not take exploration's time either (thousands of mutants reached at once): it
                # stops at its share of the time, at least a second; the least executed go first
                allowed = self.current_share() * (elapsed + tp - now) - stats.seconds_analysis
                deadline = deadline.earlier(Deadline.after(max(1.0, allowed)))
                sel.run = least_executed_first(sel.run, executions)
            stats.run_this_input = len(sel.run)
            t3 = time.perf_counter()
            stats.seconds_selection += t3 - tp
            runs_before, cuts_before = analysis.mutant_runs, analysis.cut_runs
            firsts = [i for i in sel.run if executions[i] == 0] if timed else []
            # timed, a batch is a mutant or two: the host judges them against the plain original (run from the
            # post-import state, containers reset, as a host's would) instead of running it again.  Not when it
            # raised or hung (a host's run nearer the stack's base, under a memory limit, might not fail the same
            # way), nor under a trial budget, whose verdicts stay those of the host's own original run
            killed = analysis.run_selected(sel, value, original, name, deadline=deadline,
                                           share_original=timed and original.status is Status.OK)
            if firsts:
                self._first_runs += sum(1 for i in firsts if executions[i])
                self._first_kills += len(set(firsts).intersection(killed))
            stats.seconds_mutants += time.perf_counter() - t3
            stats.mutant_runs = analysis.mutant_runs
            stats.cut_runs += analysis.cut_runs - cuts_before  # a counter: it carries on past a resume
            # complete only when nothing was left out: not under a time budget, where mutants are chosen
            complete = (not timed and analysis.mutant_runs - runs_before == len(sel.run) and not sel.filtered
                        and not sel.deferred_static)
        if new_cov or killed:
            # the input is saved: the mutants it infects are the corpus's to kill from now on
            novel = len(infected - self.corpus_infected)
            self.corpus_infected |= infected
            if timed:
                self.infected_of[name] = infected
        spent = time.perf_counter() - now
        stats.seconds_analysis += spent
        if new_cov:
            # exploration's yield (see mu2py.feedback.share): a saved input's kills are known once it is judged, at the
            # end; meanwhile they are estimated as the mutants it is the first to infect, times the rate at
            # which a mutant's first run killed it (on neutral inputs; one in two before any ran)
            self.share.explore.kills += novel * (self._first_kills + 1) / (self._first_runs + 2)
        else:
            stats.seconds_neutral += spent
            self.share.mutants.kills += len(killed)
        return killed, complete

    def judging_cost(self, pending: Sequence[str]) -> float:
        """Seconds that judging the saved inputs named `pending` at the end (`Fuzzer.finish_judging`) is expected to
        take, from this campaign's own measured times: per input, a probed and a plain run of the original; per
        mutant it infected when saved and nobody has killed since, and per import-time mutant alive, one mutant run;
        and JUDGING_START once.

        An input saved before its mutants could run (no probe yet) counts as the mean of the others."""
        analysis, stats = self.analysis, self.stats
        if analysis is None or not pending:
            return 0.0
        runs = stats.mutant_runs + stats.cut_runs
        per_mutant = stats.seconds_mutants / runs if runs >= MEASURED_RUNS else UNMEASURED_MUTANT_SECONDS
        per_input = (JUDGE_INPUT_SECONDS + stats.seconds_probed / max(stats.analysed, 1)
                     + stats.seconds_original / max(stats.valid, 1))
        kills = analysis.kills
        static = sum(1 for i in analysis.program.static if i not in kills)
        counts = [sum(1 for i in infected if i not in kills)
                  for infected in (self.infected_of.get(name) for name in pending) if infected is not None]
        known: float = sum(counts)
        unknown = len(pending) - len(counts)
        if unknown:
            known += unknown * (known / len(counts) if counts else len(analysis.program.mutants) - len(kills))
        return JUDGING_START + len(pending) * (per_input + static * per_mutant) + known * per_mutant

    def update_share(self, elapsed: float) -> None:
        """Charge the seconds since the last call to exploration or to mutation analysis of coverage-neutral
        inputs, then age both yields."""
        spent = elapsed - self._share_elapsed
        neutral = self.stats.seconds_neutral - self._share_neutral
        self.share.explore.seconds += max(0.0, spent - neutral)
        self.share.mutants.seconds += neutral
        self._share_elapsed, self._share_neutral = elapsed, self.stats.seconds_neutral
        self.share.decay()
        if self.analysis is not None:  # coverage guidance gives mutation analysis no time: its share stays 0
            self.stats.share = round(self.current_share(), 3)
        if self.focus is not None and self.analysis is not None:
            spent_before = self.focus.seconds
            if self.focus.refocus(self.corpus_infected.union(self.analysis.kills)):
                built = self.focus.seconds - spent_before
                self.stats.probe_builds += 1  # a counter like the others: it carries on past a resume
                self.stats.seconds_probed += built
                self.stats.seconds_analysis += built


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
