"""Type-hinted string and number helpers, for `mu2py corpus` tests (inference, pickles, exclusions)."""

import random
from dataclasses import dataclass


@dataclass
class Box:
    width: int
    height: int


def initials(name: str, sep: str = ".") -> str:
    parts = [p for p in name.split() if p]
    return sep.join(p[0].upper() for p in parts) + (sep if parts else "")


def clip(value: int, low: int = 0, high: int = 10) -> int:
    if low > high:
        raise ValueError("low must not exceed high")
    if value < low:
        return low
    if value > high:
        return high
    return value


def letters(text: str) -> set[str]:
    return {c.lower() for c in text if c.isalpha()}


def ratio(a: int, b: int) -> float:
    return a / b


def area(box: Box) -> int:
    if box.width < 0 or box.height < 0:
        raise ValueError("negative side")
    return box.width * box.height


def grow(box: Box, by: int = 1) -> Box:
    return Box(box.width + by, box.height + by)


def jitter(x: int) -> int:
    return x + random.randint(1, 1000)


def shout(message) -> str:
    return message.upper() + "!"


def _private(x: int) -> int:
    return x
