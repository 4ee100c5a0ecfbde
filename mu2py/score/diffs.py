"""Unified diffs of a mutant against its module's source, labelled `a/FILE` and `b/FILE` as git writes them."""

from __future__ import annotations

import difflib

CONTEXT = 3  # lines of context around the change, as `git diff` shows


def unified(original: str, mutated: str, file: str, context: int = CONTEXT) -> str:
    """The unified diff turning `original` into `mutated`, with `file` (a path relative to the root) as its label."""
    lines = difflib.unified_diff(original.splitlines(), mutated.splitlines(), f"a/{file}", f"b/{file}", n=context,
                                 lineterm="")
    return "\n".join(lines)
