"""Verdicts depend only on (mutant, input): every run starts from the state just after import."""

import os
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mu2py.feedback.analysis import Analysis
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.fixture(scope="module")
def cached_program():
    sys.path.insert(0, str(DATA))
    try:
        yield Program(resolve_target("hostile_pkg.drivers:cached"))
    finally:
        sys.path.remove(str(DATA))


def _kills(program, values, pruning, isolation="none"):
    analysis = Analysis(program, pruning=pruning, timeout=1.0, isolation=isolation)
    try:
        for value in values:
            analysis.analyse(value, repr(value))
        return set(analysis.kills)
    finally:
        analysis.close()


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=1, max_size=3), st.sampled_from(["none", "infection"]))
def test_kills_of_inputs_together_are_the_union_of_each_alone(cached_program, values, pruning):
    """`cached` memoizes in a module-level dict: without a reset, a repeated input would hide mutants."""
    together = _kills(cached_program, values + values, pruning)
    alone = set().union(*(_kills(cached_program, [v], pruning) for v in values))
    assert together == alone and alone  # the arithmetic mutants of `cached` die on any input


def test_union_holds_in_the_supervised_host(cached_program):
    values = [3, 3, 4]
    together = _kills(cached_program, values, "infection", isolation="host")
    alone = set().union(*(_kills(cached_program, [v], "infection", isolation="host") for v in set(values)))
    assert together == alone and together  # the arithmetic mutants of `cached` die on any input


def test_a_mutant_that_changes_directory_does_not_move_the_next_run(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(DATA))
    monkeypatch.chdir(tmp_path)
    (tmp_path / "hazard-data.txt").write_text("here\n")
    program = Program(resolve_target("hostile_pkg.drivers:moves"))
    index = {m.id: i for i, m in enumerate(program.mutants)}
    analysis = Analysis(program, pruning="none", timeout=1.0, isolation="none")
    analysis.analyse(5, "5")
    analysis.analyse(6, "6")
    assert os.getcwd() == str(tmp_path)
    assert index["hostile_pkg.hazards:33:8:negate_cond"] in analysis.kills
    assert index["hostile_pkg.hazards:33:8:boundary"] not in analysis.kills
