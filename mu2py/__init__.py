"""mu2py: mutation-analysis-guided fuzzing (Mu2) for Python."""

from __future__ import annotations

import importlib
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mu2py.target.driver import Driver, driver

__all__ = ["Driver", "corpus", "driver", "fuzz", "kill", "mutate", "props", "score", "strategy_for"]
# the Python API (mu2py.api), one function per job: loaded on first use, so that `import mu2py` (every driver
# module and every score worker does it) does not pay for it
_API = frozenset({"score", "mutate", "fuzz", "kill", "corpus", "props"})
# jobs that share their name with a subpackage: importing `mu2py.score.config` binds `mu2py.score` to the package,
# so the package itself is made callable (`JobPackage`) and is what `mu2py.score` always names
_PACKAGES = frozenset({"score", "fuzz", "props"})
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """`driver`, `strategy_for` and the API's jobs on first use: `strategy_for` imports Hypothesis, which `score`
    workers (every process) need not pay for; the jobs import mu2py.api; `driver` and `Driver` are loaded once asked
    for, so that importing the package (pytest loads `mu2py.cli.pytest_plugin` in every session) costs nothing."""
    if name in ("Driver", "driver"):
        value = getattr(importlib.import_module("mu2py.target.driver"), name)
        globals()[name] = value  # asked for once
        return value
    if name in _PACKAGES:
        return importlib.import_module(f"mu2py.{name}")
    if name in _API:
        from mu2py import api

        return getattr(api, name)
    if name == "strategy_for":
        from mu2py.testgen.overrides import strategy_for

        return strategy_for
    raise AttributeError(f"module 'mu2py' has no attribute {name!r}")


class JobPackage(types.ModuleType):
    """A subpackage named like a job (`mu2py.score`), callable as the job: `mu2py.score(...)` is `mu2py.api.score(...)`.

    The call imports `mu2py.api` then, never before: the package stays as cheap to import as it was.
    """

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Run the job of this package's name (see `mu2py.api`)."""
        from mu2py import api

        return getattr(api, self.__name__.rpartition(".")[2])(*args, **kwargs)
