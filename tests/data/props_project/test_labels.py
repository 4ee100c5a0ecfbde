"""A property written for targeted PBT: its `event()` labels and `target()` scores are fuzzing feedback too."""

from hypothesis import event, given, target
from hypothesis import strategies as st

from frames import frame_kind


@given(st.binary(max_size=8))
def test_kind_with_labels(data: bytes) -> None:
    kind = frame_kind(data)
    event(kind)
    target(float(len(data)), label="length")
    assert kind in ("plain", "tagged")
