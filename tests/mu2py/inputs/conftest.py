"""Shared by the inputs tests: strategies of every shape decoding meets, and Hypothesis' own decoding of them."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st
from hypothesis.control import BuildContext
from hypothesis.errors import UnsatisfiedAssumption
from hypothesis.internal.conjecture.data import ConjectureData, StopTest
from hypothesis.strategies import SearchStrategy

from mu2py.inputs.generators import SeededProvider
from targets.json_decoder.driver import json_texts
from targets.toml.driver import parse as toml_parse


def stock_decode(strategy: Any, choices: tuple[Any, ...], rng: random.Random) -> tuple[Any, ...] | None:
    """What StrategySource.decode returned before its fast path: a stock ConjectureData."""
    data = ConjectureData(prefix=choices, random=rng, max_choices=10_000, provider=SeededProvider)
    try:
        with BuildContext(data, is_final=False, wrapped_test=lambda: None):
            value = data.draw(strategy)
    except (StopTest, UnsatisfiedAssumption):
        return None
    finally:
        if not data.frozen:
            data.freeze()
    return value, tuple(data.choices)


@st.composite
def _pairs(draw: st.DrawFn) -> tuple[int, str]:
    n = draw(st.integers(0, 5))
    return n, draw(st.text(max_size=n))


class _EmptyOnOddLengths(SearchStrategy[int]):
    """A strategy that is sometimes empty *now* (as stateful Bundles are): one_of must filter it out then."""

    def is_currently_empty(self, data: Any) -> bool:
        return len(data.nodes) % 2 == 1

    def do_draw(self, data: Any) -> int:
        return data.draw_integer(0, 3)


STRATEGIES = {
    "json_texts": json_texts(),
    "toml_documents": toml_parse.__mu2py_driver__.source,
    "lists": st.lists(st.integers(-5, 5), max_size=6),
    "recursive": st.recursive(st.booleans() | st.none(), lambda s: st.lists(s, max_size=3) | st.tuples(s, s),
                              max_leaves=6),
    "filtered_one_of": st.one_of(st.integers(0, 9).filter(lambda x: x % 3), st.floats(), st.binary(max_size=3)),
    "sampled_and_mapped": st.tuples(st.sampled_from("abc").map(str.upper), st.dictionaries(st.text(max_size=2),
                                                                                           st.booleans())),
    "composite": _pairs(),
    "deep": st.deferred(lambda: st.none() | st.tuples(DEEP)),
    "currently_empty": st.lists(st.one_of(_EmptyOnOddLengths(), st.booleans()), max_size=5),
}
DEEP = STRATEGIES["deep"]

ANY_CHOICE = st.one_of(st.booleans(), st.integers(-(2**70), 2**70), st.floats(), st.text(max_size=40),
                        st.binary(max_size=40))


def same(a: Any, b: Any) -> bool:
    """Equal as printed: NaN payloads and -0.0 compare as they print; values of every strategy here print faithfully."""
    return repr(a) == repr(b)
