"""`callers.public_callers`: the public functions and methods that reach a private one by name."""

import ast

from mu2py.survivors.callers import is_public, public_callers

SOURCE = '''
def _pad(text):
    return text.ljust(8)


def _encode(n):
    return _pad(str(n))


def encode(n):
    return _encode(n)


def _unused():
    return 1


class Codec:
    def __init__(self, salt):
        self.salt = _pad(salt)

    def decode(self, text):
        return self._split(text)

    def _split(self, text):
        return text.split(self.salt)


class _Hidden:
    def run(self):
        return _pad("x")
'''


def test_callers_nearest_first_through_private_ones_and_by_attribute() -> None:
    tree = ast.parse(SOURCE)
    # `_pad` is called by Codec.__init__ directly, and by `encode` through `_encode`
    assert public_callers(tree, "_pad") == ["Codec.__init__", "encode"]
    assert public_callers(tree, "_encode") == ["encode"]
    assert public_callers(tree, "Codec._split") == ["Codec.decode"]  # `self._split(...)` names it
    assert public_callers(tree, "_unused") == []
    assert public_callers(tree, "encode") == []  # public already: tested itself


def test_public_names() -> None:
    assert is_public("encode") and is_public("Codec.decode") and is_public("Codec.__init__")
    assert not is_public("_pad") and not is_public("Codec._split") and not is_public("_Hidden.run")
    assert not is_public("_Hidden.__init__")
