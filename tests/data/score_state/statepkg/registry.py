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
