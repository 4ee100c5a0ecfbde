"""Joining words: an `Iterable[str]` parameter (from_type draws dict views and generators for it)."""

from collections.abc import Iterable


def words(items: Iterable[str], sep: str = " ") -> str:
    """The non-empty items joined by `sep`."""
    return sep.join(item for item in items if item)
