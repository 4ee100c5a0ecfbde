"""Survivors of each kind the likely-equivalent list tells apart: masked, rarely killed, never infected, unreached."""


def square(x: int) -> int:
    y = -x if x < 0 else x  # `-x` -> `x` is infected on every negative x and masked by `y * y`: equivalent
    return y * y + 0  # `+ 0` -> `- 0` is reached and never infected


def twenties(n: int) -> bool:
    if isinstance(n, bool):  # never true for the ints drawn: the mutants of its body are never reached
        return False
    # `20` -> `21` is infected on every input and killed only where one of 20 and 21 divides n and the other not
    return n % 20 == 0
