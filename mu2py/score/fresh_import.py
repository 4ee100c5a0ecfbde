"""A fresh import of the test modules with one module's body replaced, inside the live worker.

A mutant whose module body raises fails every test module that imports it, unless an importer
catches the exception (`try: import x except ImportError`, `pytest.importorskip`). Which is the
case only a fresh import shows: `collection_error` imports the test modules afresh, under their
own names, with the project's modules taken out of `sys.modules` and the mutated module served
from its compiled code, as a fresh pytest session would collect them.

Invariant: `sys.modules` and `sys.meta_path` are as before when `collection_error` returns or
raises (every module object the fresh import made is dropped); what the re-run module bodies did
to interpreter-wide state is the caller's ledger's to check.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Iterable, Sequence
from importlib.machinery import ModuleSpec
from typing import Any

from mu2py.score import chunks


class _Serve(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds one module by name and runs the given code as its body."""

    def __init__(self, name: str, file: str, is_package: bool, code: chunks.Body | types.CodeType) -> None:
        self.name, self.file, self.is_package, self.code = name, file, is_package, code

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: types.ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(
            fullname, self.file, loader=self,
            submodule_search_locations=[self.file.rsplit("/", 1)[0]] if self.is_package else None)

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        chunks.execute(self.code, vars(module))

    def get_resource_reader(self, fullname: str) -> Any:
        """The package's data files (`importlib.resources.files`), as a plain import's file loader reads them."""
        return importlib.machinery.SourceFileLoader(fullname, self.file).get_resource_reader(fullname)


def collection_error(name: str, file: str, is_package: bool, code: chunks.Body | types.CodeType, project: Iterable[str],
                     test_modules: Sequence[tuple[str, str, str]]) -> tuple[str, str] | None:
    """(where, what) of the first test module whose fresh import raises an `Exception` out of module `name`'s
    body, replaced by `code`; None when each imports (an importer caught it), one stopped otherwise (a skip,
    `SystemExit`) or raised from elsewhere: then only a fresh interpreter decides.

    `project` names the modules under the project root (imported afresh too); `test_modules` are (module
    name, file, node id) of the collected test modules, in collection order.
    """
    saved = dict(sys.modules)
    fresh = {*project, *(module for module, _, _ in test_modules), name}
    serve = _Serve(name, file, is_package, code)
    for module in fresh:
        sys.modules.pop(module, None)
    sys.meta_path.insert(0, serve)
    try:
        for module, path, nodeid in test_modules:
            spec = importlib.util.spec_from_file_location(module, path)
            if spec is None or spec.loader is None:
                return None
            imported = importlib.util.module_from_spec(spec)
            sys.modules[module] = imported
            try:
                spec.loader.exec_module(imported)
            except Exception as exc:  # noqa: BLE001 - whatever it is, pytest reports it as a collection error
                # only what the mutated body raised: anything else (a helper this import outside pytest cannot
                # find) says nothing of the mutant
                return (nodeid, f"{type(exc).__name__}: {exc}"[:200]) if _raised_in(exc, code.co_filename) else None
            except BaseException:  # noqa: BLE001 - a skip or an exit: not a failure pytest would report
                return None
        return None
    finally:
        sys.meta_path.remove(serve)
        # the fresh project and test modules go; a library imported for the first time on the way stays, as it
        # would had a test imported it
        tops = {module.split(".")[0] for module in fresh}
        for module in [m for m in sys.modules if m.split(".")[0] in tops and sys.modules[m] is not saved.get(m)]:
            del sys.modules[module]
        sys.modules.update(saved)


def _raised_in(exc: BaseException, file: str) -> bool:
    """Whether `exc` passed through code of `file` on its way (the mutated module's body, or a function of it)."""
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == file:
            return True
        tb = tb.tb_next
    return False
