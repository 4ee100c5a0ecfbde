"""The focused probe: a probed original watching only the sites where some mutant is still open.

A timed campaign asks the probed original two things of an input: which mutants it infects
that no saved input infects (a coverage-adding input's are the corpus's to kill from then on),
and which such mutants a coverage-neutral input could kill.  A mutant killed, or infected by a
saved input, is *closed*: it is never selected again (see `MutantRuns.run`), so a probe at a
site all of whose mutants are closed records what nobody reads, at the price of a call on
every evaluation of that site.  Once most reached mutants are closed, a copy probed only at
the open sites runs several times faster (at the end of 60 s campaigns, 5-8x on jmespath,
the json decoder and tinycss2: `benchmarks/focused_probe.py`).

Invariants: the copy in use probes every site with an open mutant (a mutant only closes, so a
copy built for an earlier, larger set of open mutants still does); for an open mutant its
records are those of the full probe.  Static (import-time) mutants have no site and are not
concerned.  A rebuild costs about what building the full probe did (instrumenting and loading
the modules: tens of milliseconds for the json decoder, seconds for a module of thousands of
lines such as `ipaddress`), so it happens only once enough sites closed, and at most once per
`SPACING` times the last build's duration; before the first, the full probe's build stands for
that duration.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection
from typing import Any

from mu2py.mutants.catalog import Program
from mu2py.mutants.probes import ProbeRecorder

SPACING = 20.0  # rebuilds take at most 1/SPACING of the campaign's time
MIN_CLOSED = 0.1  # rebuild once this fraction of the probed sites has closed since the last build


class FocusedProbe:
    """The probed original of a `Program`, rebuilt to probe only its open sites (see the module docstring)."""

    def __init__(self, program: Program, started: float | None = None) -> None:
        """`started`: the `time.perf_counter()` the campaign's time counts from (default: now)."""
        self.program = program
        self.sites_of = program.by_site  # site -> its (non-static) mutants
        self.probed: frozenset[int] = frozenset(self.sites_of)  # the sites the copy in use probes
        self.probe: tuple[Callable[[Any], Any], ProbeRecorder] | None = None  # None: the program's full probe
        self.builds = 0
        self.seconds = 0.0  # spent building
        self._last_cost = 0.0
        self._next_at = 0.0  # perf_counter time before which no rebuild starts
        self._started = time.perf_counter() if started is None else started

    def open_sites(self, closed: Collection[int]) -> frozenset[int]:
        """The probed sites with a mutant not in `closed` (kills and the saved inputs' infections)."""
        return frozenset(site for site in self.probed if any(i not in closed for i in self.sites_of[site]))

    def refocus(self, closed: Collection[int]) -> bool:
        """Rebuild the copy on the open sites when enough closed and the last build's cost allows; True if rebuilt."""
        now = time.perf_counter()
        if self.builds == 0:
            # a rebuild costs what the full probe's build did (the program times it): a campaign far shorter than
            # SPACING times that would spend more time building than the focused probe saves
            self._next_at = self._started + SPACING * self.program.probe_seconds
        if now < self._next_at:
            return False
        sites = self.open_sites(closed)
        if len(self.probed) - len(sites) < max(1, MIN_CLOSED * len(self.probed)):
            return False
        self.probe = self.program.probed_at(sites)
        self.probed = sites
        done = time.perf_counter()
        self._last_cost = done - now
        self.seconds += self._last_cost
        self.builds += 1
        self._next_at = done + SPACING * self._last_cost
        return True
