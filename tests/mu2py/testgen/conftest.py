"""Shared by the testgen tests: what a spec's strategy draws."""

import random
from typing import Any

from mu2py.inputs.generators import StrategySource
from mu2py.testgen.signatures import FunctionSpec


def draws(spec: FunctionSpec, count: int = 20) -> list[Any]:
    """The argument dicts `spec`'s strategy decodes from `count` empty prefixes (a seeded rng); rejections left out."""
    source, rng = StrategySource(spec.strategy), random.Random(0)
    return [d.value for d in (source.decode((), rng) for _ in range(count)) if d is not None]
