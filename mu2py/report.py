"""Human-readable reports: mutation summaries and survivor tables in the terminal."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def print_mutation_report(console: Console, report: dict[str, Any], *, max_rows: int = 40) -> None:
    """Print the totals and the surviving mutants of a `mutate`-shaped report."""
    summary = report["summary"]
    mutants = report["mutants"]
    reasons: dict[str, int] = {}
    for m in mutants:
        if m["status"] == "killed":
            reasons[m["reason"]] = reasons.get(m["reason"], 0) + 1
    alive = [m for m in mutants if m["status"] == "alive"]
    table = Table(title=f"{len(alive)} surviving mutants", show_lines=False)
    for col in ("id", "reached", "original", "mutated"):
        table.add_column(col, overflow="fold")
    for m in alive[:max_rows]:
        table.add_row(m["id"], "yes" if m.get("reached") else "no", m["original"], m["mutated"])
    if alive:
        console.print(table)
        if len(alive) > max_rows:
            console.print(f"... and {len(alive) - max_rows} more (use --json for all)")
    why = ", ".join(f"{k}: {v}" for k, v in sorted(reasons.items())) or "none"
    score = summary["killed"] / summary["total"] * 100 if summary["total"] else 0.0
    console.print(
        f"[bold]{summary['killed']}/{summary['total']} mutants killed ({score:.1f}%)[/bold]  "
        f"by reason: {why}; alive: {summary['alive']} (never reached: {summary.get('not_reached', 0)})"
    )
