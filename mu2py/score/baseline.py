"""A per-file ratchet: each source file's mutation score kept in a committed file, and checked against it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.score.reports import file_scores, relative, score_percent
from mu2py.store.atomic import write_json

VERSION = 1


@dataclass(frozen=True)
class Drop:
    """A file whose score fell below its baseline."""

    file: str
    now: tuple[int, int]  # detected, mutants
    before: tuple[int, int]

    def line(self) -> str:
        """One line for the terminal."""
        return f"{self.file}: score {score_percent(*self.now)} is below its baseline {score_percent(*self.before)}"


def load(path: Path) -> dict[str, dict[str, Any]]:
    """The baseline's files (path relative to the root -> score, detected, mutants); UserError when unreadable."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("version") != VERSION:
            raise ValueError(f"version {raw.get('version')!r}, expected {VERSION}")
        return {str(k): dict(v) for k, v in raw["files"].items()}
    except FileNotFoundError:
        raise UserError(f"no baseline at {path}: write one first with --update-baseline") from None
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise UserError(f"{path}: not a mu2py baseline ({exc})") from exc


def current(report: dict[str, Any], root: Path) -> dict[str, dict[str, Any]]:
    """Per file the report judged completely (paths relative to `root`): its score, detected and mutants.

    A file only part of whose mutants this run judged (`--since`, one `--shard`) has no score to compare.
    """
    return {relative(file, root): {"score": round(detected / total, 4), "detected": detected, "mutants": total}
            for file, (detected, total) in sorted(file_scores(report).items())}


def check(report: dict[str, Any], root: Path, path: Path) -> tuple[list[Drop], int]:
    """The files whose score is below their baseline, and how many files were compared.

    Scores are compared as counts (detected x baseline mutants against baseline detected x mutants), so
    rounding never makes an unchanged file fail.
    """
    kept = load(path)
    drops = []
    compared = 0
    for file, now in current(report, root).items():
        before = kept.get(file)
        if before is None or not before.get("mutants"):
            continue  # a new file has nothing to keep up with
        compared += 1
        if now["detected"] * before["mutants"] < before["detected"] * now["mutants"]:
            drops.append(Drop(file, (now["detected"], now["mutants"]), (before["detected"], before["mutants"])))
    return drops, compared


def update(report: dict[str, Any], root: Path, path: Path) -> int:
    """Write the scores of the files the report judged completely into the baseline (others kept); how many."""
    kept = load(path) if path.exists() else {}
    now = current(report, root)
    kept.update(now)
    write_json(path, {"version": VERSION, "files": dict(sorted(kept.items()))})
    return len(now)
