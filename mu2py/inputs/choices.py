"""Single choices as Hypothesis draws them: their buffer size, whether a draw permits them, typed changes.

One of the three modules (with `lean` and `generators`) that touch Hypothesis internals:
`permitted` answers as `choice_permitted`, with its commonest cases inline.
"""

from __future__ import annotations

import math
import random
from typing import Any

from hypothesis.internal.conjecture.choice import choice_permitted

from mu2py.inputs.source import Choice

_INTERESTING_INTS = (0, 1, -1, 2, 7, 8, 16, 31, 32, 64, 127, 128, 255, 256, 1024, 65535, 2**31 - 1, -(2**31))


def choice_size(value: Choice) -> int:
    """`len(choices_to_bytes([value]))` without building the bytes: what a choice adds to Hypothesis' buffer."""
    kind = type(value)
    if kind is bool:
        return 1
    if kind is float:
        return 9
    if kind is int:
        size = 1 + value.bit_length() // 8
    elif kind is str:
        size = len(value) if value.isascii() else len(value.encode(errors="surrogatepass"))
    else:
        size = len(value)
    if size < 0b11111:
        return 1 + size
    # a uleb128 length follows the tag byte
    return 2 + size + (size.bit_length() - 1) // 7


# per alphabet (an IntervalSet, kept alive by its entry so that its id is not reused): the characters found in it
_ALPHABETS: dict[int, tuple[Any, set[str]]] = {}
_ALPHABETS_KEPT = 256
_KNOWN_CHARACTERS = 1 << 16  # characters remembered per alphabet; past this, new ones are looked up each time


def permitted(value: Choice, choice_type: str, constraints: Any) -> bool:
    """Whether a draw of `choice_type` under `constraints` permits `value`: choice_permitted, commonest cases inline.

    The value's type is already checked.  A string's characters are checked against the alphabet's
    characters seen before (one C-level set test for the whole string); Hypothesis looks up every
    character in its interval set.
    """
    if choice_type == "integer":
        low, high = constraints["min_value"], constraints["max_value"]
        return (low is None or value >= low) and (high is None or value <= high)
    if choice_type == "boolean":
        p = constraints["p"]
        return value is False if p <= 0 else (value is True if p >= 1 else True)
    if choice_type == "string":
        if not constraints["min_size"] <= len(value) <= constraints["max_size"]:
            return False
        intervals = constraints["intervals"]
        entry = _ALPHABETS.get(id(intervals))
        if entry is None or entry[0] is not intervals:
            if len(_ALPHABETS) >= _ALPHABETS_KEPT:  # alphabets built per draw (in a composite) must not pile up
                _ALPHABETS.clear()
            entry = _ALPHABETS[id(intervals)] = (intervals, set())
        known = entry[1]
        if known.issuperset(value):
            return True
        for char in set(value).difference(known):
            if ord(char) not in intervals:
                return False
            if len(known) < _KNOWN_CHARACTERS:
                known.add(char)
        return True
    return choice_permitted(value, constraints)


def mutate_choice(choice: Choice, rng: random.Random) -> Choice:
    """A typed change: nudge or replace ints and floats, flip bools, edit strings and bytes."""
    if isinstance(choice, bool):
        return not choice
    if isinstance(choice, int):
        r = rng.random()
        if r < 0.5:
            return choice + rng.choice((-1, 1)) * rng.randint(1, 8)
        if r < 0.8:
            return rng.choice(_INTERESTING_INTS)
        return rng.randint(-(2**16), 2**16)
    if isinstance(choice, float):
        r = rng.random()
        if r < 0.4 and math.isfinite(choice):
            return choice + rng.uniform(-10, 10)
        return rng.choice((0.0, -0.0, 1.0, -1.0, 0.5, 1e9, -1e-9, math.inf, -math.inf, rng.uniform(-1e6, 1e6)))
    if isinstance(choice, str):
        return _edit(choice, rng, lambda: chr(rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FF)))), "")
    if isinstance(choice, bytes):
        edited = _edit(list(choice), rng, lambda: rng.randint(0, 255), None)
        return bytes(edited)
    return choice


_SMALL_RANGE = 32  # an integer drawn from at most this many values changes to another of them, uniformly


def mutate_within(choice: Choice, kind: tuple[str, Any], rng: random.Random) -> Choice:
    """A change of `choice` into another value its draw permits (`kind`: the choice type and constraints).

    An integer of a small range (a one_of branch, a sampled_from index, a list's "more?") becomes
    another value of the range; a larger one is nudged and kept in range; a string is edited
    with characters of its alphabet within its size bounds.  The decoder thus reads the edit as
    made: an unpermitted value would be repaired to the simplest one, often giving an input
    tried before.  When no permitted change is found, the untyped `mutate_choice`.
    """
    choice_type, constraints = kind
    value: Choice
    if choice_type == "integer":
        low, high = constraints["min_value"], constraints["max_value"]
        if low is not None and high is not None and high - low <= _SMALL_RANGE:
            if high == low:
                return choice
            other = rng.randint(low, high - 1)
            return other + (other >= choice)  # uniform over the range without `choice`
        value = mutate_choice(choice, rng)
        if low is not None and value < low:
            value = low
        elif high is not None and value > high:
            value = high
    elif choice_type == "string":
        intervals = constraints["intervals"]
        if not len(intervals):
            return choice

        def character() -> str:
            code = rng.choice((rng.randint(32, 126), rng.randint(0, 0x2FF)))
            return chr(code if code in intervals else intervals[rng.randrange(len(intervals))])

        value = _edit(choice, rng, character, "", constraints["min_size"], constraints["max_size"])
    elif choice_type == "bytes":
        value = bytes(_edit(list(choice), rng, lambda: rng.randint(0, 255), None, constraints["min_size"],
                            constraints["max_size"]))
    else:
        value = mutate_choice(choice, rng)
    return value if permitted(value, choice_type, constraints) else mutate_choice(choice, rng)


def _edit(seq: Any, rng: random.Random, new: Any, empty: Any, min_size: int = 0, max_size: float = math.inf) -> Any:
    """Delete, insert or replace one item; sizes outside [min_size, max_size] are not made where avoidable."""
    items = list(seq)
    ops = [op for op, ok in ((0, len(items) > min_size), (1, len(items) < max_size), (2, bool(items))) if ok]
    if not items:
        op = 1
    elif len(ops) == 3 and min_size == 0 and max_size == math.inf:
        op = rng.randrange(3)  # the unconstrained case draws as it always did
    else:
        op = rng.choice(ops) if ops else 2
    if op == 0:
        del items[rng.randrange(len(items))]
    elif op == 1:
        items.insert(rng.randint(0, len(items)), new())
    else:
        items[rng.randrange(len(items))] = new()
    return "".join(items) if empty == "" else items
