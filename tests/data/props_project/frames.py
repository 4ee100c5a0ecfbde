"""A toy wire format: a frame whose first five bytes carry the sync pattern 2 1 3 0 2 in their low bits is tagged."""


def frame_kind(data: bytes) -> str:
    """'tagged' when the low two bits of bytes 0-4 spell 2 1 3 0 2 and a length byte follows; else 'plain'."""
    if len(data) < 6 or data[0] & 3 != 2:
        return "plain"
    if data[1] & 3 != 1:
        return "plain"
    if data[2] & 3 != 3:
        return "plain"
    if data[3] & 3 != 0:
        return "plain"
    if data[4] & 3 != 2:
        return "plain"
    return "tagged"


def payload_size(data: bytes) -> int:
    """Payload bytes: a tagged frame's sixth byte says how many follow (at most what is there)."""
    if frame_kind(data) == "tagged":
        return min(data[5], len(data) - 6)
    return len(data)
