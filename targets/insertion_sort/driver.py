"""Driver for the insertion sort: lists of small integers in, the sorted list out."""

from hypothesis import strategies as st

from mu2py import driver
from targets.insertion_sort.sort import insertion_sort


@driver(st.lists(st.integers(min_value=-50, max_value=50), max_size=12))
def sort(arr: list[int]) -> list[int]:
    """Sort a copy of the input list."""
    return insertion_sort(list(arr))
