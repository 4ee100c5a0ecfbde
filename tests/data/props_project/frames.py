"""A toy wire format: a frame whose first three bytes carry the tag nibbles A, 5, C has a length byte."""


def frame_kind(data: bytes) -> str:
    """'tagged' when the low nibbles of the first three bytes are A, 5 and C (and a length byte follows)."""
    if len(data) < 4 or data[0] & 0xF != 0xA:
        return "plain"
    if data[1] & 0xF != 0x5:
        return "plain"
    if data[2] & 0xF != 0xC:
        return "plain"
    return "tagged"


def payload_size(data: bytes) -> int:
    """Payload bytes: a tagged frame's fourth byte says how many follow (at most what is there)."""
    if frame_kind(data) == "tagged":
        return min(data[3], len(data) - 4)
    return len(data)
