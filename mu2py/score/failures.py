"""One line saying how a test failed, for the verdict of the mutant it killed: `show` prints it, the reports carry it.

Made only when a judged test fails (pytest's `pytest_exception_interact`), from the raw traceback: no source file
is read.  A score worker makes it in place (`runner`); a fresh interpreter's session makes it with the same code
(`isolated.INJECT` imports this module, which imports nothing of mu2py's, so nothing the session would not).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

FAILURE_CHARS = 200  # a failure line is cut to this: a report line, not the traceback


def clipped(head: str, place: str) -> str:
    """`head` then `place`, the head cut so that the whole holds `FAILURE_CHARS` characters at most."""
    room = FAILURE_CHARS - len(place)
    return (head if len(head) <= room else head[:max(room - 1, 0)] + "…") + place


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def under_root(root: str) -> tuple[Callable[[str], bool], Callable[[str], str]]:
    """(whether a code file is the project's: under `root`, not an installed package; a file's path relative to
    `root`) for `failure_line`."""
    base = os.path.realpath(root) + os.sep

    def inside(filename: str) -> bool:
        path = os.path.realpath(filename)
        return path.startswith(base) and "site-packages" not in path

    def relative(filename: str) -> str:
        path = os.path.realpath(filename)
        return path[len(base):].replace(os.sep, "/") if path.startswith(base) else filename

    return inside, relative


def failure_line(excinfo: Any, test_file: str, when: str, in_project: Callable[[str], bool],
                 relative: Callable[[str], str], label: str = "") -> str:
    """How a test failed, in one line: the exception and the first line of its message, then where in the project
    it was raised and the line of the test that led there (`AssertionError: assert 3 == 4 (tests/test_x.py:12)`,
    `TypeError: ... (pkg/core.py:10, from tests/test_core.py:9)`); `in setup: ...` for a fixture's failure, `label`
    first (which subtest failed).

    Only the project's frames (`in_project`) count, as a person fixes those; a frame that hides itself from pytest's
    tracebacks (`__tracebackhide__`) is hidden here too."""
    value = excinfo.value
    message = _first_line(str(value))
    head = type(value).__name__ + (f": {message}" if message else "")
    if when != "call":
        head = f"in {when}: {head}"
    head = label + head
    test_file = os.path.realpath(test_file)
    crash = test = None
    tb = excinfo.tb
    while tb is not None:
        frame = tb.tb_frame
        filename = frame.f_code.co_filename
        if in_project(filename) and not frame.f_locals.get("__tracebackhide__", False):
            crash = (filename, tb.tb_lineno)
            if os.path.realpath(filename) == test_file:
                test = crash
        tb = tb.tb_next
    example = falsifying_example(value)
    tail = f"; falsifying example: {example}" if example else ""
    if crash is None:
        return clipped(head, tail)
    place = f"{relative(crash[0])}:{crash[1]}"
    if test is not None and test != crash:
        place += f", from {relative(test[0])}:{test[1]}"
    return clipped(head, f" ({place}){tail}")


EXAMPLE_CHARS = 80  # the falsifying example's share of a failure line


def falsifying_example(value: BaseException) -> str:
    """The arguments of the falsifying example Hypothesis noted on a `@given` test's exception (`datetime_str='x'`),
    on one line and cut to `EXAMPLE_CHARS`; "" when there is none.  It is the input that kills the mutant."""
    for note in getattr(value, "__notes__", None) or ():
        # Hypothesis's wording: "Falsifying example: test(...)" until 6.1xx, "Failing test case: test(...)" since
        if isinstance(note, str) and note.startswith(("Falsifying example", "Failing test case")):
            text = " ".join(note.partition(":")[2].split())  # `test_name( arg=value, )`
            _, paren, args = text.partition("(")
            if paren and args.endswith(")"):
                text = args[:-1].strip().rstrip(",").strip()
            return text if len(text) <= EXAMPLE_CHARS else text[:EXAMPLE_CHARS - 1] + "…"
    return ""


def subtest_label(report: Any) -> str:
    """`subtest [msg] (n=1): `, naming the failed subtest of a subtest's report (pytest's `SubtestReport`)."""
    context = getattr(report, "context", None)
    msg, kwargs = getattr(context, "msg", None), getattr(context, "kwargs", None) or {}
    # as pytest describes it: its values are reprs already (`SubtestContext` keeps them so)
    parts = [*([f"[{msg}]"] if msg else []), *([f"({', '.join(f'{k}={v}' for k, v in kwargs.items())})"]
                                               if kwargs else [])]
    return f"subtest {' '.join(parts)}: " if parts else "subtest: "
