"""bonsai's on-disk choice format: a choice sequence as unsigned LEB128 varints (the `.bin` files of its corpora).

This is deliberately not Hypothesis' `choices_to_bytes`, which mu2py uses for strategy sources: that
format tags every choice with its type and stores an int as a signed big-endian payload (a choice
below 128 takes 2 bytes there, 1 here), and a byte string can be valid in both formats, so files
written in this format could not be told apart and read back by the other.  bonsai's choices are
all non-negative ints, so the untagged varint is the whole format.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["decode_varints", "encode_varints"]


def encode_varints(values: Sequence[int]) -> bytes:
    """Unsigned LEB128 encoding of non-negative ints (raises ValueError on negatives)."""
    out = bytearray()
    for v in values:
        v = int(v)
        if v < 0:
            raise ValueError(f"choices must be non-negative, got {v}")
        while True:
            byte = v & 0x7F
            v >>= 7
            if v:
                out.append(byte | 0x80)
            else:
                out.append(byte)
                break
    return bytes(out)


def decode_varints(data: bytes) -> tuple[int, ...]:
    """Decode unsigned LEB128 varints; raises ValueError when the last varint is truncated."""
    values: list[int] = []
    v = 0
    shift = 0
    pending = False
    for byte in bytes(data):
        v |= (byte & 0x7F) << shift
        if byte & 0x80:
            shift += 7
            pending = True
            if shift > 7 * 20:
                raise ValueError("varint too long")
        else:
            values.append(v)
            v = 0
            shift = 0
            pending = False
    if pending:
        raise ValueError("truncated varint at end of data")
    return tuple(values)
