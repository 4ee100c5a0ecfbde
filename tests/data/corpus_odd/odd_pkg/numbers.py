"""Hints naming an alias defined only for type checkers (as humanize does), huge and non-finite outputs."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    Number: TypeAlias = float | str


def widen(value: Number, times: int) -> str:
    """The number's text repeated `times` times (up to 100,000): a big `times` gives a huge output."""
    return str(value) * min(times, 100_000)


def scale(value: Number, factor: float) -> float:
    """`value` times `factor`: infinite or nan for large or non-finite factors."""
    return float(value) * factor
