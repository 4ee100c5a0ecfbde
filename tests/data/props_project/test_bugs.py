"""Properties that are wrong about the code: one fails in any run, one only on the rare tagged frames."""

from hypothesis import given
from hypothesis import strategies as st

from frames import frame_kind, payload_size


@given(st.binary(max_size=8))
def test_every_frame_has_a_payload(data: bytes) -> None:
    assert payload_size(data) > 0


@given(st.binary(max_size=8))
def test_no_frame_is_tagged(data: bytes) -> None:
    # wrong only for the rare tagged frames: Hypothesis's default run at --hypothesis-seed=1 misses them
    assert frame_kind(data) != "tagged"
