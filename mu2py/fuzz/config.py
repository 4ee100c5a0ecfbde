"""What a campaign is given (`FuzzConfig`), the counters it keeps (`Stats`), and what it leaves (`FuzzResult`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.store.corpus import Entry

GUIDANCE = ("mutation", "coverage")
# a campaign whose first SANITY_TRIALS trials draw no input, or whose every valid input fails the
# same way in the driver's own code, has a broken driver: stop early with a clear error instead of
# burning the budget (failing the same way inside the target is a warning: a strict parser rejects
# most random text at one place, and the inputs it accepts are what fuzzing finds)
SANITY_TRIALS = 100
# the original's budget per input when --timeout is not given: an input it cannot finish in this time is a
# failure found (a hang), never a stalled campaign
ORIGINAL_TIMEOUT = 10.0
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
    # under --time only (see MutantRuns.run): None adapts it to measured yields
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
    probe_builds: int = 0  # copies of the focused probe built (see mu2py.feedback.focus)
    share: float = 0.0  # the share of time mutation analysis may take, as last measured (0: coverage guidance)
    failures: int = 0
    mutant_runs: int = 0
    cut_runs: int = 0  # mutant runs stopped by their batch's end without a verdict (slow inputs; see engine.Verdict)
    run_this_input: int = 0
    pruned_execution: int = 0
    pruned_infection: int = 0
    filtered: int = 0
    backed_off: int = 0  # mutant runs left out for mutants run many times without a kill (see feedback.backoff)
    likely_equivalent: int = 0  # mutants run at least backoff.FREE times and never killed
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
