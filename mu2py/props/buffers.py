"""Byte buffers for `fuzz_one_input`: havoc over bytes (the fuzzer's own mutator) plus a random tail.

Hypothesis reads a `fuzz_one_input` buffer front to back and marks the input invalid when
it runs out, so a child always gets a fresh random tail after the edited prefix; the test
returns the prefix it actually used, which is what the corpus keeps.
"""

from __future__ import annotations

import random

from mu2py.inputs.mutator import havoc

# bytes appended after every child: enough for most strategies' draws, trimmed by Hypothesis to what was read
TAIL = 256
_INTERESTING = (0x00, 0x01, 0x7F, 0x80, 0xFF)


class ByteChoices:
    """The per-element step `mu2py.inputs.mutator.havoc` needs, for a buffer seen as a list of byte values."""

    def mutate_choice(self, choice: int, rng: random.Random) -> int:
        """A changed byte: a flipped bit, a small step, an interesting value, or a random one."""
        r = rng.random()
        if r < 0.3:
            return choice ^ (1 << rng.randrange(8))
        if r < 0.6:
            return (choice + rng.choice((-1, 1)) * rng.randint(1, 16)) & 0xFF
        if r < 0.8:
            return rng.choice(_INTERESTING)
        return rng.randrange(256)


_BYTES = ByteChoices()


def random_buffer(rng: random.Random, size: int = TAIL) -> bytes:
    """`size` random bytes from `rng`."""
    return bytes(rng.randrange(256) for _ in range(size))


def child(parent: bytes, rng: random.Random, donor: bytes | None = None) -> bytes:
    """A havoc child of `parent` (splicing with `donor` when given), followed by a random tail."""
    edited = havoc(list(parent), _BYTES, rng, list(donor) if donor is not None else None)  # type: ignore[arg-type]  # havoc uses only what InputSource this source has
    return bytes(edited) + random_buffer(rng)
