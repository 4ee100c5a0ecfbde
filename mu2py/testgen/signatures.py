"""The public functions of a module or package, and a Hypothesis strategy for each one's arguments.

A function's input is one value: the dict of its arguments by parameter name (always in
signature order), drawn by `st.fixed_dictionaries`, so that the fuzzing loop, which fuzzes
a one-argument driver over one strategy, runs unchanged.  Per parameter, in this order:

* a strategy the user registered with `strategy_for` (in a `--strategies` module);
* its type hint, through `st.from_type` (classes become `st.builds` of their own hints);
* for a parameter with a default and no usable hint: the default's type when it is a
  plain scalar (`int`, `str`...), otherwise the parameter is never passed.

A `str` or `int` parameter drawn from its type also takes, half of the time, one of the
literals of the function's module (`module_constants`, a fuzzing dictionary).

Parameters with a default are optional: a drawn input may omit them.  `*args` and
`**kwargs` are never passed.  A parameter with no default and no strategy makes the whole
function skipped, with the reason recorded in its `FunctionSpec`.
"""

from __future__ import annotations

import ast
import enum
import inspect
import random
import sys
import types
import typing
from collections import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from mu2py.errors import UserError
from mu2py.target.driver import import_module
from mu2py.testgen.stubs import stub_hints

# a parameter strategy is tried on this many draws before the function is fuzzed with it
PROBE_DRAWS = 20
# module names that are entry points or test code, not the package's API
_NOT_API = ("__main__", "conftest", "setup", "tests", "test")
_SCALARS = (bool, int, float, str, bytes, complex)
# the fuzzing dictionary of a module: string literals up to this length, at most this many of each type
MAX_CONSTANT_LENGTH = 40
MAX_CONSTANTS = 1000


@dataclass(frozen=True)
class Override:
    """What the user registered for one function: strategies by parameter name, and an output key.

    `key(output)` is what gets recorded and compared instead of the output itself (for a
    function whose raw output differs from run to run); it must be a module-level function
    so that the generated tests can import it.
    """

    strategies: dict[str, SearchStrategy[Any]]
    key: Callable[[Any], Any] | None = None


REGISTRY: dict[str, Override] = {}


def _key_path(key: Callable[[Any], Any]) -> str:
    module = getattr(key, "__module__", None)
    qualname = getattr(key, "__qualname__", "")
    if not module or not qualname or "<" in qualname or "." in qualname:
        raise UserError(f"strategy_for key {key!r} must be a module-level function (the tests import it)")
    return f"{module}:{qualname}"


def strategy_for(
    target: str | None = None, /, *, key: Callable[[Any], Any] | None = None, **strategies: SearchStrategy[Any]
) -> Callable[[Any], Any]:
    """Register argument strategies (and an output `key`) for the function named `pkg.mod.func`.

    Called with a name it registers at once (in a module given to `--strategies`); it also
    returns a decorator, so that `@strategy_for(x=st.integers())` on the function itself
    registers that function under its own name.
    """
    for name, strategy in strategies.items():
        if not isinstance(strategy, SearchStrategy):
            raise UserError(f"strategy_for: {name}= must be a Hypothesis strategy, got {strategy!r}")
    if key is not None:
        _key_path(key)

    def register(name: str) -> None:
        REGISTRY[name] = Override(dict(strategies), key)

    if target is not None:
        register(target)

    def decorate(fn: Any) -> Any:
        register(f"{fn.__module__}.{fn.__qualname__}")
        return fn

    return decorate


def load_strategies(module: str | None) -> None:
    """Import the user's strategies module (it registers through `strategy_for`)."""
    if module:
        import_module(module)


@dataclass(frozen=True)
class Param:
    """One parameter as the fuzzer passes it: by position or keyword, optional or not, and how it is drawn."""

    name: str
    positional: bool
    optional: bool
    how: str


# how a spec's callable is reached: a module-level function, or an attribute of a public class
FUNCTION, METHOD, CLASSMETHOD, STATICMETHOD = "function", "method", "classmethod", "staticmethod"
# the argument-dict key holding a method's constructor arguments (a method's own parameters never use it)
SELF = "self"


@dataclass
class FunctionSpec:
    """A public function or method and how to fuzz it; `skipped` holds the reason when it cannot be fuzzed.

    Invariant: `strategy` is None exactly when `skipped` is set. A method's `name` is
    `Class.method`; for an instance method (`kind` METHOD) the drawn argument dict holds
    the constructor's arguments under SELF, and the instance is built from them on every
    call (in the module copy being run), as a generated test builds it.
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


def parse_spec(spec: str) -> tuple[str, str | None]:
    """Split `PKG[.module][:function]` (or `:Class`, `:Class.method`) into the module name and the rest."""
    module, sep, function = spec.partition(":")
    names = [*module.split("."), *(function.split(".") if sep else [])]
    if not all(part.isidentifier() for part in names):
        raise UserError(f"expected PKG[.module][:function], got {spec!r}")
    return module, function or None


def module_names(root: str) -> tuple[list[str], list[str]]:
    """The module and its submodules that hold API (sorted), and notes on the ones left out."""
    module = import_module(root)
    names = [root]
    notes: list[str] = []
    if hasattr(module, "__path__"):
        import pkgutil

        for info in pkgutil.walk_packages(module.__path__, prefix=root + "."):
            last = info.name.rpartition(".")[2]
            if last.startswith("_") or last in _NOT_API or last.startswith("test_"):
                notes.append(f"{info.name}: not API (private, entry point or tests), not fuzzed")
                continue
            names.append(info.name)
    return sorted(names), notes


def public_functions(module: types.ModuleType) -> list[tuple[str, Callable[..., Any]]]:
    """Module-level functions defined in `module` itself (not imported), not starting with `_`, by name."""
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or isinstance(obj, type) or not callable(obj):
            continue
        inner = inspect.unwrap(obj)
        if not inspect.isfunction(inner) or getattr(obj, "__module__", None) != module.__name__:
            continue
        found.append((name, obj))
    return sorted(found)


def public_classes(module: types.ModuleType) -> list[tuple[str, type]]:
    """Classes defined in `module` itself, not starting with `_`, that a test can build and call methods of.

    Left out: exceptions, enums, protocols and abstract classes (no instance to build).
    """
    found = []
    for name, obj in vars(module).items():
        if name.startswith("_") or not isinstance(obj, type) or obj.__module__ != module.__name__ \
                or name != obj.__name__:  # an alias (semver's VersionInfo = Version) is the same class
            continue
        if issubclass(obj, (BaseException, enum.Enum)) or getattr(obj, "_is_protocol", False) \
                or inspect.isabstract(obj):
            continue
        found.append((name, obj))
    return sorted(found)


def public_methods(cls: type) -> list[tuple[str, str]]:
    """(name, kind) of the methods a class defines itself, not starting with `_` (properties left out)."""
    found = []
    for name, raw in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(raw, staticmethod):
            found.append((name, STATICMETHOD))
        elif isinstance(raw, classmethod):
            found.append((name, CLASSMETHOD))
        elif inspect.isfunction(inspect.unwrap(raw)):
            found.append((name, METHOD))
    return sorted(found)


_TYPE_CHECKING_NAMES: dict[str, dict[str, Any]] = {}


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def hint_namespace(module_name: str) -> dict[str, Any]:
    """A module's globals plus the names it binds only for type checkers (`if TYPE_CHECKING:` blocks).

    The blocks' statements run one by one in a copy of the module's namespace (a failing
    one is skipped), so that hints naming an alias or import defined there can be
    evaluated; the module itself is left untouched. Cached per module.
    """
    if module_name in _TYPE_CHECKING_NAMES:
        return _TYPE_CHECKING_NAMES[module_name]
    module = sys.modules.get(module_name)
    namespace: dict[str, Any] = dict(vars(module)) if module is not None else {}
    namespace["__annotations__"] = dict(namespace.get("__annotations__", {}))  # an AnnAssign writes there
    file = getattr(module, "__file__", None)
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8")) if file and file.endswith(".py") else None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        tree = None
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for statement in node.body:
                try:
                    exec(compile(ast.Module([statement], []), file or "<hints>", "exec"), namespace)
                except Exception:  # noqa: BLE001 - a name only a type checker can resolve stays unresolved
                    continue
    _TYPE_CHECKING_NAMES[module_name] = namespace
    return namespace


def _hints(fn: Callable[..., Any], notes: list[str]) -> dict[str, Any]:
    """The evaluated type hints of `fn`, with names bound under `if TYPE_CHECKING:` available.

    When the hints cannot all be evaluated at once, each is evaluated on its own, and the
    ones that fail are left out (the parameter then falls back to its default's type).
    """
    inner = inspect.unwrap(fn)
    home = getattr(inner, "__globals__", {}).get("__name__") or getattr(fn, "__module__", None)
    namespace = hint_namespace(home) if home else None
    try:
        hints = typing.get_type_hints(fn, globalns=namespace)
    except Exception:  # noqa: BLE001 - any failure to evaluate the hints together: one by one below
        hints = _one_by_one(inner, namespace, notes)
    # a module typed by a `.pyi` stub next to it: the stub's hints for the parameters the code leaves bare
    return {**stub_hints(fn, namespace or {}, notes), **hints}


def _one_by_one(inner: Callable[..., Any], namespace: dict[str, Any] | None, notes: list[str]) -> dict[str, Any]:
    """The annotations of `inner` evaluated one at a time; the ones that fail are left out and named in `notes`."""
    hints = {}
    failed = []
    for name, raw in getattr(inner, "__annotations__", {}).items():
        if not isinstance(raw, str):
            hints[name] = raw
            continue
        try:
            hints[name] = eval(raw, dict(namespace or {}))  # noqa: S307 - the package's own annotation text
        except Exception as exc:  # noqa: BLE001 - an annotation only a type checker understands
            failed.append(f"{name} ({type(exc).__name__}: {exc})")
    if failed:
        notes.append(f"type hints not evaluated: {', '.join(failed)}")
    return hints


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


def module_constants(module: str) -> dict[type, tuple[Any, ...]]:
    """The short string literals and the integer literals (each with its neighbours) of a module's source, sorted.

    They are offered to `str` and `int` parameters next to random values (a fuzzing
    dictionary): a mutant of a module's own constant is killed only by an input containing it.
    """
    file = getattr(sys.modules.get(module), "__file__", None)
    try:
        tree = ast.parse(Path(file).read_text(encoding="utf-8")) if file else None
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        tree = None
    if tree is None:
        return {}
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            docstrings.add(id(body[0].value))
    strings: set[str] = set()
    ints: set[int] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Constant) or id(node) in docstrings:
            continue
        if type(node.value) is str and 0 < len(node.value) <= MAX_CONSTANT_LENGTH:
            strings.add(node.value)
        elif type(node.value) is int and abs(node.value) < 2**63:
            ints.update((node.value - 1, node.value, node.value + 1, -node.value))
    return {str: tuple(sorted(strings))[:MAX_CONSTANTS], int: tuple(sorted(ints))[:MAX_CONSTANTS]}


def _with_constants(strategy: SearchStrategy[Any], kind: Any, how: str,
                    constants: dict[type, tuple[Any, ...]]) -> tuple[SearchStrategy[Any], str]:
    pool = constants.get(kind) if kind in (str, int) else None
    if not pool:
        return strategy, how
    return st.one_of(strategy, st.sampled_from(pool)), f"{how} or one of {len(pool)} module constants"


# what an `Any` inside a container hint draws (Hypothesis has no strategy for Any itself)
_ANY = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text())


def strategy_for_hint(hint: Any) -> SearchStrategy[Any]:
    """`st.from_type(hint)`, except that iterables are drawn as lists (iterators as iterators over lists).

    `from_type(Iterable[X])` draws arbitrary iterables (dict views, generators...) that a
    run cannot copy and a test cannot write down; a list is an iterable any test can hold.
    """
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is typing.Any:
        return _ANY
    if origin in (typing.Union, types.UnionType):
        return st.one_of(*(strategy_for_hint(a) for a in args))
    if hint in (abc.Iterable, abc.Iterator, abc.Generator) or origin in (abc.Iterable, abc.Iterator, abc.Generator):
        items = strategy_for_hint(args[0]) if args else _ANY
        lists = st.lists(items, max_size=10)
        return lists if abc.Iterable in (hint, origin) else lists.map(iter)
    return st.from_type(hint)


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
    return st.one_of(seeded.strategy, strategy), f"{how}, or {seeded.how}"


@dataclass(frozen=True)
class Seeded:
    """Values a test suite passed a parameter (see mu2py.survivors.seeds): `strategy` draws them, next to a
    hint's strategy; `alone` is the parameter's whole strategy when nothing else gives one."""

    strategy: SearchStrategy[Any]
    how: str
    alone: SearchStrategy[Any]
    alone_how: str


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
                how = f"lists for {_hint_name(hint)}" if iterable else f"from_type({_hint_name(hint)})"
                return _with_constants(strategy, hint, how, constants)
            why = f"its type hint {_hint_name(hint)} cannot be drawn: {failure}"
    else:
        why = "no type hint"
    if has_default and type(param.default) in _SCALARS:
        kind = type(param.default)
        return _with_constants(st.from_type(kind), kind, f"type of its default ({kind.__name__})", constants)
    if has_default:
        return None, f"default only ({why})"
    return None, why


def _hint_name(hint: Any) -> str:
    if isinstance(hint, type):
        return hint.__name__
    return repr(hint).replace("typing.", "").replace("collections.abc.", "")


def _arguments(fn: Callable[..., Any], override: Override | None, pool: dict[type, tuple[Any, ...]],
               notes: list[str], *, drop_first: bool = False, hints_of: Callable[..., Any] | None = None,
               first: dict[str, SearchStrategy[Any]] | None = None,
               seeds: dict[str, Seeded] | None = None) -> tuple[list[Param], SearchStrategy[Any]] | str:
    """The parameters of `fn` and a strategy for its argument dict (keys in signature order), or why there is none.

    `drop_first` leaves out the first parameter (`self` of a method read off its class);
    `hints_of` is where the hints are read when not `fn` itself (a class's `__init__`);
    `first` are keys always drawn, before the parameters (SELF of an instance method);
    `seeds` are per parameter values to draw from too (see `_param_strategy`).
    """
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        return f"no signature ({exc})"
    hints = _hints(hints_of or fn, notes)
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
        spec.key = _key_path(override.key)
    return spec, override


def infer(module: str, name: str, fn: Callable[..., Any], *, constants: bool = True,
          seeds: dict[str, Seeded] | None = None) -> FunctionSpec:
    """How to fuzz `fn`: its parameters' strategies, or the reason it is skipped (see the module docstring).

    With `constants`, `str` and `int` parameters may also take the literals of `module` (`module_constants`);
    `seeds` adds, per parameter name, values to draw from (see `_param_strategy`).
    """
    spec, override = _new_spec(module, name)
    pool = module_constants(module) if constants else {}
    return _finish(spec, _arguments(fn, override, pool, spec.notes, seeds=seeds))


def infer_method(module: str, cls: type, attr: str, kind: str, *, constants: bool = True,
                 seeds: dict[str, Seeded] | None = None) -> FunctionSpec:
    """How to fuzz the method `cls.attr` of `module`: for an instance method, also how to build the instance.

    The instance comes from the class's constructor signature (hints, or strategies
    registered for `module.Class` with `strategy_for`), as `st.builds` would make it, but
    drawn as an argument dict under SELF so that every run builds it from the module copy
    under test.
    """
    spec, override = _new_spec(module, f"{cls.__name__}.{attr}", kind)
    pool = module_constants(module) if constants else {}
    raw = inspect.getattr_static(cls, attr)
    if kind != METHOD:
        return _finish(spec, _arguments(getattr(cls, attr), override, pool, spec.notes, seeds=seeds))
    init_override = REGISTRY.get(f"{module}.{cls.__name__}")
    init_notes: list[str] = []
    init = _arguments(cls, init_override, pool, init_notes, hints_of=cls.__init__)  # type: ignore[misc]
    if isinstance(init, str):
        spec.skipped = f"its instance cannot be built: {init}"
        return spec
    spec.init_params, init_strategy = init
    spec.notes += [f"constructor {note}" for note in init_notes]
    # SELF is drawn first: the instance, then the method's arguments
    return _finish(spec, _arguments(raw, override, pool, spec.notes, drop_first=True,
                                    first={SELF: init_strategy}, seeds=seeds))


def infer_named(module: str, name: str, *, constants: bool = True,
                seeds: dict[str, Seeded] | None = None) -> FunctionSpec:
    """`infer` or `infer_method` for `name` (`function` or `Class.method`) in `module` (how workers rebuild a spec)."""
    owner, _, attr = name.rpartition(".")
    target = import_module(module)
    if not owner:
        return infer(module, name, getattr(target, name), constants=constants, seeds=seeds)
    cls = getattr(target, owner)
    raw = inspect.getattr_static(cls, attr)  # private methods too (a survivor may live in one)
    kind = STATICMETHOD if isinstance(raw, staticmethod) else CLASSMETHOD if isinstance(raw, classmethod) else METHOD
    return infer_method(module, cls, attr, kind, constants=constants, seeds=seeds)


def module_specs(module: types.ModuleType, *, constants: bool = True) -> list[FunctionSpec]:
    """The inferred specs of a module's public functions, then of its public classes' methods."""
    specs = [infer(module.__name__, name, fn, constants=constants) for name, fn in public_functions(module)]
    for _, cls in public_classes(module):
        specs += [infer_method(module.__name__, cls, attr, kind, constants=constants)
                  for attr, kind in public_methods(cls)]
    return specs


def discover(spec: str, *, constants: bool = True) -> tuple[list[FunctionSpec], list[str]]:
    """The functions `PKG[.module][:function]` names, each inferred, and notes on modules left out.

    Raises UserError for an unknown module or function; a named function that cannot be
    inferred is returned skipped (the caller decides whether that is an error).
    """
    root, function = parse_spec(spec)
    if function is not None and "." in function:
        owner, _, attr = function.partition(".")
        cls = getattr(import_module(root), owner, None)
        kinds = dict(public_methods(cls)) if isinstance(cls, type) else {}
        if attr not in kinds:
            raise UserError(f"no public method {function!r} in module {root!r}")
        return [infer_method(cls.__module__, cls, attr, kinds[attr], constants=constants)], []  # type: ignore[union-attr]
    if function is not None and isinstance(getattr(import_module(root), function, None), type):
        cls = getattr(import_module(root), function)
        return [infer_method(cls.__module__, cls, attr, kind, constants=constants)
                for attr, kind in public_methods(cls)], []
    if function is not None:
        module = import_module(root)
        fn = getattr(module, function, None)
        if fn is None or not callable(fn) or isinstance(fn, type):
            raise UserError(f"no function {function!r} in module {root!r}")
        home = getattr(fn, "__module__", None) or root
        if home != root and getattr(sys.modules.get(home), function, None) is fn:
            # mutate where the function is written, not the module that re-exports it
            note = f"{root}:{function} is defined in {home}: fuzzing it there"
            return [infer(home, function, fn, constants=constants)], [note]
        return [infer(root, function, fn, constants=constants)], []
    names, notes = module_names(root)
    found = []
    for name in names:
        try:
            module = import_module(name)
        except UserError as exc:
            notes.append(f"{name}: not fuzzed, {exc}")
            continue
        found.extend(module_specs(module, constants=constants))
    return found, notes
