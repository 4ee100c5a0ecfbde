"""ChocoPy as a bonsai and mu2py workload: bounded samples parse and type-check, mutant copies share one parser."""

import gc
import weakref
from pathlib import Path

import pytest

import grammars
from bonsai.cli import main, split_inputs
from bonsai.lattice import function_target
from mu2py.mutants.loader import build_copies, compile_module
from targets.chocopy.driver import ChocoPySyntaxError, typecheck
from targets.chocopy.parser import get_lark, parse

GRAMMAR = str(Path(__file__).resolve().parents[2] / "grammars" / "chocopy.lark")
SEEDS = (0, 1, 2)
COUNT = 150


def sample(capsys, bounds, seed, count=COUNT):
    code = main(["sample", GRAMMAR, "--bounds", bounds, "--count", str(count), "--seed", str(seed)])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    inputs = split_inputs(out)
    assert len(inputs) == count
    return inputs


def well_typed_share(programs):
    ok = 0
    for src in programs:
        ok += typecheck(src)["errors"]["errors"] == []
    return ok / len(programs)


# ------------------------------------------------------------ `bonsai sample` over the ChocoPy grammar


@pytest.mark.parametrize("bounds", ["1,1,1", "3,3,3"])
def test_bonsai_samples_parse_with_the_chocopy_front_end(capsys, bounds):
    for seed in SEEDS:
        for src in sample(capsys, bounds, seed):
            try:
                parse(src)
                typecheck(src)  # semantic errors are outputs; only a syntax error or a crash fails
            except ChocoPySyntaxError as exc:
                pytest.fail(f"bonsai sample --bounds {bounds} --seed {seed} gave a program that does not parse: "
                            f"{exc.message}\n{src}")


def test_small_bounds_give_more_well_typed_programs(capsys):
    small = [p for seed in SEEDS for p in sample(capsys, "1,1,1", seed)]
    large = [p for seed in SEEDS for p in sample(capsys, "3,3,3", seed)]
    # measured at 150 programs x seeds 0-2: 51% at (1,1,1) (a third of them empty programs), 21% at (3,3,3)
    assert well_typed_share(small) >= 0.4
    assert well_typed_share(small) > well_typed_share(large) + 0.15


@pytest.mark.xfail(reason="with one identifier every name (variable, class, annotation, superclass) is `a`, so any "
                   "declaration is ill-typed; a clear majority needs predefined names in the grammar", strict=False)
def test_clear_majority_well_typed_at_smallest_bounds(capsys):
    small = [p for seed in SEEDS for p in sample(capsys, "1,1,1", seed)]
    assert well_typed_share(small) >= 0.6


# ------------------------------------------------------------ mutant copies share the LALR tables


def _copies(parser_source):
    target = function_target("targets.chocopy.driver:typecheck", None)
    codes = {m.name: compile_module(m) for m in target.copied}
    info = next(m for m in target.modules if m.name == "targets.chocopy.parser")
    codes[info.name] = compile_module(info, parser_source(info.source))
    return build_copies(target, codes)


def test_copies_reuse_the_shared_parser_and_run_their_own_callbacks():
    parse("pass\n")
    before = grammars.shared_lalr.cache_info()
    # a mutant of the parse-tree-to-AST conversion: it must run in the copy, not in the original
    copies = _copies(lambda src: src.replace("value = int(tok.value)", "value = int(tok.value) + 1", 1))
    mutant = copies["targets.chocopy.driver"].typecheck
    assert mutant("1\n")["statements"][0]["expr"]["value"] == 2
    assert typecheck("1\n")["statements"][0]["expr"]["value"] == 1
    after = grammars.shared_lalr.cache_info()
    assert after.misses == before.misses and after.hits > before.hits
    assert copies["targets.chocopy.parser"].get_lark() is get_lark()


def test_shared_parser_keeps_no_copy_alive():
    copies = _copies(lambda src: src)
    copies["targets.chocopy.driver"].typecheck("x:int = 1\nprint(x)\n")
    ref = weakref.ref(copies["targets.chocopy.parser"]._TO_AST)
    del copies
    gc.collect()
    assert ref() is None


def test_copy_lexer_callback_is_its_own():
    # the copy's reserved-word check runs for the copy's parses only
    copies = _copies(lambda src: src.replace("if tok.value in RESERVED:", "if tok.value == 'a':", 1))
    mutant = copies["targets.chocopy.driver"].typecheck
    with pytest.raises(Exception, match="Parse error near token: a"):  # the copy's own ChocoPySyntaxError class
        mutant("a:int = 1\n")
    assert typecheck("a:int = 1\n")["errors"]["errors"] == []


def test_copy_postlexer_is_its_own():
    # the copy's indenter places end-of-file DEDENTs: a mutated column shows in the program's end
    copies = _copies(lambda src: src.replace("k += 1", "k += 2", 1))
    src = "while True:\n    pass\n"
    assert copies["targets.chocopy.parser"].parse(src).to_json()["location"] == [1, 1, 3, 2]
    assert parse(src).to_json()["location"] == [1, 1, 3, 1]


def test_shared_parser_rejects_undeclared_lexer_callbacks():
    shared = grammars.shared_lalr(GRAMMAR, always_accept=("_NEWLINE",), callback_terminals=("ID",),
                                  keep_all_tokens=True, maybe_placeholders=False)
    with pytest.raises(ValueError, match="STRING"):
        shared.parse("pass\n", lexer_callbacks={"STRING": lambda tok: tok})
