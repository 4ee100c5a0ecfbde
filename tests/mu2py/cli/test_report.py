"""The survivor table of `mutate`/`fuzz`: reached survivors first, long mutant texts cut to a cell."""

from __future__ import annotations

import io

from rich.console import Console

from mu2py.cli.report import print_mutation_report
from mu2py.mutants.model import TABLE_CELL, one_line


def _mutant(mid: str, reached: bool, original: str) -> dict[str, object]:
    return {"id": mid, "status": "alive", "reached": reached, "original": original, "mutated": "None"}


def test_one_line_keeps_short_texts_and_cuts_long_ones() -> None:
    assert one_line("a  +\n   b") == "a + b"
    assert one_line("x" * 10, 10) == "x" * 10
    cut = one_line("x" * 11, 10)
    assert len(cut) == 10 and cut.endswith("…")


def test_the_table_shows_reached_survivors_first_and_cuts_long_spans() -> None:
    names = ", ".join(f'"Name{i}"' for i in range(40))
    report = {"summary": {"killed": 0, "total": 3, "alive": 3, "not_reached": 2},
              "mutants": [_mutant("m:1:0:assign_value", False, f"__all__ = [{names}]"),
                          _mutant("m:2:0:string", False, '"x"'),
                          _mutant("m:9:4:compare", True, "a < b")]}
    out = io.StringIO()
    print_mutation_report(Console(file=out, width=200), report, max_rows=2)
    printed = out.getvalue()
    assert "m:9:4:compare" in printed and "m:1:0:assign_value" in printed
    assert "m:2:0:string" not in printed and "... and 1 more" in printed
    assert "Name39" not in printed and len(f"__all__ = [{names}]") > TABLE_CELL
