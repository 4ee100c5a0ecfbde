"""Insertion sort exactly as in the Mu2 paper's running example."""


def insertion_sort(arr: list[int]) -> list[int]:
    """Sort `arr` in place in ascending order and return it."""
    for j in range(1, len(arr)):
        key = arr[j]
        i = j - 1
        while i >= 0 and key < arr[i]:
            arr[i + 1] = arr[i]
            i -= 1
        arr[i + 1] = key
    return arr
