"""A project's `[tool.mu2py]` configuration, and the modules, files and sys.path entries it says to mutate."""

from __future__ import annotations

import fnmatch
import sys
import tomllib
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.target.modules import modules_at, package_root

# what `[tool.mu2py]` may hold for every command, and each value's type
SHARED: dict[str, type] = {"paths": list, "package": str, "tests": list, "pytest_args": list, "skip": list,
                           "skip_lines": list}
# what each SHARED key does (docs/configuration.md is generated from these tables: docs/gen_config.py)
SHARED_HELP: dict[str, str] = {
    "paths": "source files or package folders to mutate, relative to the project root (excludes `package`; "
             "`--paths` or `--package` on the command line win)",
    "package": "an importable package to mutate (excludes `paths`; `--package` or `--paths` on the command line win)",
    "tests": "test paths given to pytest (`--tests`, or the test ids `props` is given, win; default: pytest's own)",
    "pytest_args": "more arguments for pytest, after the test paths (`score --pytest-args` adds to them)",
    "skip": "module-name or file globs not to mutate (`score --skip` adds to them)",
    "skip_lines": "regular expressions: no mutant on a source line where `re.search` finds any of them "
                  "(as on a line marked `# pragma: no mutate`)",
}
# a table per command (`[tool.mu2py.score]`): the options its command line takes too, which win over them
COMMANDS: dict[str, dict[str, type | tuple[type, ...]]] = {
    "score": {"workers": int, "fail_under": (int, float), "timeout_factor": (int, float), "import_time": str,
              "opt": str, "cluster": str},
}


# the other commands' tables (`[tool.mu2py.kill]`): every option of the command, checked against its command line
# parser by the command line itself (`mu2py.cli.tables`), which knows each option's type
CLI_TABLES = ("mutants", "mutate", "fuzz", "repro", "kill", "corpus", "props")

# how a type is named in an error
_KINDS: dict[Any, str] = {int: "an integer", (int, float): "a number", str: "a string", list: "a list of strings"}


def load_config(root: Path) -> dict[str, Any]:
    """The `[tool.mu2py]` table of `root/pyproject.toml` (empty when absent), every key and type checked.

    Invariant: what it returns holds only keys of `SHARED`, of the right types, and per command of `COMMANDS` a
    table of that command's keys; anything else is a `UserError` naming the key and the nearest valid one.  The
    tables of `CLI_TABLES` are returned as written: the command line checks them (`mu2py.cli.tables`).
    """
    path = root / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        table = dict(tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("mu2py", {}))
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{path}: {exc}") from exc
    for key, value in table.items():
        if key in COMMANDS or key in CLI_TABLES:
            if not isinstance(value, dict):
                raise UserError(f"{path}: [tool.mu2py] {key} must be a table ([tool.mu2py.{key}])")
            for option, given in value.items():
                if key in COMMANDS:
                    _check(path, f"tool.mu2py.{key}", option, given, COMMANDS[key])
            continue
        owner = next((command for command, options in COMMANDS.items() if key in options), None)
        if owner is not None:
            raise UserError(f"{path}: [tool.mu2py] {key} is an option of {owner}: put it under [tool.mu2py.{owner}]")
        _check(path, "tool.mu2py", key, value, SHARED)
    return table


def _check(path: Path, where: str, key: str, value: Any, known: dict[str, Any]) -> None:
    """A `UserError` for a key `known` lacks (naming the nearest) or a value not of its type."""
    import difflib

    if key not in known:
        near = difflib.get_close_matches(key, list(known), n=1)
        hint = f" (did you mean {near[0]}?)" if near else f" (known: {', '.join(sorted(known))})"
        raise UserError(f"{path}: unknown key {key} in [{where}]{hint}")
    expected = known[key]
    if isinstance(value, bool) or not isinstance(value, expected) \
            or (expected is list and not all(isinstance(item, str) for item in value)):
        raise UserError(f"{path}: [{where}] {key} must be {_KINDS[expected]}, got {value!r}")


def command_options(config: dict[str, Any], command: str) -> dict[str, Any]:
    """The options `config` (see `load_config`) sets for `command` (its `[tool.mu2py.COMMAND]` table)."""
    return dict(config.get(command, {}))


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
