"""No annotations: pep561_pkg-stubs/units.pyi has them."""


def clamp(value, low, high=None):
    if value < low:
        return low
    if high is not None and value > high:
        return high
    return value


def to_cents(amount):
    return round(amount * 100)


percent = lambda part, whole: 100 * part // whole  # noqa: E731
