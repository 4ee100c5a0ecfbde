"""Type hints of a function as evaluated for drawing its arguments, and the strategy a hint draws from."""

from __future__ import annotations

import ast
import inspect
import sys
import types
import typing
from collections import abc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from mu2py.testgen.docstring_types import docstring_hints
from mu2py.testgen.stubs import stub_hints

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


def type_hints(fn: Callable[..., Any], notes: list[str], name: str | None = None) -> dict[str, Any]:
    """The parameter -> evaluated hint mapping of `fn`, from every place a package writes types.

    Per parameter, the first of: its inline hint (names bound under `if TYPE_CHECKING:`
    available), the stub next to its module, a PEP 561 `-stubs` package (`stubs`), a simple
    type its docstring writes (`docstring_types`). `name`
    is what `fn` is bound to (`f`, `Class.f`), how a stub names a lambda. When the inline
    hints cannot all be evaluated at once, each is evaluated on its own; one that fails is
    left out (the parameter then falls back to a stub, or to its default's type).
    """
    inner = inspect.unwrap(fn)
    home = getattr(inner, "__globals__", {}).get("__name__") or getattr(fn, "__module__", None)
    namespace = hint_namespace(home) if home else None
    try:
        hints = typing.get_type_hints(fn, globalns=namespace)
    except Exception:  # noqa: BLE001 - any failure to evaluate the hints together: one by one below
        hints = _one_by_one(inner, namespace, notes)
    # a module typed by stubs: the stubs' hints for the parameters the code leaves bare
    hints = {**stub_hints(fn, namespace or {}, notes, name), **hints}
    try:
        bare = set(inspect.signature(inner).parameters) - set(hints)
    except (TypeError, ValueError):
        return hints
    # the docstring last, and only for what neither the code nor a stub types
    return {**docstring_hints(fn, namespace or {}, notes, bare), **hints} if bare else hints


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


def hint_name(hint: Any) -> str:
    """A hint as a note names it: a class by its name, anything else by its repr without module prefixes."""
    if isinstance(hint, type):
        return hint.__name__
    return repr(hint).replace("typing.", "").replace("collections.abc.", "")

