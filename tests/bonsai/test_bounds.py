"""Bounds parsing, ordering, and measuring derivation trees."""

import pytest

from bonsai.bounds import Bounds, Measure, measure
from bonsai.tree import RepeatNode, RuleNode, Token


def test_parse_and_str_round_trip():
    b = Bounds.parse("2, 3,4")
    assert b == Bounds(2, 3, 4)
    assert str(b) == "2,3,4"
    assert Bounds.parse(str(b)) == b


@pytest.mark.parametrize("text", ["", "1,2", "1,2,3,4", "a,b,c", "1,-2,3", "1.5,2,3", "0,1,1", "1,1,0"])
def test_parse_rejects_malformed(text):
    with pytest.raises(ValueError):
        Bounds.parse(text)


def test_items_may_be_zero_but_not_negative():
    assert Bounds(1, 0, 1).items == 0
    with pytest.raises(ValueError):
        Bounds(1, -1, 1)
    with pytest.raises(ValueError):
        Bounds(True, 1, 1)


def test_partial_order_is_componentwise():
    a, b, c = Bounds(1, 1, 1), Bounds(2, 1, 3), Bounds(1, 2, 1)
    assert a <= b and a <= c and b >= a
    assert not (b <= c) and not (c <= b)
    assert a <= a


def _tree():
    # start -> pair(NAME a, NAME b) , repeat x3 of inner rule nesting `pair` again
    inner = RuleNode("pair", (Token("NAME", "a"), Token("NAME", "c")))
    rep = RepeatNode(
        3, (Token("COMMA", ","), inner, Token("COMMA", ","), Token("NUMBER", "1"), Token("X", ""))
    )
    return RuleNode("start", (RuleNode("pair", (Token("NAME", "a"), Token("NAME", "b"), rep)),))


def test_measure_counts_idents_items_and_depth():
    m = measure(_tree(), {"NAME"})
    assert m == Measure(idents=3, items=3, depth=2)
    assert measure(_tree(), set()).idents == 0
    assert m.within(Bounds(3, 3, 2))
    assert not m.within(Bounds(2, 3, 2))
    assert not m.within(Bounds(3, 2, 2))
    assert m.within(Bounds(3, 2, 2), forced_items=3)
    assert not m.within(Bounds(3, 3, 1))


def test_measure_depth_is_per_path_not_per_tree():
    leaf = RuleNode("a", (Token("T", "t"),))
    wide = RuleNode("s", (leaf, leaf, leaf, RepeatNode(2, (leaf, leaf))))
    assert measure(wide, ()).depth == 1
    deep = RuleNode("a", (RuleNode("b", (RuleNode("a", (Token("T", "t"),)),)),))
    assert measure(deep, ()).depth == 2


def test_measure_handles_very_deep_trees():
    node = Token("T", "t")
    for _ in range(5000):
        node = RuleNode("r", (node,))
    assert measure(node, ()).depth == 5000
