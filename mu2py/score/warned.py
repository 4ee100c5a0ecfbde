"""The warning filters pytest puts around each test, for runs that call its protocol function directly.

pytest applies the session's filters (`-W`, the ini's `filterwarnings`) and the test's
`filterwarnings` marks in a wrapper of the `pytest_runtest_protocol` hook, not in the
`runtestprotocol` function a score worker calls (or in a lean call, see `lean`).  Without them a
suite configured with `filterwarnings = error` passes a mutant that only makes the code warn.

Invariant: inside `filters_of(item)` the warning filters are the ones a plain pytest run of the
test has (same order: the marks' filters first, the command line's, the ini's, then pytest's
defaults); warnings are recorded (so never printed) and dropped, not reported: nobody reads a
mutant's warnings, and a worker's session never ends with a summary to list them in.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any


@contextmanager
def filters_of(item: Any) -> Iterator[None]:
    """Run the block under the warning filters pytest's own run of `item` would have."""
    from _pytest.config import apply_warning_filters, parse_warning_filter

    config = item.config
    with warnings.catch_warnings(record=True):
        if not sys.warnoptions:
            warnings.filterwarnings("always", category=DeprecationWarning)
            warnings.filterwarnings("always", category=PendingDeprecationWarning)
        apply_warning_filters(config.getini("filterwarnings"), config.known_args_namespace.pythonwarnings or [])
        for mark in item.iter_markers(name="filterwarnings"):
            for arg in mark.args:
                warnings.filterwarnings(*parse_warning_filter(arg, escape=False))
        yield
