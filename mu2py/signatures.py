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
import inspect
import random
import sys
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from mu2py.driver import import_module
from mu2py.errors import UserError

# a parameter strategy is tried on this many draws before the function is fuzzed with it
PROBE_DRAWS = 5
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


@dataclass
class FunctionSpec:
    """A public function and how to fuzz it; `skipped` holds the reason when it cannot be fuzzed.

    Invariant: `strategy` is None exactly when `skipped` is set.
    """

    module: str
    name: str
    params: list[Param] = field(default_factory=list)
    strategy: SearchStrategy[Any] | None = None
    skipped: str | None = None
    notes: list[str] = field(default_factory=list)
    key: str | None = None

    @property
    def qualname(self) -> str:
        """`module.function`, the name used by `strategy_for` and the output folders."""
        return f"{self.module}.{self.name}"

    @property
    def positional(self) -> tuple[str, ...]:
        """The positional-only parameters, passed in this order before the keywords."""
        return tuple(p.name for p in self.params if p.positional)


def parse_spec(spec: str) -> tuple[str, str | None]:
    """Split `PKG[.module][:function]` into the module name and the optional function name."""
    module, sep, function = spec.partition(":")
    names = [*module.split("."), *([function] if sep else [])]
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


def _hints(fn: Callable[..., Any], notes: list[str]) -> dict[str, Any]:
    try:
        return typing.get_type_hints(fn)
    except Exception as exc:  # noqa: BLE001 - any failure to evaluate hints means: use the raw ones
        notes.append(f"type hints could not be evaluated ({type(exc).__name__}: {exc}); string hints ignored")
        raw = getattr(inspect.unwrap(fn), "__annotations__", {})
        return {k: v for k, v in raw.items() if not isinstance(v, str)}


def probe(strategy: SearchStrategy[Any], draws: int = PROBE_DRAWS, seed: int = 0) -> str | None:
    """Why `strategy` cannot draw (None when `draws` draws from a seeded rng all work or are rejected)."""
    from mu2py.generators import StrategySource

    source = StrategySource(strategy)
    rng = random.Random(seed)
    for _ in range(draws):
        try:
            source.decode((), rng)
        except UserError as exc:
            return str(exc).replace("the driver's strategy cannot draw: ", "")
        except Exception as exc:  # noqa: BLE001 - a user strategy or a builds() target may raise anything
            return f"{type(exc).__name__}: {exc}"
    return None


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


def _param_strategy(param: inspect.Parameter, hint: Any, override: Override | None,
                    constants: dict[type, tuple[Any, ...]]) -> tuple[Any, str]:
    """A strategy for one parameter and how it was found; strategy None with the reason when there is none."""
    if override is not None and param.name in override.strategies:
        return override.strategies[param.name], "registered strategy"
    has_default = param.default is not inspect.Parameter.empty
    if hint is not None:
        try:
            strategy = st.from_type(hint)
        except Exception as exc:  # noqa: BLE001 - from_type raises assorted errors for odd hints
            why = f"no strategy for its type hint {hint!r} ({type(exc).__name__}: {exc})"
        else:
            failure = probe(strategy)
            if failure is None:
                return _with_constants(strategy, hint, f"from_type({_hint_name(hint)})", constants)
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
    return hint.__name__ if isinstance(hint, type) else repr(hint).replace("typing.", "")


def infer(module: str, name: str, fn: Callable[..., Any], *, constants: bool = True) -> FunctionSpec:
    """How to fuzz `fn`: its parameters' strategies, or the reason it is skipped (see the module docstring).

    With `constants`, `str` and `int` parameters may also take the literals of `module` (`module_constants`).
    """
    spec = FunctionSpec(module=module, name=name)
    override = REGISTRY.get(spec.qualname)
    if override is not None and override.key is not None:
        spec.key = _key_path(override.key)
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError) as exc:
        spec.skipped = f"no signature ({exc})"
        return spec
    hints = _hints(fn, spec.notes)
    pool = module_constants(module) if constants else {}
    required: dict[str, SearchStrategy[Any]] = {}
    optional: dict[str, SearchStrategy[Any]] = {}
    order = []
    for param in signature.parameters.values():
        if param.kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD):
            spec.notes.append(f"{param.name}: *args/**kwargs never passed")
            continue
        strategy, how = _param_strategy(param, hints.get(param.name), override, pool)
        has_default = param.default is not inspect.Parameter.empty
        positional = param.kind is inspect.Parameter.POSITIONAL_ONLY
        if strategy is None:
            if not has_default:
                spec.skipped = f"parameter {param.name!r}: {how}; register one with strategy_for"
                return spec
            spec.notes.append(f"{param.name}: {how}, never passed")
            continue
        # a positional-only parameter is always drawn: omitting one would shift the ones after it
        omissible = has_default and not positional
        (optional if omissible else required)[param.name] = strategy
        order.append(param.name)
        spec.params.append(Param(param.name, positional, omissible, how))
    unknown = sorted(set(override.strategies) - set(order)) if override else []
    if unknown:
        spec.skipped = f"strategy_for names parameters it does not have: {', '.join(unknown)}"
        return spec
    spec.strategy = st.fixed_dictionaries(required, optional=optional).map(lambda d: {k: d[k] for k in order if k in d})
    failure = probe(spec.strategy)
    if failure is not None:
        spec.skipped, spec.strategy = f"its arguments cannot be drawn: {failure}", None
    return spec


def discover(spec: str, *, constants: bool = True) -> tuple[list[FunctionSpec], list[str]]:
    """The functions `PKG[.module][:function]` names, each inferred, and notes on modules left out.

    Raises UserError for an unknown module or function; a named function that cannot be
    inferred is returned skipped (the caller decides whether that is an error).
    """
    root, function = parse_spec(spec)
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
        found.extend(infer(name, fn_name, fn, constants=constants) for fn_name, fn in public_functions(module))
    return found, notes
