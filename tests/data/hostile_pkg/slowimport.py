"""A module whose body loops forever in some mutants."""

_count = 0  # pragma: no mutate
while _count < 3:  # pragma: no mutate
    _count = _count + 1


def first(n):
    return _count + n  # pragma: no mutate
