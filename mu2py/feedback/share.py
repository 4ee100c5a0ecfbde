"""The adaptive mutant share: how much of a timed campaign runs mutants on inputs that add no coverage.

Time in a mutation-guided campaign earns kills two ways.  *Exploration* runs cheap trials
of the original; the inputs that add coverage are judged against their mutants, and the
kills they make are exploration's yield.  *Mutant runs* on inputs that add no coverage
(Mu2's own signal) earn the kills such an input makes, and cost the probed run, the
selection and the mutant runs.  Both yields are measured as kills per second, over a
recent window (an exponential decay, since both fall as a campaign saturates), and the
share of time given to the second is their proportion, within [`LOW`, `HIGH`].

Invariant: `share` stays within [LOW, HIGH]; before anything is measured it is min(0.5, HIGH) (the
two yields start from the same prior, one kill per second).
"""

from __future__ import annotations

from dataclasses import dataclass

LOW = 0.05  # mutant runs always keep some time: their yield can only be measured by spending it
# exploration always keeps most of the time: it is what finds new sites for mutants to reach, and a campaign
# keeps at least half of coverage guidance's trial rate (at 0.8, ChocoPy's 300 s campaigns ran 0.23x its trials
# and lost kills to the coverage they did not reach)
HIGH = 0.4
DECAY = 0.95  # per checkpoint (one second): a yield's half-life is about 14 s


@dataclass
class Yield:
    """Kills earned and seconds spent by one use of time (decayed, from a prior of one kill per second)."""

    kills: float = 1.0
    seconds: float = 1.0

    def rate(self) -> float:
        """Kills per second."""
        return self.kills / self.seconds


@dataclass
class MutantShare:
    """The measured yields of exploration and of mutant runs, and the share of time the latter gets."""

    explore: Yield
    mutants: Yield

    @classmethod
    def fresh(cls) -> MutantShare:
        """Both yields at their prior: an even split, within the bounds."""
        return cls(Yield(), Yield())

    def decay(self) -> None:
        """Age what was measured so far (called once per checkpoint)."""
        for y in (self.explore, self.mutants):
            y.kills *= DECAY
            y.seconds *= DECAY

    @property
    def share(self) -> float:
        """The fraction of a campaign's time mutant runs on coverage-neutral inputs may take."""
        explore, mutants = self.explore.rate(), self.mutants.rate()
        total = explore + mutants
        return min(HIGH, max(LOW, mutants / total if total > 0 else 0.5))
