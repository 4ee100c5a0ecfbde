"""Unified diffs of mutants against their module's source, labelled `a/FILE` and `b/FILE` as git writes them.

A report carries one diff per mutant: thousands on a real package.  Diffing the whole module each time costs
a pass over every line of it per mutant; a mutant made by a splice (`Program.edits`) changes only the lines
its span touches, so only those lines and their context are diffed (`splice`), and the hunk is moved to
where the window starts.  Lines are counted at "\\n" only, as Python and the mutants' line numbers count them
(`str.splitlines` would also split at a form feed).
"""

from __future__ import annotations

import bisect
import difflib
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mu2py.score.reports import relative

if TYPE_CHECKING:
    from mu2py.mutants.catalog import Program

CONTEXT = 3  # lines of context around the change, as `git diff` shows
_HUNK = re.compile(r"^@@ -(\d+)((?:,\d+)?) \+(\d+)((?:,\d+)?) @@$")


def _lines(text: str) -> list[str]:
    """`text`'s lines, each with its "\\n" (a last line without one counts too, without it)."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


NO_NEWLINE = "\\ No newline at end of file"


def _diff(original: Sequence[str], mutated: Sequence[str], file: str, context: int, offset: int = 0) -> str:
    """difflib's unified diff, each hunk moved down by `offset` lines (the window's first line in the file); a
    line that ends its file without a "\\n" is followed by `NO_NEWLINE`, as `diff` and `git diff` write, so that
    `patch` and `git apply` take it."""
    out = []
    for k, line in enumerate(difflib.unified_diff(original, mutated, f"a/{file}", f"b/{file}", n=context,
                                                   lineterm="")):
        if k < 2 or line.startswith("@@"):  # the two file lines, a hunk's head (a changed line starts "-" or "+")
            hunk = _HUNK.match(line) if offset and k >= 2 else None
            if hunk:
                line = (f"@@ -{int(hunk[1]) + offset}{hunk[2]} +{int(hunk[3]) + offset}{hunk[4]} @@")
            out.append(line)
        elif line.endswith("\n"):
            out.append(line[:-1])
        else:
            out.extend((line, NO_NEWLINE))
    return "\n".join(out)


def unified(original: str, mutated: str, file: str, context: int = CONTEXT) -> str:
    """The unified diff turning `original` into `mutated`, with `file` (a path relative to the root) as its label."""
    return _diff(_lines(original), _lines(mutated), file, context)


class Splicer:
    """Diffs of splices of one source (`splice`), its line starts found once."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.starts = [0, *(m.end() for m in re.finditer("\n", source))]
        if self.starts[-1] == len(source):  # a final "\n" starts no line
            self.starts.pop()

    def _line(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset) - 1

    def splice(self, start: int, end: int, text: str, file: str, context: int = CONTEXT) -> str:
        """The diff of the source with `source[start:end]` replaced by `text`: the same hunk a whole-file diff
        gives, from the changed lines and `context` lines either side only."""
        first, last = self._line(start), self._line(max(start, end - 1))
        low, high = max(0, first - context), last + 1 + context
        begin = self.starts[low]
        stop = self.starts[high] if high < len(self.starts) else len(self.source)
        window = self.source[begin:stop]
        changed = self.source[begin:start] + text + self.source[end:stop]
        return _diff(_lines(window), _lines(changed), file, context, offset=low)


def add_diffs(result: dict[str, Any], program: Program, root: Path) -> None:
    """Give every mutant entry of a score report its `diff` (paths relative to `root`)."""
    edits = program.edits()
    splicers: dict[str, Splicer] = {}
    for entry in result["mutants"]:
        index = program.index[entry["id"]]
        edit = edits[index]
        rel = relative(entry["file"], root)
        module = program.module_of(entry["id"])
        if isinstance(edit, str):  # no verified span: the whole mutated module
            entry["diff"] = unified(module.source, edit, rel)
            continue
        splicer = splicers.get(module.name)
        if splicer is None:
            splicer = splicers[module.name] = Splicer(module.source)
        entry["diff"] = splicer.splice(*edit, rel)
