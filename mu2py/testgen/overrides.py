"""Strategies and output keys the user registers per function (`strategy_for`, in a `--strategies` module)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis.strategies import SearchStrategy

from mu2py.errors import UserError
from mu2py.target.driver import import_module


@dataclass(frozen=True)
class Override:
    """What the user registered for one function: strategies by parameter name, and an output key.

    `key(output)` is what gets recorded and compared instead of the output itself (for a
    function whose raw output differs from run to run); it must be a module-level function
    so that the generated tests can import it.
    """

    strategies: dict[str, SearchStrategy[Any]]
    key: Callable[[Any], Any] | None = None


# by qualified name (`pkg.mod.func`, `pkg.mod.Class`): filled as the user's strategies module is imported
REGISTRY: dict[str, Override] = {}


def key_path(key: Callable[[Any], Any]) -> str:
    """`module:function` of an output key, as a generated test imports it (UserError unless module-level)."""
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
        key_path(key)

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
