"""A deprecated function: its warning points at its caller (stacklevel=2), as a deprecation should."""

import warnings


def old_total(values: list[int]) -> int:
    """The sum of `values`; deprecated."""
    warnings.warn("old, use new", DeprecationWarning, stacklevel=2)
    total = 0
    for value in values:
        total += value
    return total
