"""Every sample of lark's bundled grammars parses with the grammar's own parser (what `sample --check` asks)."""

import pytest

from bonsai.bounds import Bounds
from bonsai.grammar import load_grammar
from bonsai.validity import bundled_grammars, check_samples

BUNDLED = bundled_grammars()
SAMPLES = 300


def test_bundled_grammars_with_rules_are_found():
    names = {path.name: start for path, start in BUNDLED}
    # common.lark and unicode.lark are terminal libraries: nothing to sample
    assert names["python.lark"] == "file_input" and names["lark.lark"] == "start"
    assert "common.lark" not in names


@pytest.mark.parametrize(("path", "start"), BUNDLED, ids=[path.name for path, _ in BUNDLED])
@pytest.mark.parametrize("bounds", [Bounds(2, 2, 2), Bounds(3, 3, 3)], ids=str)
def test_every_sample_of_a_bundled_grammar_parses(path, start, bounds):
    result = check_samples(load_grammar(path, start=start), bounds, SAMPLES, seed=7)
    assert result.samples == SAMPLES
    assert result.rejected == 0, result.examples


def test_a_rejected_sample_is_counted_and_kept():
    # the grammar bonsai samples is not the one the parser checks: "b" parses, "a" does not
    grammar = load_grammar('start: "a" | "b"\n')
    grammar._parsers["start"] = load_grammar('start: "b"\n').parser()
    result = check_samples(grammar, Bounds(1, 1, 1), 40, seed=0, keep=1)
    assert 0 < result.rejected < 40 and result.examples == ["a"]
    assert "rejected by the grammar's parser" in result.line()
