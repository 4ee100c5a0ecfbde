"""State outside the target's copies: what a run changed in shared modules, the environment, sys.path and the
decimal context is put back, and nothing else is touched."""

import decimal
import json
import os
import sys
import types

from mu2py.processes.outside import OutsideState


def _copy_importing(*modules):
    """A stand-in for a target copy that imported `modules`."""
    copy = types.ModuleType("stand_in_copy")
    for module in modules:
        setattr(copy, module.__name__.replace(".", "_"), module)
    return copy


def test_a_rebound_attribute_of_a_shared_module_is_put_back():
    state = OutsideState([_copy_importing(json)])
    dumps = json.dumps
    json.dumps = repr
    json.extra = "added"
    try:
        assert state.restore() >= 1
        assert json.dumps is dumps and not hasattr(json, "extra")
        assert state.restore() == 0  # nothing changed since
    finally:
        json.dumps = dumps


def test_environment_path_and_builtins_are_put_back():
    state = OutsideState([_copy_importing(json)])
    path = list(sys.path)
    os.environ["MU2PY_OUTSIDE_TEST"] = "set by a run"
    sys.path.append("/nowhere")
    import builtins

    real_len = builtins.len
    builtins.len = lambda x: 0
    try:
        assert state.restore() == 3
        assert "MU2PY_OUTSIDE_TEST" not in os.environ and os.getenv("MU2PY_OUTSIDE_TEST") is None
        assert sys.path == path and builtins.len is real_len
    finally:
        builtins.len = real_len
        os.environ.pop("MU2PY_OUTSIDE_TEST", None)


def test_the_decimal_context_is_put_back_in_place_when_the_target_imports_decimal():
    context = decimal.getcontext()
    state = OutsideState([_copy_importing(decimal)])
    held = decimal.getcontext()  # a program may keep the context object itself
    prec = context.prec
    held.prec = 3
    decimal.setcontext(decimal.Context(prec=5))
    assert state.restore() == 1
    assert decimal.getcontext() is held and held.prec == prec


def test_a_submodule_imported_meanwhile_stays_bound_to_its_package():
    state = OutsideState([_copy_importing(json)])
    stand_in = types.ModuleType("json.stand_in")
    json.stand_in = stand_in  # as importing a submodule binds it
    try:
        state.restore()
        assert json.stand_in is stand_in
    finally:
        del json.stand_in
