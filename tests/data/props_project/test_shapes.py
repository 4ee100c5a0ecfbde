"""@given tests in the other shapes suites have: a method of a test class, and a parametrized test."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frames import frame_kind, payload_size


class TestFrames:
    @given(st.binary(max_size=8))
    def test_kind_in_a_class(self, data: bytes) -> None:
        assert frame_kind(data) in ("plain", "tagged")


@pytest.mark.parametrize("extra", [b"", b"\x00\x00"])
@given(st.binary(max_size=8))
def test_payload_grows_with_padding(extra: bytes, data: bytes) -> None:
    assert payload_size(data + extra) >= 0


@pytest.mark.skipif(True, reason="needs an extension this platform lacks")
@given(st.binary(max_size=8))
def test_only_with_the_extension(data: bytes) -> None:
    assert undefined_extension(data)  # type: ignore[name-defined]  # noqa: F821 - pytest skips it here
