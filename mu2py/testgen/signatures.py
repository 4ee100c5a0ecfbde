"""How to fuzz one function or method: its parameters, and a Hypothesis strategy for its arguments.

A function's input is one value: the dict of its arguments by parameter name (always in
signature order), drawn by `st.fixed_dictionaries`, so that the fuzzing loop, which fuzzes
a one-argument driver over one strategy, runs unchanged.  Per parameter, in this order:

* a strategy the user registered with `strategy_for` (in a `--strategies` module, see `overrides`);
* its type hint (inline, else from a stub: see `hints.type_hints`), through `st.from_type`
  (classes become `st.builds` of their own hints);
* for a parameter with a default and no usable hint: the default's type when it is a
  plain scalar (`int`, `str`...), otherwise the parameter is never passed.

Values a test suite passes (`Seeded`, recorded by `mu2py.testgen.seeds`) are drawn from next
to a hint's strategy; for a parameter with no hint they come first, before its default's type,
and alone they make a parameter with neither drawable.  An instance method's receiver is drawn
from the suite's constructor calls first (`Built`), then from the constructor's parameters.

A `str` or `int` parameter drawn from its type also takes, half of the time, one of the
literals of the function's module (`constants.module_constants`, a fuzzing dictionary).

Parameters with a default are optional: a drawn input may omit them.  `*args` and
`**kwargs` are never passed.  A parameter with no default and no strategy makes the whole
function skipped, with the reason recorded in its `FunctionSpec`.  Which functions a
package offers is `discovery`'s part.
"""

from __future__ import annotations

import inspect
import random
import typing
from collections import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from mu2py.errors import UserError
from mu2py.target.driver import import_module
from mu2py.testgen.constants import module_constants, with_constants
from mu2py.testgen.hints import hint_name, strategy_for_hint, type_hints
from mu2py.testgen.overrides import REGISTRY, Override, key_path

# a parameter strategy is tried on this many draws before the function is fuzzed with it
PROBE_DRAWS = 20
_SCALARS = (bool, int, float, str, bytes, complex)


@dataclass(frozen=True)
class Param:
    """One parameter as the fuzzer passes it: by position or keyword, optional or not, and how it is drawn."""

    name: str
    positional: bool
    optional: bool
    how: str


# how a spec's callable is reached: a module-level function, or an attribute of a public class
FUNCTION, METHOD, CLASSMETHOD, STATICMETHOD = "function", "method", "classmethod", "staticmethod"
# a class's `__init__`, fuzzed as the class's construction: `Class(...)` on the drawn arguments, its output what the
# instance holds after it (`function_driver.instance_state`)
CONSTRUCTOR = "constructor"
# the argument-dict key holding a method's constructor arguments (a method's own parameters never use it)
SELF = "self"


@dataclass
class FunctionSpec:
    """A public function or method and how to fuzz it; `skipped` holds the reason when it cannot be fuzzed.

    Invariant: `strategy` is None exactly when `skipped` is set. A method's `name` is
    `Class.method`; for an instance method (`kind` METHOD) the drawn argument dict holds
    the constructor's arguments under SELF, and the instance is built from them on every
    call (in the module copy being run), as a generated test builds it.  A class's `__init__` is kind
    CONSTRUCTOR: its arguments are the constructor's, and the call builds the instance.
    """

    module: str
    name: str
    params: list[Param] = field(default_factory=list)
    strategy: SearchStrategy[Any] | None = None
    skipped: str | None = None
    notes: list[str] = field(default_factory=list)
    key: str | None = None
    kind: str = FUNCTION
    init_params: list[Param] = field(default_factory=list)

    @property
    def qualname(self) -> str:
        """`module.function` (or `module.Class.method`), the name used by `strategy_for` and the output folders."""
        return f"{self.module}.{self.name}"

    @property
    def owner(self) -> str | None:
        """The class of a method, None for a function."""
        return self.name.rpartition(".")[0] or None

    @property
    def attr(self) -> str:
        """The function's (or method's) own name."""
        return self.name.rpartition(".")[2]

    @property
    def test_name(self) -> str:
        """The generated test function's name: `test_<name>` with dots as underscores."""
        return "test_" + self.name.replace(".", "_")

    @property
    def positional(self) -> tuple[str, ...]:
        """The positional-only parameters, passed in this order before the keywords."""
        return tuple(p.name for p in self.params if p.positional)

    @property
    def init_positional(self) -> tuple[str, ...]:
        """The constructor's positional-only parameters (instance methods only)."""
        return tuple(p.name for p in self.init_params if p.positional)


def probe(strategy: SearchStrategy[Any], draws: int = PROBE_DRAWS, seed: int = 0) -> str | None:
    """Why `strategy` cannot draw: None when one of `draws` draws from a seeded rng works, or all are rejected.

    A draw that raises (a `builds()` target refusing its arguments) is rejected; only a
    strategy whose every draw raises is refused, with the last error.
    """
    from mu2py.inputs.generators import StrategySource

    source = StrategySource(strategy)
    rng = random.Random(seed)
    for _ in range(draws):
        try:
            if source.decode((), rng) is not None:
                return None
        except UserError as exc:
            return str(exc).replace("the driver's strategy cannot draw: ", "")
    return source.last_error


def _param_strategy(param: inspect.Parameter, hint: Any, override: Override | None,
                    constants: dict[type, tuple[Any, ...]], seeded: Seeded | None = None) -> tuple[Any, str]:
    """A strategy for one parameter and how it was found; strategy None with the reason when there is none.

    `seeded` (values a test suite passes, see `Seeded`) is drawn from next to what the rest finds, or
    alone when nothing else is found.
    """
    strategy, how = _unseeded_strategy(param, hint, override, constants)
    if seeded is None:
        return strategy, how
    if strategy is None:
        return seeded.alone, seeded.alone_how
    if hint is None and not (override is not None and param.name in override.strategies):
        # no type to go by (only a default's): what the suite passes comes first, the default's type after it
        return st.one_of(seeded.alone, strategy), f"{seeded.alone_how}, or {how}"
    return st.one_of(seeded.strategy, strategy), f"{how}, or {seeded.how}"


@dataclass(frozen=True)
class Seeded:
    """Values a test suite passed a parameter (see mu2py.testgen.seeds): `strategy` draws them, next to a
    hint's strategy; `alone` is the parameter's whole strategy when it has no hint (nor registered strategy)."""

    strategy: SearchStrategy[Any]
    how: str
    alone: SearchStrategy[Any]
    alone_how: str


@dataclass(frozen=True)
class Built:
    """How a test suite builds instances of a class (see mu2py.testgen.seeds): `strategy` draws constructor
    argument dicts (the suite's calls, or variants of them), an instance method's receiver drawn from them
    first; `params` seeds the constructor's parameters one by one, for the receivers built from hints.

    Invariant: every dict `strategy` draws holds each required constructor parameter and no unknown one.
    """

    strategy: SearchStrategy[Any]
    how: str
    params: dict[str, Seeded]


def _unseeded_strategy(param: inspect.Parameter, hint: Any, override: Override | None,
                       constants: dict[type, tuple[Any, ...]]) -> tuple[Any, str]:
    if override is not None and param.name in override.strategies:
        return override.strategies[param.name], "registered strategy"
    has_default = param.default is not inspect.Parameter.empty
    if hint is not None:
        try:
            strategy = strategy_for_hint(hint)
        except Exception as exc:  # noqa: BLE001 - from_type raises assorted errors for odd hints
            why = f"no strategy for its type hint {hint!r} ({type(exc).__name__}: {exc})"
        else:
            failure = probe(strategy)
            if failure is None:
                iterable = typing.get_origin(hint) in (abc.Iterable, abc.Iterator, abc.Generator)
                how = f"lists for {hint_name(hint)}" if iterable else f"from_type({hint_name(hint)})"
                return with_constants(strategy, hint, how, constants)
            why = f"its type hint {hint_name(hint)} cannot be drawn: {failure}"
    else:
        why = "no type hint"
    if has_default and type(param.default) in _SCALARS:
        kind = type(param.default)
        return with_constants(st.from_type(kind), kind, f"type of its default ({kind.__name__})", constants)
    if has_default:
        return None, f"default only ({why})"
    return None, why


def _arguments(fn: Callable[..., Any], override: Override | None, pool: dict[type, tuple[Any, ...]],
               notes: list[str], *, drop_first: bool = False, hints_of: Callable[..., Any] | None = None,
               first: dict[str, SearchStrategy[Any]] | None = None,
               seeds: dict[str, Seeded] | None = None,
               bound: str | None = None) -> tuple[list[Param], SearchStrategy[Any]] | str:
    """The parameters of `fn` and a strategy for its argument dict (keys in signature order), or why there is none.

    `drop_first` leaves out the first parameter (`self` of a method read off its class);
    `hints_of` is where the hints are read when not `fn` itself (a class's `__init__`);
    `first` are keys always drawn, before the parameters (SELF of an instance method);
    `seeds` are per parameter values to draw from too (see `_param_strategy`);
    `bound` is the name `fn` is bound to (`f`, `Class.f`): how stubs name a lambda.
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        return f"no signature ({exc})"
    hints = type_hints(hints_of or fn, notes, bound)
    required: dict[str, SearchStrategy[Any]] = dict(first or {})
    optional: dict[str, SearchStrategy[Any]] = {}
    order: list[str] = list(first or {})
    params: list[Param] = []
    for param in list(signature.parameters.values())[1 if drop_first else 0:]:
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            notes.append(f"{param.name}: *args/**kwargs never passed")
            continue
        strategy, how = _param_strategy(param, hints.get(param.name), override, pool, (seeds or {}).get(param.name))
        has_default = param.default is not inspect.Parameter.empty
        positional = param.kind is inspect.Parameter.POSITIONAL_ONLY
        if strategy is None:
            if not has_default:
                return f"parameter {param.name!r}: {how}; register one with strategy_for"
            notes.append(f"{param.name}: {how}, never passed")
            continue
        # a positional-only parameter is always drawn: omitting one would shift the ones after it
        omissible = has_default and not positional
        (optional if omissible else required)[param.name] = strategy
        order.append(param.name)
        params.append(Param(param.name, positional, omissible, how))
    unknown = sorted(set(override.strategies) - set(order)) if override else []
    if unknown:
        return f"strategy_for names parameters it does not have: {', '.join(unknown)}"
    strategy = st.fixed_dictionaries(required, optional=optional).map(lambda d: {k: d[k] for k in order if k in d})
    return params, strategy


def _finish(spec: FunctionSpec, found: tuple[list[Param], SearchStrategy[Any]] | str) -> FunctionSpec:
    if isinstance(found, str):
        spec.skipped = found
        return spec
    spec.params, spec.strategy = found
    failure = probe(spec.strategy)
    if failure is not None:
        spec.skipped, spec.strategy = f"its arguments cannot be drawn: {failure}", None
    return spec


def _new_spec(module: str, name: str, kind: str = FUNCTION) -> tuple[FunctionSpec, Override | None]:
    spec = FunctionSpec(module=module, name=name, kind=kind)
    override = REGISTRY.get(spec.qualname)
    if override is not None and override.key is not None:
        spec.key = key_path(override.key)
    return spec, override


def infer(module: str, name: str, fn: Callable[..., Any], *, constants: bool = True,
          seeds: dict[str, Seeded] | None = None) -> FunctionSpec:
    """How to fuzz `fn`: its parameters' strategies, or the reason it is skipped (see the module docstring).

    With `constants`, `str` and `int` parameters may also take the literals of `module` (`module_constants`);
    `seeds` adds, per parameter name, values to draw from (see `_param_strategy`).
    """
    spec, override = _new_spec(module, name)
    pool = module_constants(module) if constants else {}
    return _finish(spec, _arguments(fn, override, pool, spec.notes, seeds=seeds, bound=name))


def infer_method(module: str, cls: type, attr: str, kind: str, *, constants: bool = True,
                 seeds: dict[str, Seeded] | None = None, built: Built | None = None) -> FunctionSpec:
    """How to fuzz the method `cls.attr` of `module`: for an instance method, also how to build the instance.

    The instance comes from the class's constructor signature (hints, or strategies
    registered for `module.Class` with `strategy_for`), as `st.builds` would make it, but
    drawn as an argument dict under SELF so that every run builds it from the module copy
    under test.  With `built` (how a suite builds instances) the receiver is drawn from the
    suite's constructor calls first, and its parameters seed the constructor's; a constructor
    nothing else can draw for is then called as the suite calls it only.
    """
    spec, override = _new_spec(module, f"{cls.__name__}.{attr}", kind)
    pool = module_constants(module) if constants else {}
    raw = inspect.getattr_static(cls, attr)
    if kind != METHOD:
        return _finish(spec, _arguments(getattr(cls, attr), override, pool, spec.notes, seeds=seeds,
                                        bound=spec.name))
    init_notes: list[str] = []
    init = _construction(cls, REGISTRY.get(f"{module}.{cls.__name__}"), pool, init_notes, built,
                         seeds if attr == "__init__" else None)
    if attr == "__init__":
        # the class's construction itself (kind CONSTRUCTOR): its arguments are the constructor's
        spec.kind = CONSTRUCTOR
        spec.notes += init_notes
        return _finish(spec, init)
    if isinstance(init, str):
        spec.skipped = f"its instance cannot be built: {init}"
        return spec
    spec.init_params, init_strategy = init
    spec.notes += init_notes
    # SELF is drawn first: the instance, then the method's arguments
    return _finish(spec, _arguments(raw, override, pool, spec.notes, drop_first=True,
                                    first={SELF: init_strategy}, seeds=seeds, bound=spec.name))


def _construction(cls: type, override: Override | None, pool: dict[type, tuple[Any, ...]], notes: list[str],
                  built: Built | None,
                  seeds: dict[str, Seeded] | None = None) -> tuple[list[Param], SearchStrategy[Any]] | str:
    """How to draw the arguments of `cls(...)`: from the constructor's signature (hints, `override`, the suite's
    values for its parameters and `seeds`), the suite's own constructor calls first when `built` holds them, or
    those alone when nothing else can draw; why not, else.  Notes go to `notes`, prefixed as the spec shows them."""
    own: list[str] = []
    init = _arguments(cls, override, pool, own, hints_of=cls.__init__,  # type: ignore[misc]  # mypy refuses reading __init__ off a class
                      seeds={**(built.params if built is not None else {}), **(seeds or {})})
    if built is None:
        notes += [f"constructor {note}" for note in own]
        return init
    if isinstance(init, str):
        notes.append(f"instance {built.how}")
        return _as_built(cls, built, init)
    notes += [f"constructor {note}" for note in own]
    notes.append(f"instance {built.how}")
    # the suite's own instances first: the one_of's first branch is what the simplest draws take
    return init[0], st.one_of(built.strategy, init[1])


def _as_built(cls: type, built: Built, why: str) -> tuple[list[Param], SearchStrategy[Any]] | str:
    """The constructor's parameters with the receiver drawn from `built` alone (`why`: why nothing else draws it),
    or `why` when the constructor has no signature."""
    try:
        signature = inspect.signature(cls)
    except (TypeError, ValueError):
        return why
    params = [Param(p.name, p.kind is inspect.Parameter.POSITIONAL_ONLY,
                    p.default is not inspect.Parameter.empty and p.kind is not inspect.Parameter.POSITIONAL_ONLY,
                    "as the suite passes it")
              for p in signature.parameters.values()
              if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    return params, built.strategy


def infer_named(module: str, name: str, *, constants: bool = True,
                seeds: dict[str, Seeded] | None = None, built: Built | None = None) -> FunctionSpec:
    """`infer` or `infer_method` for `name` (`function` or `Class.method`) in `module` (how workers rebuild a spec).

    `built` (how a suite builds the class's instances) is used for an instance method only.
    """
    owner, _, attr = name.rpartition(".")
    target = import_module(module)
    if not owner:
        return infer(module, name, getattr(target, name), constants=constants, seeds=seeds)
    cls = getattr(target, owner)
    raw = inspect.getattr_static(cls, attr)  # private methods too (a survivor may live in one)
    kind = STATICMETHOD if isinstance(raw, staticmethod) else CLASSMETHOD if isinstance(raw, classmethod) else METHOD
    return infer_method(module, cls, attr, kind, constants=constants, seeds=seeds, built=built)
