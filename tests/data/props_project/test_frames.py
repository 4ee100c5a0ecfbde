"""Properties of the toy frames: one weak (a range check), one not a property at all."""

from hypothesis import given
from hypothesis import strategies as st

from frames import frame_kind, payload_size


@given(st.binary(max_size=8))
def test_payload_size_in_range(data: bytes) -> None:
    assert 0 <= payload_size(data) <= len(data)


@given(st.binary(max_size=8))
def test_kind_is_known(data: bytes) -> None:
    assert frame_kind(data) in ("plain", "tagged")


def test_plain_frame() -> None:
    assert payload_size(b"ab") == 2
