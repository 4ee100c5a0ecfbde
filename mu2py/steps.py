"""`Step`: a progress line of the API's jobs (`kill`, `props`, `bonsai`'s lattice) that also says where the run is."""

from __future__ import annotations


class Step(str):
    """A progress line: a plain `str` (what the `progress` callbacks have always received, printed as is), that
    also carries the run's `phase` and, when the phase counts units, `done` of `total` `unit`s.

    A display draws a bar from these (`mu2py.cli.progress.Meter`); a caller that wants only lines ignores them.
    """

    phase: str
    done: int | None
    total: int | None
    unit: str

    def __new__(cls, text: str, phase: str = "", done: int | None = None, total: int | None = None,
                unit: str = "") -> Step:
        """The line `text`, with where the run is."""
        step = super().__new__(cls, text)
        step.phase, step.done, step.total, step.unit = phase, done, total, unit
        return step

    @property
    def counts(self) -> bool:
        """Whether the step counts units (`done` of `total`)."""
        return self.done is not None
