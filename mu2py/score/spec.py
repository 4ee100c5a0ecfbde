"""What a suite to score is: its root, pytest arguments and modules to mutate, and the options every pytest run gets.

The parent process and every worker build the same `Program` from a `SuiteSpec` (`build_program`),
so mutant indices and ids agree across processes.  Nothing here imports pytest or runs user code:
sources are read from files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from mu2py.errors import UserError
from mu2py.score.sandbox import ScratchCopy
from mu2py.target.modules import Target, TargetModule

if TYPE_CHECKING:
    from mu2py.mutants.catalog import Program


@dataclass(frozen=True)
class SuiteSpec:
    """What a worker needs to host the suite: where, which tests, which modules to mutate."""

    root: str
    pytest_args: tuple[str, ...]
    modules: tuple[str, ...]
    files: tuple[str, ...]
    sys_path: tuple[str, ...] = ()
    skip_patterns: tuple[str, ...] = ()
    scratch: str = ""  # a folder for each worker's copy of the project ("" runs in the project itself)
    # environment variables a worker sets before it hosts the suite (props: Hypothesis's database folder); values
    # naming a path under the root move with the project to another machine (`relocated`), not into a sandbox
    env: tuple[tuple[str, str], ...] = ()

    def remapped(self, copy: ScratchCopy) -> SuiteSpec:
        """The same suite as seen in a scratch copy of the project: every path under the root moved there."""
        return replace(self, root=copy.copy, files=tuple(copy.remap(f) for f in self.files),
                       sys_path=tuple(copy.remap(p) for p in self.sys_path))

    def relocated(self, root: str) -> SuiteSpec:
        """The same suite in a copy of the project at `root` (another machine's): every path under this root, in
        files, sys.path entries and pytest arguments (`tests`, `--opt=path`), moved there, others unchanged.

        By the paths' text, not by resolving them: they name the client's files, which may not exist here.
        """
        def move(path: str) -> str:
            return moved(path, self.root, root)

        def move_arg(arg: str) -> str:
            option, eq, value = arg.partition("=")
            return f"{option}={move(value)}" if eq and option.startswith("-") else move(arg)

        return replace(self, root=root, files=tuple(map(move, self.files)), sys_path=tuple(map(move, self.sys_path)),
                       pytest_args=tuple(map(move_arg, self.pytest_args)),
                       env=tuple((name, move(value)) for name, value in self.env))


def moved(path: str, old: str, new: str) -> str:
    """`path` with its leading folder `old` replaced by `new` (unchanged when it does not lie under `old`)."""
    if path == old:
        return new
    if path.startswith(old.rstrip(os.sep) + os.sep):
        return new.rstrip(os.sep) + path[len(old.rstrip(os.sep)):]
    return path


# options of every pytest run score starts; the rewrite warning is pytest noticing modules this
# worker imported first (mu2py's own dependencies), which a suite with `filterwarnings = error`
# would turn into a failure before collecting anything
PYTEST_OPTIONS = ("-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
                  "-W", "ignore::DeprecationWarning", "-W", "ignore::pytest.PytestAssertRewriteWarning")


def plugin_options(pytest_args: tuple[str, ...] | list[str]) -> list[str]:
    """Options for installed plugins that would make every mutant slow without judging it better.

    pytest-benchmark calibrates and repeats each benchmark for about a second: with
    `--benchmark-disable` a benchmark test calls its function once and asserts the same.
    pytest-cov (`addopts = --cov=pkg`) traces every line of every mutant's run, and its tracer
    fails inside a worker whose mutant disturbed `sys.path`: `--no-cov` turns it off.  slipcover's
    plugin, unless the suite's options use it, is not loaded.
    """
    import importlib.util

    args = list(pytest_args)
    extra = []
    if importlib.util.find_spec("pytest_benchmark") is not None and "no:benchmark" not in args \
            and not any(a.startswith("--benchmark-") for a in args):
        extra.append("--benchmark-disable")
    if importlib.util.find_spec("pytest_cov") is not None and "no:cov" not in args and "--no-cov" not in args:
        extra.append("--no-cov")
    if not any(a.startswith("--slip") for a in args) and "no:slipcover" not in args:
        # slipcover's plugin (a dependency of mu2py, not of the suite) does nothing unless asked to, but pytest
        # rewrites its modules' asserts each time a worker or a fresh interpreter starts (no bytecode written)
        extra += ["-p", "no:slipcover"]
    return extra


def test_files(spec: SuiteSpec) -> list[Path]:
    """The Python files of the suite: under the pytest paths (default: the root), plus a root conftest.py.

    A node id (`tests/test_a.py::test_x`, as `pytest --mu2py` passes a selection) names its file.
    """
    root = Path(spec.root)
    files: set[Path] = set(root.glob("conftest.py"))
    for arg in spec.pytest_args or (".",):
        path = root / arg.split("::", 1)[0]
        if path.is_dir():
            # hidden folders hold caches and virtual environments, never the suite
            files.update(p for p in path.rglob("*.py")
                         if not any(part.startswith(".") for part in p.relative_to(path).parts))
        elif path.is_file() and path.suffix == ".py":
            files.add(path)
    return sorted(files)


def build_program(spec: SuiteSpec) -> Program:
    """The mutants of the spec's modules, as the parent and every worker see them (same order, same ids).

    Sources are read from the files, never imported: the parent process does not run user code.
    """
    from mu2py.mutants.catalog import Program  # libcst: imported only where modules are parsed (see `score.catalog`)

    modules = []
    for name, file in zip(spec.modules, spec.files, strict=True):
        try:
            source = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise UserError(f"cannot read {file}: {exc}") from exc
        is_package = Path(file).name == "__init__.py"
        modules.append(TargetModule(name, file, source, is_package, (str(Path(file).parent),) if is_package else None))
    return Program(Target(driver=None, driver_module=None, modules=tuple(modules), prefixes=spec.modules),
                   skip_patterns=spec.skip_patterns)
