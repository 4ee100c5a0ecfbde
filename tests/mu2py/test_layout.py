"""The package layout reads as the data flow: each folder of mu2py imports only from folders before it."""

from __future__ import annotations

import ast
from pathlib import Path

import mu2py

ROOT = Path(mu2py.__file__).resolve().parent
# the data flow, first to last (docs/how-it-works.md, "Code layout"); a folder imports from itself and what comes before
ORDER = ("errors", "interrupts", "budget", "rng", "steps", "processes", "target", "inputs", "engine", "mutants",
         "feedback", "store", "fuzz", "score", "props", "testgen", "survivors", "api", "cli")


def _part(module: str) -> str | None:
    """The folder (or top-level module) of a dotted `mu2py...` name; None for the package itself."""
    parts = module.split(".")
    return parts[1] if parts[0] == "mu2py" and len(parts) > 1 else None


def _imports(path: Path) -> set[str]:
    """Every mu2py module `path` imports, at any depth (function-level and TYPE_CHECKING imports too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m.startswith("mu2py.")}


def test_every_folder_is_in_the_data_flow():
    parts = {p.stem if p.suffix == ".py" else p.name for p in ROOT.iterdir()
             if (p.suffix == ".py" or (p / "__init__.py").exists()) and not p.name.startswith("__")}
    assert parts == set(ORDER)


def test_each_folder_imports_only_from_folders_before_it():
    wrong = []
    for path in sorted(ROOT.rglob("*.py")):
        here = _part(".".join(("mu2py", *path.relative_to(ROOT).with_suffix("").parts)))
        if here is None or here == "__init__" or here == "__main__":
            continue
        for module in _imports(path):
            there = _part(module)
            if there is not None and ORDER.index(there) > ORDER.index(here):
                wrong.append(f"{path.relative_to(ROOT)} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_a_private_name_of_another():
    crossing = []
    for path in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("mu2py"):
                crossing += [f"{path.relative_to(ROOT)}: {node.module}.{a.name}" for a in node.names
                             if a.name.startswith("_") and not a.name.startswith("__")]
    assert not crossing, "\n".join(crossing)
