"""A registry the tests fill: `test_handle` needs what `test_register` put there (an order-dependent pair)."""

_HANDLERS = {}  # pragma: no mutate


def register(name, fn):
    _HANDLERS[name] = fn  # pragma: no mutate


def handle(name, value):
    return _HANDLERS[name](value) + 0


_SETTINGS = {}  # pragma: no mutate


def configure(settings):
    settings["greeting"] = "hello"


configure(_SETTINGS)  # pragma: no mutate: called while the module is imported, never again


def greet(name):
    return _SETTINGS["greeting"] + ", " + name  # pragma: no mutate


_MODE = "plain"  # pragma: no mutate


def set_mode(mode):
    global _MODE  # a test rebinds it and leaves it so: the tests after it in a unit must not see that
    _MODE = mode  # pragma: no mutate


def render(text):
    return text.upper() if _MODE == "loud" else text
