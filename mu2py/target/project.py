"""A project's `[tool.mu2py]` configuration, and the modules, files and sys.path entries it says to mutate."""

from __future__ import annotations

import fnmatch
import sys
import tomllib
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.target.modules import modules_at, package_root


def load_config(root: Path) -> dict[str, Any]:
    """The `[tool.mu2py]` table of `root/pyproject.toml` (empty when absent)."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        return dict(tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("mu2py", {}))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: {exc}") from exc


def modules_from_paths(paths: list[str], root: Path, skip: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Dotted module names and files for source paths (files or package folders), and the sys.path entries they need."""
    names: list[str] = []
    found: list[str] = []
    sys_path: list[str] = []
    for raw in paths:
        path = (root / raw).resolve()
        if not path.exists():
            raise UserError(f"no such source path: {raw}")
        base = str(package_root(path))
        if base not in sys_path:
            sys_path.append(base)
        for name, file in modules_at(path):
            if any(fnmatch.fnmatch(name, pattern) or fnmatch.fnmatch(str(file), pattern) for pattern in skip):
                continue
            if name not in names:
                names.append(name)
                found.append(str(file))
    if not names:
        raise UserError(f"no Python modules to mutate under {', '.join(paths)}")
    return names, found, sys_path


def modules_from_package(package: str, root: Path, skip: list[str]) -> tuple[list[str], list[str], list[str]]:
    """Module names of an importable package (imported from `root` first), with the sys.path entry it needs."""
    import importlib.util

    sys.path.insert(0, str(root))
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError) as exc:
        raise UserError(f"cannot import package {package!r}: {exc}") from exc
    finally:
        sys.path.remove(str(root))
    if spec is None or not spec.origin:
        raise UserError(f"no module named {package!r} (from {root})")
    location = Path(spec.origin).parent if spec.submodule_search_locations else Path(spec.origin)
    return modules_from_paths([str(location)], root, skip)


def modules_to_mutate(root: Path, config: dict[str, Any], package: str | None, paths: list[str] | None,
                      skip: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The modules, files and sys.path entries to mutate: from the command line, else `[tool.mu2py]`.

    The two forms (package, paths) exclude each other; UserError when neither is given.
    """
    if not package and not paths:
        package, paths = config.get("package"), config.get("paths")
    if package and paths:
        raise UserError("[tool.mu2py] gives both package and paths: keep one")
    if package:
        return modules_from_package(package, root, skip)
    if paths:
        return modules_from_paths(list(paths), root, skip)
    raise UserError("say what to mutate: --package PKG or --paths SRC... (or [tool.mu2py] in pyproject.toml)")
