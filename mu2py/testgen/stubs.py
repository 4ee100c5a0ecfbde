"""Type hints read from stub files: for packages typed by stubs rather than inline hints.

A package such as more-itertools ships `more.py` with no annotations and `more.pyi` with all
of them; `typing.get_type_hints` sees none. Two places are searched, in this order:

* the `.pyi` next to the module (`pkg/mod.py` -> `pkg/mod.pyi`);
* a PEP 561 stub package `pkg-stubs` (`pkg-stubs/mod.pyi`, `pkg-stubs/mod/__init__.pyi`, or
  `pkg-stubs/__init__.pyi` for the package itself), in the folder holding the package, then
  in each `sys.path` folder.

A stub is parsed (never imported), its imports and simple assignments (TypeVars, aliases) run
one by one in a copy of the module's hint namespace (a failing one is skipped, as for `if
TYPE_CHECKING:` blocks), and the annotations of the function's definitions in the stub are
evaluated there; an annotation that does not evaluate gives no hint. A method is found in its
class's body in the stub. Overloads give each parameter the union of its overloads' hints.
Per parameter, the first stub that types it wins. Cached per stub file.
"""

from __future__ import annotations

import ast
import inspect
import sys
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


def _search_folders(module_name: str, module_file: str | None) -> list[Path]:
    """Where a `-stubs` package may be: the folder holding the top-level package, then `sys.path`, no repeats."""
    folders: list[Path] = []
    if module_file:
        # pkg/sub/mod.py for pkg.sub.mod: up one folder per dotted part after the first, one more for an __init__
        depth = module_name.count(".") + (Path(module_file).name == "__init__.py")
        parents = Path(module_file).parents
        if depth < len(parents):
            folders.append(parents[depth])
    folders += [Path(entry or ".") for entry in sys.path if isinstance(entry, str)]
    seen: set[Path] = set()
    unique = []
    for folder in folders:
        try:
            key = folder.resolve()
        except OSError:
            continue
        if key not in seen:
            seen.add(key)
            unique.append(key)
    return unique


def package_stub_path(module_name: str, module_file: str | None) -> Path | None:
    """The module's `.pyi` in a PEP 561 `-stubs` package (see the module docstring), when there is one."""
    if not module_name or module_name == "__main__":
        return None
    top, *rest = module_name.split(".")
    is_package = bool(module_file) and Path(module_file or "").name == "__init__.py"
    if rest and not is_package:
        # `pkg.sub.mod` is `pkg-stubs/sub/mod.pyi`, or a stub package's `pkg-stubs/sub/mod/__init__.pyi`
        relatives = [Path(*rest[:-1], rest[-1] + ".pyi"), Path(*rest, "__init__.pyi")]
    else:
        relatives = [Path(*rest, "__init__.pyi")]
    for folder in _search_folders(module_name, module_file):
        stubs = folder / f"{top}-stubs"
        for relative in relatives:
            if (stubs / relative).is_file():
                return stubs / relative
    return None


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


def _lookup_name(inner: Callable[..., Any], name: str | None) -> str:
    """The qualified name a stub declares `inner` under: its own, or for a lambda the name it is bound to."""
    own = getattr(inner, "__qualname__", "") or ""
    return name if name and "<lambda>" in own else own


def _hints_from(path: Path, label: str, qualname: str, wanted: set[str], namespace: dict[str, Any],
                notes: list[str]) -> dict[str, Any]:
    """The evaluated hints of `qualname`'s parameters in `wanted` from the stub at `path` (named `label` in notes)."""
    loaded = _load(path, namespace)
    if loaded is None:
        return {}
    tree, scope = loaded
    definitions = _definitions(tree, qualname)
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
        notes.append(f"type hints from {label}" + (" (overloads joined)" if len(definitions) > 1 else ""))
    if failed:
        notes.append(f"stub hints not evaluated: {', '.join(sorted(failed))}")
    return hints


def stub_hints(fn: Callable[..., Any], namespace: dict[str, Any], notes: list[str],
               name: str | None = None) -> dict[str, Any]:
    """Evaluated parameter hints of `fn` from its module's stubs (see the module docstring; empty without one).

    `name` is what `fn` is bound to (`f`, `Class.f`), used for a lambda, whose own qualified
    name is `<lambda>`. Invariant: only names `fn`'s signature has are returned, and only
    hints that evaluated; the ones that did not are named in `notes`.
    """
    inner = inspect.unwrap(fn)
    module_globals = getattr(inner, "__globals__", {})
    file, module_name = module_globals.get("__file__"), module_globals.get("__name__") or ""
    paths: list[tuple[Path, str]] = []
    beside = stub_path(file)
    if beside is not None:
        paths.append((beside, beside.name))
    packaged = package_stub_path(module_name, file)
    if packaged is not None:
        stubs = next(folder for folder in packaged.parents if folder.name.endswith("-stubs"))
        paths.append((packaged, packaged.relative_to(stubs.parent).as_posix()))
    if not paths:
        return {}
    try:
        wanted = set(inspect.signature(inner).parameters)
    except (TypeError, ValueError):
        return {}
    qualname = _lookup_name(inner, name)
    hints: dict[str, Any] = {}
    for path, label in paths:
        # the first stub typing a parameter wins: a later one is read only for the parameters still bare
        missing = wanted - set(hints)
        if not missing:
            break
        hints.update(_hints_from(path, label, qualname, missing, namespace, notes))
    return hints
