"""The bounded generator: validity, bounds, the bound-independent choice encoding, InputSource."""

import json
import random
import time
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bonsai.bounds import Bounds, measure
from bonsai.generator import BoundedGenerator
from bonsai.grammar import load_grammar
from mu2py.inputs.source import InputSource

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"
GRAMMAR_FILES = sorted(p.name for p in GRAMMARS.glob("*.lark"))
BUNDLED = ["json.lark", "expr.lark", "indent.lark"]


@cache
def grammar(name):
    return load_grammar(GRAMMARS / name)


bounds_st = st.builds(
    Bounds,
    idents=st.integers(1, 3),
    items=st.integers(0, 3),
    depth=st.integers(1, 3),
)
choices_st = st.lists(st.integers(0, 300), max_size=80)
grow_st = st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2))


def test_bundled_grammars_exist():
    assert set(BUNDLED) <= set(GRAMMAR_FILES)


@pytest.mark.parametrize("name", GRAMMAR_FILES)
@settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bounds=bounds_st, choices=choices_st, seed=st.integers(0, 2**16), grow=grow_st)
def test_generated_text_parses_within_bounds_and_replays(name, bounds, choices, seed, grow):
    g = grammar(name)
    gen = BoundedGenerator(g, bounds)
    sample = gen.decode_sample(choices, random.Random(seed))
    # every text parses with the same grammar
    g.parse(sample.text)
    # ... and its tree is within the bounds
    used = measure(sample.tree, gen.ident_terminals())
    assert used.within(bounds), (used, bounds, sample.text)
    # realized choices replay exactly, without any randomness
    again = gen.decode_sample(sample.choices, None)
    assert again.tree == sample.tree and again.text == sample.text and again.choices == sample.choices
    # ... and mean the same under any larger bounds (how corpora pass up the lattice)
    bigger = Bounds(bounds.idents + grow[0], bounds.items + grow[1], bounds.depth + grow[2])
    up = gen.with_bounds(bigger).decode_sample(sample.choices, None)
    assert up.tree == sample.tree and up.text == sample.text and up.choices == sample.choices


@pytest.mark.parametrize("name", BUNDLED)
def test_random_generation_is_valid_and_bounded(name):
    g = grammar(name)
    for bounds in (Bounds(1, 1, 1), Bounds(2, 2, 2), Bounds(3, 3, 3)):
        gen = BoundedGenerator(g, bounds)
        rng = random.Random(1)
        texts = set()
        for _ in range(150):
            sample = gen.generate(rng)
            g.parse(sample.text)
            assert measure(sample.tree, gen.ident_terminals()).within(bounds)
            texts.add(sample.text)
        assert len(texts) > 10  # not stuck on one input


def test_decode_is_deterministic_given_rng_state():
    gen = BoundedGenerator(grammar("expr.lark"), Bounds(2, 2, 2))
    a = [gen.decode([3, 1, 4], random.Random(5)) for _ in range(3)]
    assert a[0] == a[1] == a[2]
    assert isinstance(a[0].value, str)


def test_decoded_value_is_text_and_tree_is_reachable():
    gen = BoundedGenerator(grammar("json.lark"), Bounds(2, 2, 2))
    decoded = gen.decode([1, 2, 0, 1], random.Random(0))
    assert decoded is not None and isinstance(decoded.value, str)
    assert gen.render(decoded.value) == decoded.value
    tree = gen.decode_tree(decoded.choices)
    assert tree == gen.decode_sample(decoded.choices).tree


def test_exhausted_choices_without_rng_raise():
    gen = BoundedGenerator(grammar("json.lark"), Bounds(2, 2, 2))
    with pytest.raises(ValueError, match="exhausted"):
        gen.decode_sample([], None)


def test_forced_decisions_record_the_value_taken():
    g = load_grammar('start: "(" start ")" | "x"\n')
    gen = BoundedGenerator(g, Bounds(1, 1, 1))
    # alternative 0 recurses; at depth 1 the only allowed option is "x" (the smallest completion)
    sample = gen.decode_sample([0, 0, 0], None)
    assert sample.text == "x" and sample.choices == (1,)
    deeper = gen.with_bounds(Bounds(1, 1, 3)).decode_sample([0, 0, 0, 0], None)
    assert deeper.text == "((x))"  # `start` expanded 3 times on the path
    # realized choices of the deep input replay under the same bounds
    assert gen.with_bounds(Bounds(1, 1, 3)).decode_sample(deeper.choices, None).text == "((x))"


def test_items_bound_and_grammar_forced_repetitions():
    g = load_grammar('start: "a"* "b"~1..5 "c"~4\n')
    gen = BoundedGenerator(g, Bounds(1, 2, 1))
    sample = gen.decode_sample([9, 9], None)
    assert sample.text.count("a") <= 2 and 1 <= sample.text.count("b") <= 2 and sample.text.count("c") == 4
    assert gen.decode_sample([1, 2], None).text == "abbcccc"
    zero = BoundedGenerator(g, Bounds(1, 0, 1)).decode_sample([5, 5], None)
    assert zero.text == "bcccc"


def test_depth_bound_skips_optional_recursion():
    g = grammar("json.lark")
    gen = BoundedGenerator(g, Bounds(1, 3, 1))
    rng = random.Random(3)
    for _ in range(200):
        sample = gen.generate(rng)
        # at depth 1 `value` cannot nest, so no container holds another value
        assert measure(sample.tree, ()).depth <= 1
        assert sample.text in ("{}", "[]", "true", "false", "null") or sample.text[0] in '"-0123456789'
        json.loads(sample.text)  # the bundled JSON grammar is strict RFC 8259


def test_identifiers_come_from_a_pool_and_avoid_keywords():
    g = load_grammar('start: (NAME | "a" | "b" | "let")+\n%import common.CNAME -> NAME\n%ignore " "\n')
    gen = BoundedGenerator(g, Bounds(3, 6, 1))
    rng = random.Random(0)
    seen = set()
    for _ in range(100):
        sample = gen.generate(rng)
        g.parse(sample.text)
        seen.update(t.text for t in _tokens(sample.tree) if t.terminal == "NAME")
    assert seen and len(seen) <= 3
    assert not seen & {"a", "b", "let"}


def test_identifier_pool_for_quoted_terminal():
    g = load_grammar('start: IDSTRING ("," IDSTRING)*\nIDSTRING: /"[a-z]+"/\n')
    gen = BoundedGenerator(g, Bounds(2, 3, 1))
    rng = random.Random(0)
    values = set()
    for _ in range(50):
        sample = gen.generate(rng)
        g.parse(sample.text)
        values.update(t.text for t in _tokens(sample.tree))
    assert {v for v in values if v != ","} <= {'"a"', '"b"'}


def test_regex_terminals_relex_as_themselves():
    g = load_grammar(
        'start: (STR | NUM | WORD)+\nSTR: /"[^"]*"/\nNUM: /[0-9]+(\\.[0-9]+)?/\n'
        'WORD: /[a-z]\\w*/\n%ignore " "\n'
    )
    gen = BoundedGenerator(g, Bounds(1, 4, 1))
    rng = random.Random(2)
    for _ in range(200):
        g.parse(gen.generate(rng).text)


def test_indentation_rendering():
    g = grammar("indent.lark")
    gen = BoundedGenerator(g, Bounds(1, 2, 2))
    rng = random.Random(0)
    blocks = 0
    for _ in range(300):
        text = gen.generate(rng).text
        g.parse(text)
        if "\n    " in text:
            blocks += 1
            assert "\t" not in text
    assert blocks > 0


def test_input_source_protocol_and_bytes_round_trip():
    gen = BoundedGenerator(grammar("json.lark"), Bounds(2, 2, 2))
    assert isinstance(gen, InputSource)
    decoded = gen.decode([], random.Random(11))
    data = gen.to_bytes(decoded.choices)
    assert gen.from_bytes(data) == decoded.choices
    with pytest.raises(ValueError):
        gen.from_bytes(b"\x80")
    with pytest.raises(ValueError):
        gen.to_bytes([-1])


def test_mutate_choice_changes_value():
    gen = BoundedGenerator(grammar("json.lark"), Bounds(2, 2, 2))
    rng = random.Random(0)
    for choice in (0, 1, 5, 63, 1000):
        for _ in range(50):
            new = gen.mutate_choice(choice, rng)
            assert isinstance(new, int) and new >= 0 and new != choice


def test_mutated_sequences_still_decode_within_bounds():
    g = grammar("expr.lark")
    bounds = Bounds(2, 2, 2)
    gen = BoundedGenerator(g, bounds)
    rng = random.Random(4)
    choices = list(gen.decode([], rng).choices)
    for _ in range(200):
        if choices:
            i = rng.randrange(len(choices))
            choices[i] = gen.mutate_choice(choices[i], rng)
        decoded = gen.decode(choices, rng)
        g.parse(decoded.value)
        choices = list(decoded.choices)


def test_json_generation_is_fast():
    gen = BoundedGenerator(grammar("json.lark"), Bounds(2, 2, 2))
    rng = random.Random(0)
    gen.generate(rng)
    began = time.perf_counter()
    for _ in range(1000):
        gen.decode([], rng)
    assert time.perf_counter() - began < 2.0  # typically ~0.05 s: thousands of inputs per second


def _tokens(tree):
    from bonsai.tree import tokens

    return tokens(tree)


def test_samples_avoid_higher_priority_terminals():
    g = load_grammar('start: STR | QID\nSTR: /"[a-z]*"/\nQID.2: /"[a-z]"/\n')
    gen = BoundedGenerator(g, Bounds(1, 1, 1))
    rng = random.Random(0)
    for _ in range(100):
        sample = gen.generate(rng)
        (token,) = _tokens(sample.tree)
        if token.terminal == "STR":
            assert len(token.text) != 3  # a one-letter quoted word would lex as QID


def test_start_variants_are_shared():
    g = grammar("json.lark")
    a = BoundedGenerator(g, Bounds(1, 1, 1), start="pair")
    b = BoundedGenerator(g, Bounds(2, 2, 2), start="pair")
    assert a.grammar is b.grammar and a.core is b.core and a.start == "pair"
    assert ":" in a.generate(random.Random(0)).text


def test_rule_that_cannot_terminate_is_named():
    from bonsai.grammar import GrammarLoadError

    with pytest.raises(GrammarLoadError, match="rule 'b' cannot terminate") as info:
        BoundedGenerator(load_grammar('start: "a" | b\nb: "(" b ")"\n'), Bounds(3, 3, 3))
    assert "\n" not in str(info.value)
    # the rule on the cycle is named, not the start rule that merely uses it
    with pytest.raises(GrammarLoadError, match="rule 'x' cannot terminate"):
        BoundedGenerator(load_grammar('start: x\nx: "a" y | "b" y\ny: "(" x ")"\n'), Bounds(1, 1, 1))
    with pytest.raises(GrammarLoadError, match="rule 'start' cannot terminate"):
        BoundedGenerator(load_grammar('start: start "a"\n'), Bounds(1, 1, 1))
    # an unproductive rule that the start rule never reaches is no obstacle
    gen = BoundedGenerator(load_grammar('start: "a"\nloop: "(" loop ")"\n'), Bounds(1, 1, 1))
    assert gen.generate(random.Random(0)).text == "a"
