"""Type hints read from a `.pyi` stub next to a module: for packages typed by stubs rather than inline hints.

A package such as more-itertools ships `more.py` with no annotations and `more.pyi` with all
of them; `typing.get_type_hints` sees none. Here the stub is parsed (never imported), its
imports and simple assignments (TypeVars, aliases) run one by one in a copy of the
module's hint namespace (a failing one is skipped, as for `if TYPE_CHECKING:` blocks), and
the annotations of the function's definitions in the stub are evaluated there. Overloads
give each parameter the union of its overloads' hints. Cached per stub file.
"""

from __future__ import annotations

import ast
import inspect
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Any

_STUBS: dict[str, tuple[ast.Module, dict[str, Any]] | None] = {}


def stub_path(module_file: str | None) -> Path | None:
    """The `.pyi` next to a module's `.py` file (`pkg/mod.py` -> `pkg/mod.pyi`), when there is one."""
    if not module_file or not module_file.endswith(".py"):
        return None
    path = Path(module_file).with_suffix(".pyi")
    return path if path.is_file() else None


def _load(path: Path, namespace: dict[str, Any]) -> tuple[ast.Module, dict[str, Any]] | None:
    key = str(path)
    if key not in _STUBS:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
            _STUBS[key] = None
            return None
        scope = dict(namespace)
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign)):
                if isinstance(node, ast.AnnAssign) and node.value is None:
                    continue  # `x: int` declares, binds nothing
                try:
                    exec(compile(ast.Module([node], []), key, "exec"), scope)
                except Exception:  # noqa: BLE001 - a name only a type checker resolves (_typeshed) stays unresolved
                    continue
        _STUBS[key] = (tree, scope)
    return _STUBS[key]


def _definitions(tree: ast.Module, qualname: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The stub's `def`s of `qualname` (`func` or `Class.method`), overloads included, in stub order."""
    *owners, name = qualname.split(".")
    body: list[ast.stmt] = tree.body
    for owner in owners:
        classes = [n for n in body if isinstance(n, ast.ClassDef) and n.name == owner]
        if not classes:
            return []
        body = classes[0].body
    return [n for n in body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == name]


def stub_hints(fn: Callable[..., Any], namespace: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    """Evaluated parameter hints of `fn` from the stub next to its module (empty without one).

    Invariant: only names `fn`'s signature has are returned, and only hints that evaluated;
    the ones that did not are named in `notes`.
    """
    inner = inspect.unwrap(fn)
    file = getattr(inner, "__globals__", {}).get("__file__")
    path = stub_path(file)
    loaded = _load(path, namespace) if path is not None else None
    if loaded is None:
        return {}
    tree, scope = loaded
    definitions = _definitions(tree, getattr(inner, "__qualname__", ""))
    try:
        wanted = set(inspect.signature(inner).parameters)
    except (TypeError, ValueError):
        return {}
    found: dict[str, list[Any]] = {}
    failed: set[str] = set()
    for definition in definitions:
        a = definition.args
        for arg in [*a.posonlyargs, *a.args, *a.kwonlyargs]:
            if arg.annotation is None or arg.arg not in wanted:
                continue
            try:
                hint = eval(compile(ast.Expression(arg.annotation), str(path), "eval"), dict(scope))  # noqa: S307
            except Exception:  # noqa: BLE001 - an annotation only a type checker understands
                failed.add(arg.arg)
                continue
            if hint not in found.setdefault(arg.arg, []):
                found[arg.arg].append(hint)
    hints = {name: options[0] if len(options) == 1 else typing.Union[tuple(options)]  # noqa: UP007
             for name, options in found.items() if name not in failed}
    if hints:
        notes.append(f"type hints from {path.name}" + (" (overloads joined)" if len(definitions) > 1 else ""))
    if failed:
        notes.append(f"stub hints not evaluated: {', '.join(sorted(failed))}")
    return hints
