"""The likely-equivalent list: survivors that several inputs infected, that ran on them and never died, even when
a search was aimed at each alone.

A mutant whose mutated expression computed another value (infected it) on several distinct inputs, and yet ran
on each of them with the function's return value, exception and warnings equal to the original's, had its
change masked every time: it is probably equivalent, and no test can kill it.  The list holds only survivors of
the re-score that

- were infected by at least MIN_INFECTING distinct inputs that they then ran on to a verdict and survived (a
  mutant that never ran, or ran on one input only, is not evidence of anything), and
- survived a short search aimed at them alone (`aimed_budget`): a mutation-guided campaign over the function
  whose campaign infected them most, its mutant runs limited to that one mutant, with a seed of its own
  (`aimed_seed`).  A mutant that search kills is no longer a candidate: it is a kill like the others, and gets a
  test when the kill is assertable.

Every other survivor is counted, not listed (`Unlisted`): unreached, reached but never infected, infected by too
few inputs it ran on, or killed by fuzzing without a test kept (a hang, a crash, or a test that failed
verification).  The list is ranked most evidence first: distinct inputs it survived, then runs, then id.  Under a
trial budget it is a function of the seed: the same seed and trials give the same list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mu2py.survivors.aim import Campaign

# distinct infecting inputs a survivor must have run on and survived to be listed
MIN_INFECTING = 2
# each candidate's own search: this many trials under --trials (also the cap under --time) ...
AIMED_TRIALS = 200
# ... and under --time, this share of the fuzzing budget, split evenly between the candidates, on top of it
AIMED_SHARE = 0.1
# example inputs shown per listed survivor
SHOWN = 3


@dataclass
class Evidence:
    """What the aimed campaigns saw of one mutant.

    Invariants: `survived` is a subset of `infecting`, both of (function, input key) pairs (`aim.input_key`);
    `examples` holds at most SHOWN calls (`write.shown_call`) on inputs of `survived`, in the order they ran;
    `killed` is the reason of a kill by some campaign (a `KillReason` value), None while none killed it.
    """

    reached: int = 0
    infecting: set[tuple[str, bytes]] = field(default_factory=set)
    survived: set[tuple[str, bytes]] = field(default_factory=set)
    runs: int = 0
    examples: list[str] = field(default_factory=list)
    killed: str | None = None

    def add(self, campaign: Campaign, mutant_id: str) -> None:
        """Add what `campaign` saw of `mutant_id`."""
        from mu2py.survivors.write import shown_call

        name = campaign.qualname
        self.reached += campaign.reached[mutant_id]
        self.runs += campaign.runs[mutant_id]
        self.infecting |= {(name, k) for k in campaign.infecting.get(mutant_id, ())}
        self.survived |= {(name, k) for k in campaign.survived.get(mutant_id, ())}
        if campaign.spec is not None:
            for value in campaign.examples.get(mutant_id, ())[: SHOWN - len(self.examples)]:
                self.examples.append(shown_call(campaign.spec, value))
        if self.killed is None and mutant_id in campaign.kills:
            self.killed = campaign.kills[mutant_id][1]

    @property
    def candidate(self) -> bool:
        """Whether it may be listed, once a search aimed at it fails to kill it (see the module docstring)."""
        return self.killed is None and len(self.survived) >= MIN_INFECTING


def gather(campaigns: Iterable[Campaign]) -> dict[str, Evidence]:
    """The evidence of every mutant some campaign aimed at, summed over `campaigns` (in their order: the examples
    are the first ones seen)."""
    evidence: dict[str, Evidence] = {}
    for campaign in campaigns:
        for mutant_id in {*campaign.reached, *campaign.runs, *campaign.kills}:
            evidence.setdefault(mutant_id, Evidence()).add(campaign, mutant_id)
    return evidence


def aimed_budget(trials: int | None, seconds: float | None, candidates: int) -> tuple[int, float | None]:
    """Each candidate's search budget: AIMED_TRIALS trials, and under a time budget (`seconds`) also at most its even
    share of AIMED_SHARE of it."""
    return AIMED_TRIALS, (None if trials is not None or seconds is None
                          else AIMED_SHARE * seconds / max(candidates, 1))


def aimed_seed(seed: int, mutant_id: str) -> int:
    """The seed of the search aimed at `mutant_id`: another for each mutant (not the campaign's, whose first draws it
    would replay), the same for the same `seed` on every run and platform."""
    digest = hashlib.sha256(f"{seed}:{mutant_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big")


@dataclass
class Unlisted:
    """The survivors counted, not listed, by why (see the module docstring); `unsearched`: a candidate whose aimed
    search could not run (its function failed to load)."""

    unreached: int = 0
    uninfected: int = 0
    few_inputs: int = 0
    killed: int = 0
    unsearched: int = 0

    def to_json(self) -> dict[str, int]:
        """The JSON shape of `equivalents.json`'s `unlisted`."""
        return asdict(self)


@dataclass(frozen=True)
class Likely:
    """One likely-equivalent survivor: the mutant and its evidence (distinct inputs infecting it, those it ran on
    and survived, its runs, example calls) and why no output differed (`masked`)."""

    id: str
    file: str
    line: int
    original: str
    mutated: str
    reached: int  # probed runs of the original that reached its site
    infected: int  # distinct inputs that infected it
    survived: int  # of those, the inputs it ran on to a verdict and survived
    runs: int  # its runs, all survived
    examples: tuple[str, ...]
    masked: str

    def to_json(self) -> dict[str, Any]:
        """The JSON shape of one entry of `equivalents.json`'s `likely`."""
        entry = asdict(self)
        entry["examples"] = list(self.examples)
        return entry


def masked(evidence: Evidence) -> str:
    """Why no output differed, from `evidence`: the infection was masked on every input the mutant ran on."""
    infected, survived = len(evidence.infecting), len(evidence.survived)
    on = "all of them" if survived == infected else f"the {survived} it ran on"
    return (f"infected on {infected} distinct inputs; the function's return value, exception and warnings equal the "
            f"original's on {on} ({evidence.runs} runs)")


def rank(alive: Iterable[dict[str, Any]], evidence: dict[str, Evidence],
         searched: set[str]) -> tuple[list[Likely], Unlisted]:
    """The listed survivors among `alive` (score report entries), ranked, and the others counted (see the module
    docstring); `searched`: the candidates whose aimed search ran."""
    found: list[Likely] = []
    unlisted = Unlisted()
    for m in alive:
        e = evidence.get(m["id"], Evidence())
        if e.killed is not None:
            unlisted.killed += 1
        elif not e.reached:
            unlisted.unreached += 1
        elif not e.infecting:
            unlisted.uninfected += 1
        elif not e.candidate:
            unlisted.few_inputs += 1
        elif m["id"] not in searched:
            unlisted.unsearched += 1
        else:
            found.append(Likely(m["id"], m["file"], m["line"], m["original"], m["mutated"], e.reached,
                                len(e.infecting), len(e.survived), e.runs, tuple(e.examples), masked(e)))
    found.sort(key=lambda x: (-x.survived, -x.runs, x.id))
    return found, unlisted
