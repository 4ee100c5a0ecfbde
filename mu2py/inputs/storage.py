"""Where Hypothesis writes what mu2py's own generators make it write: mu2py's cache, not the project's `.hypothesis`.

Building and drawing mu2py's strategies makes Hypothesis cache its Unicode tables on disk, in
`./.hypothesis/` by default: `kill` and `fuzz` run in a user's project would leave that folder
there.  The commands that generate inputs (`fuzz`, `mutate`, `kill`, `corpus`, and a campaign
in a worker) run inside `own_storage()`.  `score` and `props` do not: the tests they run are the
user's, and their Hypothesis tests keep the project's example database, as under plain pytest.
Hypothesis is imported only when a block starts: `import mu2py.api` stays light.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])


def storage_folder() -> Path:
    """mu2py's folder for Hypothesis in the user's cache: `$XDG_CACHE_HOME/mu2py/hypothesis`, else under `~/.cache`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mu2py" / "hypothesis"


@contextmanager
def own_storage() -> Iterator[None]:
    """Hypothesis' storage in `storage_folder()` while the block runs, then as it was before (a user's own tests run
    later in the same process keep their example database).  Hypothesis caches its Unicode tables in memory once
    read or computed, so what the block computes is written to mu2py's folder and never to the project's."""
    import hypothesis.configuration as configuration

    # Hypothesis's module global (None: `HYPOTHESIS_STORAGE_DIRECTORY`, else `./.hypothesis`), which
    # `set_hypothesis_home_dir` sets
    saved = getattr(configuration, "__hypothesis_home_directory", None)
    configuration.set_hypothesis_home_dir(storage_folder())
    try:
        yield
    finally:
        configuration.set_hypothesis_home_dir(saved)


def in_own_storage(function: _F) -> _F:
    """`function`, each call run inside `own_storage()`."""
    @functools.wraps(function)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with own_storage():
            return function(*args, **kwargs)
    return wrapped  # type: ignore[return-value]  # the same signature: mypy cannot see it through functools.wraps
