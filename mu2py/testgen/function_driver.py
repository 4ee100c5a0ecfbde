"""A fuzzing target for one plain function: a generated driver module that calls it on an argument dict.

The driver module of such a target has no file: its source (see `driver_source`) is
compiled like any module's, and `build_copies` executes it as part of every copy set.  Its
`importlib.import_module(MODULE)` runs while the copy finder is active, so each driver copy
is bound to the copy of the target module it was built with (the probed original, or one
mutant); `bind` looks the function up by name in that module at call time.  The target
module is mutated; the driver never is.
"""

from __future__ import annotations

import functools
import hashlib
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from mu2py.engine.copies import compile_module
from mu2py.engine.oracle import default_compare, identity_free_repr
from mu2py.engine.runs import RunResult, Status, run
from mu2py.errors import UserError
from mu2py.target.driver import Driver, import_module
from mu2py.target.modules import Target, TargetModule, read_module
from mu2py.testgen.signatures import CONSTRUCTOR, SELF, FunctionSpec

DRIVER_FUNCTION = "drive"
# seconds the original may take on one input while it is checked for determinism or recorded
ORIGINAL_TIMEOUT = 10.0


def resolve_key(path: str) -> Callable[[Any], Any]:
    """The output key function named `module:qualname`."""
    module, _, name = path.partition(":")
    fn = getattr(import_module(module), name, None)
    if not callable(fn):
        raise UserError(f"output key {path} is not a function")
    return fn


@dataclass(frozen=True)
class CallableAttribute:
    """An attribute holding a function, bound method or other callable, as the oracle compares it: its name, and
    what it closes over or is bound with (reprs without addresses).  A test cannot write or compare a callable, so
    written tests leave these out (`write.ATTRIBUTES`): a mutant seen only here is killed by fuzzing with no test
    kept, never listed as likely equivalent."""

    qualname: str
    captured: tuple[str, ...]


def _callable_attribute(value: Any) -> CallableAttribute:
    qualname = getattr(value, "__qualname__", None) or type(value).__qualname__
    captured: list[str] = []
    target = getattr(value, "__func__", value)  # a bound method: its function, and the object it is bound to
    if target is not value:
        captured.append(identity_free_repr(getattr(value, "__self__", None)))
    for cell in getattr(target, "__closure__", None) or ():
        try:
            captured.append(identity_free_repr(cell.cell_contents))
        except ValueError:  # an empty cell
            captured.append("<empty>")
    captured += [identity_free_repr(v) for v in (getattr(target, "__defaults__", None) or ())]
    if isinstance(value, functools.partial):
        captured += [identity_free_repr(value.func), identity_free_repr(value.args), identity_free_repr(value.keywords)]
    return CallableAttribute(str(qualname), tuple(captured))


def instance_state(instance: Any) -> Any:
    """What a constructor's call leaves to compare: the instance's attributes (`vars`), those holding callables as
    `CallableAttribute`s, or the instance itself when it has no `__dict__` (a class with `__slots__` only)."""
    try:
        attributes = vars(instance)
    except TypeError:
        return instance
    return {name: _callable_attribute(value) if callable(value) else value for name, value in attributes.items()}


def bind(module: types.ModuleType, name: str, positional: tuple[str, ...], key: str | None,
         init_positional: tuple[str, ...] = (), construct: bool = False) -> Callable[[Any], Any]:
    """A one-argument driver calling `module.<name>` on an argument dict, through `key` if given.

    `name` is a function, or `Class.method`: a class or static method is called on the
    class; an instance method on an instance built from the constructor arguments under
    SELF (`Class(*init positional values, **other init arguments)`), on every call.  With
    `construct` (`Class.__init__`) the class itself is called on the arguments, and the output
    is the state the instance holds after it (`instance_state`): a mutant of `__init__` that
    builds another instance differs there.
    """
    key_fn = resolve_key(key) if key else None
    owner, _, attr = name.rpartition(".")

    def drive(arguments: dict[str, Any]) -> Any:
        # looked up at call time: the function (or class) of this copy of the module
        if construct:
            fn = getattr(module, owner)
        elif not owner:
            fn = getattr(module, attr)
        elif SELF in arguments:
            init = arguments[SELF]
            instance = getattr(module, owner)(*[init[p] for p in init_positional],
                                              **{k: v for k, v in init.items() if k not in init_positional})
            fn = getattr(instance, attr)
        else:
            fn = getattr(getattr(module, owner), attr)
        args = [arguments[p] for p in positional]
        output = fn(*args, **{k: v for k, v in arguments.items() if k not in positional and k != SELF})
        if construct:
            output = instance_state(output)
        return key_fn(output) if key_fn is not None else output

    return drive


def driver_name(spec: FunctionSpec) -> str:
    """A top-level module name for the function's driver, unique per function (no parent package to wire)."""
    digest = hashlib.sha256(spec.qualname.encode()).hexdigest()[:8]
    return f"_mu2py_corpus_driver_{spec.name.replace('.', '_')}_{digest}"


def driver_source(spec: FunctionSpec) -> str:
    """The driver module's source: binds the (copied) target module at import, calls the function by name."""
    return (
        f'"""mu2py corpus driver of {spec.qualname} (generated): calls it in the module copy it is built with."""\n'
        "import importlib\n\n"
        "from mu2py.testgen.function_driver import bind\n\n"
        f"{DRIVER_FUNCTION} = bind(importlib.import_module({spec.module!r}), {spec.name!r}, "
        f"{spec.positional!r}, {spec.key!r}, {spec.init_positional!r}, {spec.kind == CONSTRUCTOR!r})\n"
    )


def function_target(spec: FunctionSpec, messages: bool = False) -> Target:
    """The Target fuzzing `spec`'s function: its module is mutated, the generated driver calls it (`messages`:
    see `Driver`)."""
    if spec.strategy is None:
        raise UserError(f"{spec.qualname} cannot be fuzzed: {spec.skipped}")
    module = read_module(spec.module)
    name = driver_name(spec)
    info = TargetModule(name=name, file=f"<mu2py corpus driver of {spec.qualname}>", source=driver_source(spec),
                        is_package=False, search_locations=None)
    original = types.ModuleType(name)
    exec(compile_module(info), original.__dict__)  # bound to the real module: the original program
    driver = Driver(fn=getattr(original, DRIVER_FUNCTION), source=spec.strategy, targets=(spec.module,),
                    name=DRIVER_FUNCTION, module=name, messages=messages)
    return Target(driver=driver, driver_module=info, modules=(module,), prefixes=(spec.module,))


def run_original(target: Target, value: Any,
                 timeout: float = ORIGINAL_TIMEOUT) -> tuple[RunResult, BaseException | None]:
    """Run the original on `value` under `timeout`; the result and the exception it raised, if any, with its
    traceback (`run` drops it; the written tests look at where the exception was raised)."""
    assert target.driver is not None
    fn = target.driver.fn
    raised: list[tuple[BaseException, types.TracebackType | None]] = []

    def call(arguments: Any) -> Any:
        try:
            return fn(arguments)
        except BaseException as exc:  # recorded, then re-raised for run() to classify
            raised.append((exc, exc.__traceback__))
            raise

    result = run(call, value, timeout)
    if not raised or result.status is not Status.EXCEPTION:
        return result, None
    exc, traceback = raised[-1]
    return result, exc.with_traceback(traceback)


def nondeterminism(target: Target, values: list[Any]) -> str | None:
    """Why the original is not a usable oracle (two runs on one input differ), or None when they agree."""
    for value in values:
        first, _ = run_original(target, value)
        second, _ = run_original(target, value)
        if first.status is Status.TIMEOUT or second.status is Status.TIMEOUT:
            continue
        if first.status != second.status or first.exc_type != second.exc_type:
            return f"two runs on {_short(value)} ended differently ({first.exc_type or 'returned'} vs " \
                   f"{second.exc_type or 'returned'})"
        try:
            same = first.status is Status.EXCEPTION or default_compare(first.output, second.output)
        except Exception:  # noqa: BLE001 - an output whose comparison raises cannot be an oracle either
            same = False
        if not same:
            return (f"two runs on {_short(value)} returned {_short(first.output)} and {_short(second.output)} "
                    "(time, randomness or object identity?); give an output key with strategy_for(..., key=...)")
    return None


def _short(value: Any, limit: int = 60) -> str:
    text = identity_free_repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
