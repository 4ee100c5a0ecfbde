"""Human-readable reports: mutation summaries and survivor tables in the terminal; `mutate`'s and `fuzz`'s
report, `kill`'s score after and `props`' verdicts as a mutation-testing-report-schema document (`--mte FILE`), and
`mutate`'s and `fuzz`'s as the HTML page that shows such a document (`--html DIR`)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from mu2py.mutants.model import TABLE_CELL, one_line

if TYPE_CHECKING:
    from mu2py.score.mte import Document


def relative(file: str, root: Path) -> str:
    """`file` as a report shows it: relative to `root` when it lies under it, else as it is."""
    path = Path(file)
    return str(path.relative_to(root)) if path.is_relative_to(root) else file


def print_mutation_report(console: Console, report: dict[str, Any], *, max_rows: int = 40,
                          more: str = "use --json for all", survivors: bool = True) -> None:
    """Print the surviving mutants (unless `survivors` is False) and the totals of a `mutate`-shaped report.

    Mutant text is printed as it is (never read as markup); `more` says where the rows beyond
    `max_rows` can be found.
    """
    summary = report["summary"]
    mutants = report["mutants"]
    reasons: dict[str, int] = {}
    for m in mutants:
        if m["status"] == "killed":
            reasons[m["reason"]] = reasons.get(m["reason"], 0) + 1
    alive = [m for m in mutants if m["status"] == "alive"]
    if alive and survivors:
        table = Table(title=f"{len(alive)} surviving mutants", show_lines=False)
        for col in ("id", "reached", "original", "mutated"):
            table.add_column(col, overflow="fold")
        # reached and still alive first: those are the mutants an input or a test can be aimed at
        for m in sorted(alive, key=lambda m: not m.get("reached"))[:max_rows]:
            table.add_row(escape(m["id"]), "yes" if m.get("reached") else "no",
                          escape(one_line(m["original"], TABLE_CELL)), escape(one_line(m["mutated"], TABLE_CELL)))
        console.print(table, markup=True)
        if len(alive) > max_rows:
            console.print(f"... and {len(alive) - max_rows} more ({more})")
    why = ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items())) or "none"
    score = summary["killed"] / summary["total"] * 100 if summary["total"] else 0.0
    console.print(
        f"[bold]{summary['killed']}/{summary['total']} mutants killed ({score:.1f}%)[/bold]  "
        f"by reason: {why}; alive: {summary['alive']} (never reached: {summary.get('not_reached', 0)})",
        markup=True,
    )


def check_mte(path: str | None, html: str | None = None) -> None:
    """A `--mte FILE` whose folder, or an `--html DIR` that, cannot be written is named before the run, not after
    it."""
    from mu2py.store.atomic import ensure_writable

    if path:
        ensure_writable(Path(path).parent)
    if html:
        ensure_writable(Path(html))


def write_mutants_html(directory: str, report: dict[str, Any], driver: str, command: str) -> Path:
    """Write the HTML page of a `mutate`-shaped report (`command`'s: mutate or fuzz) into `directory`, each file
    atomically, paths relative to the current directory (as `write_mte`); returns the index path."""
    from mu2py.score.html import write_mutants_html as write

    return write(report, Path(directory), Path.cwd(), driver, command)


def write_mte(path: str, report: dict[str, Any], driver: str) -> None:
    """Write a `mutate`-shaped report as a mutation-testing-report-schema document (the inputs as the tests, under
    the driver's name), atomically, paths relative to the current directory; a file it leaves out is named on
    stderr."""
    from mu2py.score.mte import mutate_document

    _write_document(path, mutate_document(report, Path.cwd(), driver))


def write_score_mte(path: str, report: dict[str, Any], root: Path) -> None:
    """Write a score report as a mutation-testing-report-schema document, paths relative to `root`, as `write_mte`
    does."""
    from mu2py.score.mte import score_document

    _write_document(path, score_document(report, root))


def write_props_mte(path: str, report: dict[str, Any], mutants: list[dict[str, Any]], root: Path) -> None:
    """Write a `props` report over the mutants it judged as a mutation-testing-report-schema document, paths
    relative to `root`."""
    from mu2py.score.mte import props_document

    _write_document(path, props_document(report, mutants, root))


def _write_document(path: str, converted: Document) -> None:
    from mu2py.store.atomic import write_atomic

    for rel, why in converted.left_out.items():
        print(f"mu2py: --mte leaves out {rel}: {why}", file=sys.stderr)
    write_atomic(Path(path), json.dumps(converted.report, ensure_ascii=False) + "\n")
