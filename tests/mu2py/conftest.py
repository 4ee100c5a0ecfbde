"""Shared fixtures: the insertion-sort program, built once per test session."""

import pytest

from mu2py.mutants.catalog import Program
from mu2py.target import resolve_target


@pytest.fixture(scope="session")
def sort_program() -> Program:
    return Program(resolve_target("targets.insertion_sort.driver:sort"))


@pytest.fixture(scope="session")
def json_program() -> Program:
    return Program(resolve_target("targets.json_decoder.driver:parse"))


@pytest.fixture(scope="session")
def sort_runner(sort_program):
    """One in-process engine over the sort program: building copies per Hypothesis example would dominate."""
    from mu2py.engine.engine import LocalRunner

    return LocalRunner(sort_program)
