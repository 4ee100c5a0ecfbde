"""The target of a campaign: a driver and the modules under test, read once and kept as source."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

from mu2py.errors import UserError
from mu2py.target.driver import Driver, import_module, load_driver

# never mutate the toolkit itself or the libraries it drives the target with
_NEVER = ("mu2py", "bonsai", "hypothesis", "_pytest", "pytest", "libcst", "lark", "slipcover")


@dataclass(frozen=True)
class TargetModule:
    """One module under test: import name, file, source text, and whether it is a package."""

    name: str
    file: str
    source: str
    is_package: bool
    search_locations: tuple[str, ...] | None

    @property
    def source_hash(self) -> str:
        """A short hash of the source: mutant ids and cached results are keyed by it."""
        return hashlib.sha256(self.source.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class Target:
    """A driver plus the modules it exercises that are to be mutated.

    `modules` are in import-name order and exclude the driver's module, which is copied
    alongside every mutant (so that it calls the mutant) but never mutated itself.
    """

    driver: Driver | None
    driver_module: TargetModule | None
    modules: tuple[TargetModule, ...]
    prefixes: tuple[str, ...]

    @property
    def copied(self) -> tuple[TargetModule, ...]:
        """Every module a mutant's copy set holds: the modules under test and the driver."""
        if self.driver_module is None:
            return self.modules
        return (*self.modules, self.driver_module)


def _matches(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def read_module(name: str) -> TargetModule:
    """Read a loaded module's source; a clear error when it has none (builtin, frozen, compiled)."""
    module = sys.modules.get(name) or import_module(name)
    spec = getattr(module, "__spec__", None)
    origin = getattr(spec, "origin", None) or getattr(module, "__file__", None)
    if not origin or not origin.endswith(".py") or not Path(origin).is_file():
        raise UserError(f"module {name!r} has no Python source file to mutate (origin: {origin})")
    try:
        source = Path(origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read source of {name!r}: {exc}") from exc
    locations = getattr(spec, "submodule_search_locations", None)
    return TargetModule(
        name=name,
        file=origin,
        source=source,
        is_package=locations is not None,
        search_locations=tuple(locations) if locations is not None else None,
    )


def default_prefixes(driver: Driver) -> tuple[str, ...]:
    """The driver's own package, when the driver names no targets."""
    if driver.targets:
        return driver.targets
    package = driver.module.rpartition(".")[0]
    if not package:
        raise UserError(
            f"driver module {driver.module!r} is not in a package: name the modules to mutate "
            "(@driver(..., targets=[...]) or --targets)"
        )
    return (package,)


def resolve_target(spec: str, prefixes: tuple[str, ...] | None = None) -> Target:
    """Load `module:function`, import what it names, and collect the modules under test."""
    drv = load_driver(spec)
    prefixes = tuple(prefixes) if prefixes else default_prefixes(drv)
    modules = resolve_modules(prefixes, exclude=drv.module)
    return Target(driver=drv, driver_module=read_module(drv.module), modules=modules, prefixes=prefixes)


def resolve_modules(prefixes: tuple[str, ...], exclude: str) -> tuple[TargetModule, ...]:
    """The loaded modules (with Python source) matching `prefixes`, except `exclude`, by name."""
    for prefix in prefixes:
        if prefix not in sys.modules:
            import_module(prefix)
    names = sorted(
        n for n in list(sys.modules)
        if _matches(n, prefixes) and n != exclude and not _matches(n, _NEVER) and sys.modules[n] is not None
    )
    modules = []
    for name in names:
        origin = getattr(getattr(sys.modules[name], "__spec__", None), "origin", None)
        if origin and origin.endswith(".py"):
            modules.append(read_module(name))
    if not modules:
        raise UserError(f"no Python modules under test match {', '.join(prefixes)}")
    return tuple(modules)


def package_root(path: Path) -> Path:
    """The folder to put on sys.path so that `path` (a file or package folder) imports under its dotted name."""
    folder = path if path.is_dir() else path.parent
    while (folder / "__init__.py").is_file():
        folder = folder.parent
    return folder


def modules_at(path: Path) -> list[tuple[str, Path]]:
    """(dotted module name, file) of every module at a source path, named from the top of its package."""
    base = package_root(path)
    found = []
    for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
        rel = file.relative_to(base).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        if parts and all(p.isidentifier() for p in parts):
            found.append((".".join(parts), file))
    return found


def modules_target(spec: str) -> Target:
    """A driver-less target for listing mutants: an import name (module or package) or a path."""
    path = Path(spec)
    if spec.endswith(".py") or path.exists():
        found = modules_at(path.resolve()) if path.exists() else []
        if not found:
            raise UserError(f"no Python source at {spec}")
        modules = []
        for name, f in found:
            try:
                source = f.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise UserError(f"cannot read {f}: {exc}") from exc
            modules.append(TargetModule(name, str(f), source, f.name == "__init__.py", None))
        return Target(driver=None, driver_module=None, modules=tuple(modules), prefixes=(spec,))
    root = import_module(spec)
    names = [spec]
    if hasattr(root, "__path__"):
        import pkgutil

        for info in pkgutil.walk_packages(root.__path__, prefix=spec + "."):
            names.append(info.name)
    modules = []
    for name in sorted(names):
        try:
            modules.append(read_module(name))
        except UserError:
            if name == spec:
                raise
    return Target(driver=None, driver_module=None, modules=tuple(modules), prefixes=(spec,))
