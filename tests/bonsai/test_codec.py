"""bonsai's varint choice format: round trips, and refuses what it cannot hold."""

import pytest

from bonsai.codec import decode_varints, encode_varints


def test_varints_round_trip_and_keep_the_format():
    big = (0, 1, 127, 128, 300, 2**40)
    assert decode_varints(encode_varints(big)) == big
    # the .bin files of existing corpora: one byte per choice below 128, LEB128 above
    assert encode_varints([0, 1, 127, 128, 300]) == bytes([0, 1, 127, 0x80, 1, 0xAC, 2])


def test_truncated_or_negative_is_a_value_error():
    with pytest.raises(ValueError):
        decode_varints(b"\x80")
    with pytest.raises(ValueError):
        encode_varints([-1])
