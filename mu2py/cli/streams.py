"""The command's own stdout, kept apart from the program's: what the program prints goes to /dev/null.

`mutate --json` must print one JSON document and nothing else, yet the program under test
runs in the command's process (the original, at import and on every input) and may print,
at the Python level or straight to file descriptor 1, as may whatever threads or processes
it starts.  `own_stdout()` hands the command a stream of its own onto the real stdout, and
meanwhile points `sys.stdout` and descriptor 1 at /dev/null: nothing the program writes is
kept, so a flood fills neither the output, nor memory, nor a disk.  The program also sees the
command line of a program given no arguments (`sys.argv` is its first word only) and an empty
`sys.stdin`: a fuzzed function that parses the command line (argparse) or reads its input must
not read mu2py's own options, which change between runs of the same campaign, nor wait for a
terminal.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO


@contextmanager
def own_stdout() -> Iterator[TextIO]:
    """Yield the command's stdout; until the block ends, `sys.stdout` and descriptor 1 lead to /dev/null (and
    `sys.argv` holds its first word only, `sys.stdin` reads nothing).

    When `sys.stdout` is no descriptor-1 stream (a test's capture), it is itself the command's
    stdout and descriptor 1 is left as it is.  Everything is put back on the way out.
    """
    real = sys.stdout
    try:
        fd: int | None = real.fileno()
    except (AttributeError, OSError, ValueError):
        fd = None
    saved: int | None = None
    out: TextIO = real
    if fd == 1:
        real.flush()
        saved = os.dup(1)
        out = os.fdopen(os.dup(saved), "w", encoding=real.encoding, errors=real.errors,
                        buffering=1 if real.line_buffering else -1)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.close(devnull)
    sink = open(os.devnull, "w")  # noqa: SIM115 - closed below, after the block
    empty = open(os.devnull)  # noqa: SIM115 - closed below, after the block
    argv, stdin = sys.argv, sys.stdin
    sys.stdout, sys.argv, sys.stdin = sink, sys.argv[:1], empty
    try:
        yield out
    finally:
        sys.stdout, sys.argv, sys.stdin = real, argv, stdin
        sink.close()
        empty.close()
        if saved is not None:
            out.close()  # flushes what the command printed, before descriptor 1 comes back
            os.dup2(saved, 1)
            os.close(saved)
