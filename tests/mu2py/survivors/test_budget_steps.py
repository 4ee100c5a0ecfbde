"""Under --time, `kill`'s steps after the fuzzing stop at the command's deadline without claiming what they did not
check: a verification the deadline cut claims nothing, and a mutant not scored again keeps what is known of it."""

from __future__ import annotations

from mu2py.budget import Deadline
from mu2py.budget import now as budget_clock
from mu2py.survivors.kill import after_fuzzing, fill_cut
from mu2py.survivors.verify import MutantSource, Sessions, killing


def _mutant(mid: str, status: str, line: int) -> dict:
    return {"id": mid, "file": "pkg/m.py", "line": line, "column": 0, "status": status, "killed_by": None}


def test_a_mutant_not_scored_again_keeps_its_first_verdict_or_its_verified_kill():
    before = {"mutants": [_mutant("a", "killed", 1), _mutant("b", "survived", 2), _mutant("c", "survived", 3),
                          _mutant("d", "no_coverage", 4)]}
    after = {"mutants": [dict(_mutant("a", "killed", 1))]}  # the deadline came after one verdict
    assert fill_cut(after, before, {"c": "out/tests/test_kill_m.py::test_f_1"}) == 3
    status = {m["id"]: (m["status"], m["killed_by"]) for m in after["mutants"]}
    assert status == {"a": ("killed", None), "b": ("survived", None),
                      "c": ("killed", "out/tests/test_kill_m.py::test_f_1"), "d": ("no_coverage", None)}
    assert [m["id"] for m in after["mutants"]] == ["a", "b", "c", "d"]  # in place order, as a score lists them


def test_verification_past_the_deadline_runs_nothing_and_claims_nothing(tmp_path):
    sessions = Sessions(str(tmp_path), [], ["pkg"])
    mutant = MutantSource("pkg.m:1:0:op", "pkg.m", str(tmp_path / "m.py"), False, "x = 1\n")
    try:
        assert killing(sessions, {mutant: ["t.py::test_a"]}, deadline=Deadline(budget_clock() - 1.0)) == {}
        assert not sessions._servers  # no session was started
    finally:
        sessions.close()


def test_the_steps_after_the_fuzzing_grow_with_the_first_score_and_the_survivors():
    assert after_fuzzing(2.0, 10) > after_fuzzing(1.0, 10) > after_fuzzing(1.0, 0) > 0
