"""Every mutant's `original` is exactly the source text at its reported location, on real code never tuned to it.

The report's location (line, column, end line, end column) is what `mu2py show`, the JSON report, SARIF and
the mutation-testing-elements page point at: a comparison's operator without the space before it, an
expression with its parentheses, a node over several lines with its line breaks, a string with its spaces.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mu2py.mutants.catalog import discover
from mu2py.target.modules import modules_target


def _text_at(source: str, line: int, column: int, end_line: int, end_column: int) -> str:
    lines = source.splitlines(keepends=True)
    if line == end_line:
        return lines[line - 1][column:end_column]
    return lines[line - 1][column:] + "".join(lines[line:end_line - 1]) + lines[end_line - 1][:end_column]


# the standard library's modules (code nobody tuned this tool to) and the bundled targets
@pytest.mark.parametrize("module", ["textwrap", "shlex", "urllib.parse", "targets.json_decoder"])
def test_original_is_the_source_text_at_the_location(module):
    mutants = discover(modules_target(module))[0]
    assert len(mutants) > 50
    wrong = []
    for m in mutants:
        at = _text_at(Path(m.file).read_text(encoding="utf-8"), m.line, m.column, m.end_line, m.end_column)
        if at != m.original:
            wrong.append((m.id, at, m.original))
    assert not wrong, f"{len(wrong)} of {len(mutants)}: {wrong[:5]}"
    assert any("\n" in m.original for m in mutants) or module == "targets.json_decoder"  # spans of several lines


def test_a_comparison_mutant_starts_at_its_operator_and_keeps_string_spaces():
    mutants = discover(modules_target("shlex"))[0]
    compared = [m for m in mutants if m.operator in ("negate_cond", "boundary")]
    assert compared and all(not m.original[:1].isspace() for m in compared)
