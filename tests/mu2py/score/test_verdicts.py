"""A verdict's JSON (the cache's entries, the report's fields) reads back as the same verdict."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mu2py.score.verdicts import Status, Verdict

texts = st.none() | st.text(max_size=20)
verdicts = st.builds(
    Verdict, status=st.sampled_from(Status), killed_by=texts, tests_run=st.integers(0, 500), failure=texts,
    position=st.none() | st.integers(0, 500), why=texts, mode=texts, pruned=texts, isolated_because=texts,
    seconds=st.none() | st.floats(0, 1e6), record_seconds=st.floats(0, 1e6), cached=st.booleans())


@given(verdicts)
def test_a_verdict_read_back_from_its_json_is_the_same_verdict(verdict: Verdict) -> None:
    data = verdict.to_json()
    assert Verdict.from_json(data) == verdict
    # the three fields every report entry has are always written
    assert {"status", "killed_by", "tests_run"} <= set(data) and data["status"] == verdict.status.value


def test_json_written_before_these_types_reads_as_a_verdict() -> None:
    # a cache entry as run_unit's dicts were stored, with a key no field has
    old = {"status": "timeout", "killed_by": "t.py::test_x", "tests_run": 3, "position": 2, "mode": "mutant",
           "seconds": 1.25, "record_seconds": 0.5, "limit": 4.0}
    assert Verdict.from_json(old) == Verdict(Status.TIMEOUT, "t.py::test_x", 3, position=2, mode="mutant",
                                             seconds=1.25, record_seconds=0.5)
