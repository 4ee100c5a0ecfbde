"""Functions with boundaries and arithmetic a weak suite leaves unchecked."""


def clamp(x: int, low: int = 0, high: int = 10) -> int:
    if x < low:
        return low
    if x > high:
        return high
    return x


def grade(score: int) -> str:
    if score >= 90:
        return "A"
    if score >= 50:
        return "B"
    return "C"


def mean(values):
    if not values:
        raise ValueError("mean of nothing")
    return sum(values) / len(values)


def same(x: int) -> int:
    return x + 0
