"""Lines changed since a git ref (`score --since REF`): per source file, from `git diff` and untracked files."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from mu2py.errors import UserError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", "-c", "core.quotepath=off", *args], cwd=root, capture_output=True,
                              text=True, errors="surrogateescape", check=False)
    except FileNotFoundError as exc:
        raise UserError("--since needs git, and no git command was found") from exc


def _unquote(path: str) -> str:
    # git quotes a path holding a tab, newline, quote or backslash even with core.quotepath off
    if path.startswith('"') and path.endswith('"'):
        return path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode(
            "latin-1").decode("utf-8", "surrogateescape")
    return path


def parse_diff(text: str) -> dict[str, set[int]]:
    """Per path of the new side (relative to the repository top), the line numbers a unified diff adds or changes.

    A hunk that only deletes lines adds none: there is nothing on the new side to mutate.
    """
    lines: dict[str, set[int]] = {}
    current: set[int] | None = None
    for row in text.splitlines():
        if row.startswith("+++ "):
            target = row[4:]
            current = None if target == "/dev/null" else lines.setdefault(_unquote(target).removeprefix("b/"), set())
            continue
        match = _HUNK.match(row)
        if match and current is not None:
            start, count = int(match.group(1)), int(match.group(2) if match.group(2) is not None else 1)
            current.update(range(start, start + count))
    return {path: found for path, found in lines.items() if found}


def changed_lines(root: Path, ref: str, files: list[str]) -> dict[str, set[int]]:
    """Per source file (absolute, resolved), the lines changed between `ref` and the working tree, untracked included.

    UserError when `root` is not in a git repository or `ref` names no commit.
    """
    top = _git(root, "rev-parse", "--show-toplevel")
    if top.returncode != 0:
        raise UserError(f"--since needs a git repository, and {root} is not in one")
    toplevel = Path(top.stdout.strip()).resolve()
    if _git(root, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").returncode != 0:
        raise UserError(f"--since {ref}: no such commit, branch or tag in {toplevel} "
                        "(in CI, fetch enough history: actions/checkout with fetch-depth: 0)")
    wanted = {str(Path(f).resolve()) for f in files}
    inside = sorted(os.path.relpath(f, toplevel) for f in wanted if Path(f).is_relative_to(toplevel))
    if not inside:
        return {}
    # the working tree against REF: committed, staged and unstaged edits alike; a rename is a new file
    diff = _git(toplevel, "diff", "--unified=0", "--no-color", "--no-ext-diff", "--no-renames", ref, "--", *inside)
    if diff.returncode != 0:
        raise UserError(f"git diff {ref} failed: {diff.stderr.strip()}")
    found = {str((toplevel / path).resolve()): rows for path, rows in parse_diff(diff.stdout).items()}
    # a file git does not track yet is new through and through
    untracked = _git(toplevel, "ls-files", "--others", "--exclude-standard", "-z", "--", *inside)
    for path in filter(None, untracked.stdout.split("\0")):
        full = (toplevel / path).resolve()
        count = len(full.read_text(encoding="utf-8", errors="replace").splitlines())
        found[str(full)] = set(range(1, count + 1))
    return {path: rows for path, rows in found.items() if path in wanted}
