"""A worker tries the tests that killed earlier mutants of a line (then of its scope) first, as probes."""

from mu2py.mutants.model import Mutant
from mu2py.score import killers
from mu2py.score.verdicts import Status, Verdict


def _mutant(line, scope="pluralize"):
    return Mutant(id=f"m{line}", module="pkg", file="pkg.py", line=line, column=0, end_line=line, end_column=1,
                  operator="constant", original="a", mutated="b", scope=scope, site=0, at_import=False)


TESTS = [("t_fast", 1.0, 0), ("t_mid", 1.0, 1), ("t_slow", 2.0, 2), ("t_last", 3.0, 3)]


def test_the_killer_of_a_line_goes_first_for_its_next_mutant():
    memory = {}
    assert killers.probes(memory, _mutant(18), TESTS) == []
    killers.remember(memory, _mutant(18), Verdict(Status.KILLED, "t_slow", 1, position=2))
    assert killers.probes(memory, _mutant(18), TESTS) == ["t_slow"]


def test_then_the_killers_of_its_scope_most_recent_first():
    memory = {}
    killers.remember(memory, _mutant(18), Verdict(Status.KILLED, "t_last", 1, position=3))
    killers.remember(memory, _mutant(19), Verdict(Status.KILLED, "t_mid", 1, position=1))
    # line 19's own killer, then the scope's killers (t_mid already placed)
    assert killers.probes(memory, _mutant(19), TESTS) == ["t_mid", "t_last"]
    # another scope knows none of them
    assert killers.probes(memory, _mutant(19, scope="singularize"), TESTS) == []


def test_only_kills_by_a_test_run_are_remembered_and_only_given_tests_are_run():
    memory = {}
    killers.remember(memory, _mutant(5), Verdict(Status.SURVIVED, tests_run=4))
    killers.remember(memory, _mutant(5), Verdict(Status.KILLED, "<compile error: x>"))
    assert memory == {}
    killers.remember(memory, _mutant(5), Verdict(Status.KILLED, "t_other", 1, position=9))
    assert killers.probes(memory, _mutant(5), TESTS) == []
    for n in range(killers.KEEP + 2):
        killers.remember(memory, _mutant(5), Verdict(Status.KILLED, f"t{n}", 1, position=n))
    assert len(memory[("pkg", "pluralize", 5)]) == killers.KEEP
