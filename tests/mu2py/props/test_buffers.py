"""Byte havoc for fuzz_one_input buffers: seeded, and always followed by a random tail."""

import random

from mu2py.props.buffers import TAIL, child, random_buffer


def test_children_are_deterministic_per_seed_and_carry_a_tail() -> None:
    parent = bytes(range(40))

    def children(seed: int) -> list[bytes]:
        rng = random.Random(seed)
        return [child(parent, rng, random_buffer(rng, 8)) for _ in range(50)]

    assert children(1) == children(1)
    assert children(1) != children(2)
    assert all(len(c) >= TAIL for c in children(1))
    assert any(c[:40] != parent for c in children(1))  # havoc changed the prefix
