"""Tests that leave interpreter-wide state behind, as suites in the wild do; plain pytest passes them all."""

import atexit
import gc
import os

import pytest

from statepkg import ops, registry


def test_careful():
    assert ops.careful(1000) == 2000


def test_depth():
    assert ops.depth(300) == 300


def test_keeps_everything():
    # turned on and never turned off: in a long-lived worker every later collection keeps all it finds
    gc.set_debug(gc.DEBUG_SAVEALL)
    assert ops.depth(3) == 3


def test_exit_handler():
    atexit.register(os.write, 1, b"a test's exit handler wrote this\n")
    assert ops.interrupted(5) == 6


def test_interrupted():
    assert ops.interrupted(1000) == 1001


def test_opened():
    assert ops.opened(1000) == 1000
    assert ops.opened(1) == 1


def test_register():
    registry.register("double", lambda v: 2 * v)
    assert registry.handle("double", 1) == 2


def test_handle():
    # needs what test_register registered (pytest runs it first)
    assert registry.handle("double", 21) == 42


def test_greet():
    # what `configure` did at import: a mutant of it shows only when the mutated module is imported afresh
    assert registry.greet("ann") == "hello, ann"


def test_render():
    assert registry.render("a") == "a"


def test_loud():
    registry.set_mode("loud")  # never set back
    assert registry.render("a") == "A"


def test_optional_part():
    import statepkg

    assert ops._BASE == 0
    assert statepkg.optional is None or statepkg.optional.WIDTH == 8


@pytest.fixture(scope="session")
def shared():
    return {}


def test_fill(shared):
    shared["greeting"] = registry.greet("bo")  # a session fixture the next test reads (as doctest_namespace)


def test_use(shared):
    assert shared == {"greeting": "hello, bo"}
