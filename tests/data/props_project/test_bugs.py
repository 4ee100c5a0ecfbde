"""A property that is wrong about the code: it fails on the original (an empty frame has no payload)."""

from hypothesis import given
from hypothesis import strategies as st

from frames import payload_size


@given(st.binary(max_size=8))
def test_every_frame_has_a_payload(data: bytes) -> None:
    assert payload_size(data) > 0
