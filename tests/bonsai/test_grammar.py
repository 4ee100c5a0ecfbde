"""The lark adapter: reading grammars (imports, templates, modifiers, literals, ranges) into the model."""

import random
from pathlib import Path

import pytest
from lark import Lark

from bonsai.bounds import Bounds
from bonsai.ebnf import REPEAT
from bonsai.generator import BoundedGenerator
from bonsai.grammar import GrammarLoadError, default_is_ident, load_grammar
from bonsai.identifiers import identifier_like
from bonsai.tree import Token

GRAMMARS = Path(__file__).resolve().parents[2] / "grammars"

FEATURES = r"""
start: item+ ("," pair)* [flag] num~2..3 fixed sep{word} _inl
?pair: NAME "=" num -> assign
!flag: "a".."c" | "if"i
sep{x}: x (";" x)*
word: WORD | NAME
_inl: "end"
num: /[0-9]+/ | NUMBER
fixed: "q" ~ 3
item: "k"? "!"
WORD: ("ab" | "cd")+ "x"~2
%import common.CNAME -> NAME
%import common.NUMBER
%import common.WS
%ignore WS
%declare _UNUSED
"""


def _all_items(alts):
    for seq in alts.seqs:
        for item in seq:
            yield item
            if item.kind == REPEAT:
                yield from _all_items(item.body)


def test_reads_rules_templates_and_repetitions():
    g = load_grammar(FEATURES)
    assert g.start == "start"
    assert "sep{word}" in g.rules  # the template is instantiated once for its argument
    assert {"start", "pair", "flag", "word", "_inl", "num", "fixed", "item"} <= set(g.rule_names())
    reps = [(i.lo, i.hi) for i in _all_items(g.rules["start"].alts) if i.kind == REPEAT]
    assert (1, None) in reps and (0, None) in reps and (0, 1) in reps and (2, 3) in reps
    assert g.rules["pair"].alts.aliases == ("assign",)
    assert g.terminals["NAME"].kind == "ident"
    assert g.terminals["NUMBER"].kind == "regex"
    assert g.terminals["WORD"].kind == "regex"
    # anonymous literals carry lark's own token names
    assert g.terminals["COMMA"].text == ","
    assert g.is_keyword("end") and g.is_keyword("IF") and not g.is_keyword("abc")
    assert g.space == " "
    assert g.indenter is None


def test_feature_grammar_generates_parsable_text():
    g = load_grammar(FEATURES)
    parser = g.parser()
    for bounds in (Bounds(1, 1, 1), Bounds(2, 3, 2)):
        gen = BoundedGenerator(g, bounds)
        rng = random.Random(7)
        for _ in range(100):
            sample = gen.generate(rng)
            parser.parse(sample.text)
            assert sample.text.count("q") >= 3  # `"q" ~ 3` is fixed by the grammar


def test_accepts_lark_object_and_path(tmp_path):
    path = tmp_path / "g.lark"
    path.write_text('start: "x" NAME\n%import common.CNAME -> NAME\n%ignore " "\n')
    from_path = load_grammar(path)
    from_obj = load_grammar(Lark.open(str(path), parser="lalr"))
    assert set(from_path.rules) == set(from_obj.rules) == {"start"}
    assert from_obj.parser() is not None
    assert from_path.parse("x a") is not None


def test_relative_import_next_to_grammar(tmp_path):
    (tmp_path / "base.lark").write_text("WORDY: /[a-z]+/\n")
    path = tmp_path / "main.lark"
    path.write_text('start: WORDY ("," WORDY)*\n%import .base.WORDY\n')
    g = load_grammar(path)
    gen = BoundedGenerator(g, Bounds(2, 2, 2))
    rng = random.Random(0)
    for _ in range(20):
        g.parse(gen.generate(rng).text)


def test_indenter_detected_for_indent_grammar():
    g = load_grammar(GRAMMARS / "indent.lark")
    assert g.indenter is not None
    assert (g.indenter.newline, g.indenter.indent, g.indenter.dedent) == ("_NEWLINE", "_INDENT", "_DEDENT")
    assert "LPAR" in g.indenter.open_parens
    assert load_grammar(GRAMMARS / "json.lark").indenter is None


def test_start_rule_choice():
    g = load_grammar(GRAMMARS / "json.lark", start="pair")
    assert g.start == "pair"
    assert g.with_start("array").start == "array"
    with pytest.raises(GrammarLoadError, match="unknown start rule"):
        g.with_start("nope")
    with pytest.raises(GrammarLoadError, match="unknown start rule 'nope'"):
        load_grammar(GRAMMARS / "json.lark", start="nope")


def test_errors_are_one_line(tmp_path):
    with pytest.raises(GrammarLoadError, match="not found"):
        load_grammar(tmp_path / "missing.lark")
    bad = tmp_path / "bad.lark"
    bad.write_text('start: "a" b\nb: ::\n')
    with pytest.raises(GrammarLoadError) as info:
        load_grammar(bad)
    assert "\n" not in str(info.value)
    undefined = tmp_path / "undef.lark"
    undefined.write_text("start: nothing\n")
    with pytest.raises(GrammarLoadError, match="nothing"):
        load_grammar(undefined)


def test_identifier_predicate():
    for name in ("NAME", "ID", "IDENTIFIER", "CNAME", "IDSTRING", "VAR_NAME", "MY_IDENT"):
        assert default_is_ident(name)
    for name in ("NUMBER", "STRING", "_INDENT", "_DEDENT", "WS"):
        assert not default_is_ident(name)
    g = load_grammar(FEATURES, is_ident=["WORD"])
    assert g.terminals["WORD"].kind == "ident" and g.terminals["NAME"].kind == "regex"


@pytest.mark.parametrize("regex", [
    r"[a-z_][a-z_0-9]*", r"_?[a-z][_a-z0-9]*", r"_?[A-Z][_A-Z0-9]*", r"!?[_?]?[a-z][_a-z0-9]*", r"[^\W\d]\w*",
    r"(?:(?:[A-Z]|[a-z])|_)(?:(?:(?:[A-Z]|[a-z])|[0-9]|_))*", r"(?i:[a-z]+)", r"(?!if\b)[a-z]+", r"[a-z]{2,}",
])
def test_identifier_like_regexes(regex):
    assert identifier_like(regex)


@pytest.mark.parametrize("regex", [
    r"[0-9]+", r"[0-9a-f]+", r"\w+", r'"[^"]*"', r"[a-z][a-z-]*", r"if|else|while", r"[a-z]", r"[a-z]{1,8}",
    r"(?:ab|cd)+xx", r"[+*]|[?](?![a-z])", r"_+", r"[0-9]*[a-z]\w*", r'"[a-zA-Z_][a-zA-Z0-9_]*"', r".*", r"(",
])
def test_not_identifier_like_regexes(regex):
    assert not identifier_like(regex)


def _tokens(tree):
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, Token):
            yield node
        else:
            stack.extend(node.children)


def test_identifier_like_terminals_are_bounded_by_default():
    import lark

    path = Path(lark.__file__).parent / "grammars" / "lark.lark"
    g = load_grammar(path)
    # named neither NAME nor IDENT, but identifier-like: RULE /!?[_?]?[a-z][_a-z0-9]*/, TOKEN /_?[A-Z][_A-Z0-9]*/
    assert {n for n, t in g.terminals.items() if t.kind == "ident"} == {"RULE", "TOKEN"}
    assert g.terminals["NUMBER"].kind == g.terminals["STRING"].kind == g.terminals["OP"].kind == "regex"
    parser = g.parser()
    for bounds in (Bounds(2, 2, 2), Bounds(1, 3, 3)):
        gen = BoundedGenerator(g, bounds)
        rng = random.Random(3)
        most = {"RULE": 0, "TOKEN": 0}
        for _ in range(300):
            sample = gen.generate(rng)
            parser.parse(sample.text)
            names: dict[str, set[str]] = {"RULE": set(), "TOKEN": set()}
            for token in _tokens(sample.tree):
                names.get(token.terminal, set()).add(token.text)
            for terminal, seen in names.items():
                most[terminal] = max(most[terminal], len(seen))
        assert most == {"RULE": bounds.idents, "TOKEN": bounds.idents}
    # --idents replaces the rule: only the terminals named are bounded
    chosen = load_grammar(path, is_ident=["TOKEN"])
    assert chosen.terminals["TOKEN"].kind == "ident" and chosen.terminals["RULE"].kind == "regex"
    # an identifier-like regex written in a rule is bounded too
    inline = load_grammar('start: /[a-z]+/ ("," /[a-z]+/)*\n')
    assert [t.kind for t in inline.terminals.values() if t.regex == "[a-z]+"] == ["ident"]


def test_lalr_conflicts_get_a_second_opinion_from_earley():
    import lark
    from lark.exceptions import LarkError

    g = load_grammar(Path(lark.__file__).parent / "grammars" / "python.lark", start="file_input")
    # python.lark's LALR table resolves shift/reduce conflicts on COMMA by shifting: it rejects these valid
    # class patterns, which the grammar (and Python) accept
    for text in ("match a:\n    case b(c, d=e):pass\n", "match a:\n    case b(c,):pass\n"):
        with pytest.raises(LarkError):
            g.parser().parse(text)
        assert g.parse(text) is not None
    with pytest.raises(LarkError, match="Unexpected token"):
        g.parse("match a:\n    case b(c d):pass\n")  # Earley rejects it too: LALR's error is raised
    json_grammar = load_grammar(GRAMMARS / "json.lark")
    with pytest.raises(LarkError):
        json_grammar.parse("[1,]")
    assert not json_grammar._conflicted and not json_grammar._fallbacks  # conflict-free: LALR's word is final


def test_needs_space_between_word_tokens_only():
    g = load_grammar(GRAMMARS / "expr.lark")
    assert g.needs_space("let", "a")
    assert g.needs_space("1", "2")
    assert not g.needs_space("a", "=")
    assert not g.needs_space("(", "a")
    assert g.needs_space("<", "=")  # "<" "=" would lex as "<="


def test_a_lookahead_in_the_left_token_keeps_a_space(tmp_path):
    # lark's Python STRING holds a (?!"") lookahead: an empty string then "a", joined, opens a triple-quoted one
    path = tmp_path / "strs.lark"
    path.write_text('start: STR STR\nSTR: /"(?!"")[a-z]?"/\n%ignore " "\n')
    g = load_grammar(path)
    assert g.needs_space('""', '"a"')
    assert not g.needs_space('"a"', '"b"')
    parser = g.parser()
    gen = BoundedGenerator(g, Bounds(2, 2, 2))
    rng = random.Random(3)
    texts = [gen.generate(rng).text for _ in range(200)]
    assert any(t.startswith('"" ') for t in texts)  # the case that joined into one bad token
    for text in texts:
        parser.parse(text)


def test_bad_terminal_regex_empty_grammar_and_directory(tmp_path):
    bad = tmp_path / "re.lark"
    bad.write_text("start: A\nA: /[/\n")
    with pytest.raises(GrammarLoadError, match=r"terminal A has an invalid regular expression /\[/: unterminated"):
        load_grammar(bad)
    with pytest.raises(GrammarLoadError, match="invalid regular expression"):
        load_grammar('start: "a"\n%ignore /(/\n')
    with pytest.raises(GrammarLoadError, match="defines no rules"):
        load_grammar("// nothing\n")
    with pytest.raises(GrammarLoadError, match="is a directory"):
        load_grammar(tmp_path)


def test_syntax_error_carries_larks_message_and_location(tmp_path):
    bad = tmp_path / "bad.lark"
    bad.write_text('start: "a" b\nb: ::\n')
    with pytest.raises(GrammarLoadError, match=r"bad\.lark: Expecting a value, at line 2 column 4"):
        load_grammar(bad)
