"""A module whose import-time code read a mutated module's values is re-run in place after it, as a fresh import
would (rfc3986's misc.py compiles its regexes from abnf_regexp's strings): no fresh interpreter, same verdicts."""

import importlib
import sys
import types
from pathlib import Path

import pytest

from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place, reload_with_readers
from tests.mu2py.score.conftest import reload_and_fresh, write_tree

ABNF = '''WORD = "ab"
DIGITS = "[0-9]+"
WORD_RE = "(?:" + WORD + ")"
SPARE = "z"
'''

MISC = '''import re

from apkg import abnf

WORD_MATCHER = re.compile("^" + abnf.WORD_RE + "$")
NUMBER_MATCHER = re.compile("^" + abnf.DIGITS + "$")
SPARE_MATCHER = re.compile(abnf.SPARE)  # no test uses it: its mutants survive, in place as in a fresh run
Default = object()


def is_word(text, flag=Default):
    return bool(WORD_MATCHER.match(text)) and flag is Default
'''

USER = '''from apkg import misc
from apkg.misc import WORD_MATCHER

NUMBER_PATTERN = misc.NUMBER_MATCHER.pattern


def number(text):
    return bool(misc.NUMBER_MATCHER.match(text))


def word(text):
    return bool(WORD_MATCHER.match(text))
'''

TESTS = '''from apkg import misc, user


def test_word():
    assert misc.is_word("ab") and not misc.is_word("abab") and user.word("ab")


def test_number():
    assert user.number("12") and not user.number("x") and user.NUMBER_PATTERN == "^[0-9]+$"
'''

FILES = {"apkg/__init__.py": "", "apkg/abnf.py": ABNF, "apkg/misc.py": MISC, "apkg/user.py": USER,
         "tests/test_apkg.py": TESTS}


def _write(root: Path) -> None:
    write_tree(root, FILES)


@pytest.fixture
def pkg(tmp_path):
    _write(tmp_path)
    sys.path.insert(0, str(tmp_path))
    names = ("abnf", "misc", "user")
    try:
        modules = {f"apkg.{n}": importlib.import_module(f"apkg.{n}") for n in names}
        graph = ImportGraph([module_facts(f"apkg.{n}", FILES[f"apkg/{n}.py"]) for n in names])
        originals = {name: compile(FILES[f"apkg/{name.split('.')[1]}.py"], m.__file__, "exec")
                     for name, m in modules.items()}
        yield types.SimpleNamespace(modules=modules, graph=graph, originals=originals,
                                    **{n: modules[f"apkg.{n}"] for n in names})
    finally:
        sys.path.remove(str(tmp_path))
        for name in (*(f"apkg.{n}" for n in names), "apkg"):
            sys.modules.pop(name, None)


def _state(pkg):
    """Identities only: a test holding an original would itself be a holder the reload doubts about."""
    return tuple(map(id, (pkg.misc.WORD_MATCHER, pkg.misc.NUMBER_MATCHER, pkg.misc.Default, pkg.misc.is_word,
            pkg.misc.is_word.__defaults__, pkg.user.WORD_MATCHER, pkg.user.NUMBER_PATTERN, pkg.abnf.WORD_RE)))


def _code(pkg, source):
    return compile(source, pkg.abnf.__file__, "exec")


def test_the_module_that_read_the_mutant_at_import_is_re_run_after_it(pkg):
    before = _state(pkg)
    mutated = _code(pkg, ABNF.replace('WORD = "ab"', 'WORD = "XXabXX"'))
    alone = reload_in_place(pkg.abnf, mutated, pkg.graph, pkg.modules, ran_at_import=set())
    try:
        # the reload alone leaves misc's regexes compiled from the original: a doubt, the fresh interpreter decides
        assert any("apkg.misc reads WORD_RE" in d for d in alone.doubts) and pkg.misc.is_word("ab")
    finally:
        alone.restore()
    reloads = reload_with_readers(pkg.abnf, mutated, pkg.graph, pkg.modules, pkg.originals, ran_at_import=set())
    try:
        assert reloads.doubts == []
        assert pkg.misc.is_word("XXabXX") and not pkg.misc.is_word("ab")
        assert pkg.user.word("XXabXX")  # `from apkg.misc import WORD_MATCHER` rebound too
        assert pkg.misc.is_word.__defaults__ == (pkg.misc.Default,) and id(pkg.misc.Default) == before[2]
        assert reloads.observed_by(pkg.user.word.__code__) and reloads.observed_by(pkg.misc.is_word.__code__)
        assert not reloads.observed_by(pkg.user.number.__code__)
    finally:
        reloads.restore()
    assert _state(pkg) == before and pkg.misc.is_word("ab")


def test_readers_of_readers_are_re_run_in_turn(pkg):
    before = _state(pkg)
    mutated = _code(pkg, ABNF.replace('DIGITS = "[0-9]+"', 'DIGITS = "[0-8]+"'))
    reloads = reload_with_readers(pkg.abnf, mutated, pkg.graph, pkg.modules, pkg.originals, ran_at_import=set())
    try:
        # user computed NUMBER_PATTERN from misc's matcher at import: it is re-run after misc
        assert reloads.doubts == [] and [r.module.__name__ for r in reloads.records] == ["apkg.abnf", "apkg.misc",
                                                                                          "apkg.user"]
        assert pkg.user.NUMBER_PATTERN == "^[0-8]+$" and not pkg.user.number("9")
    finally:
        reloads.restore()
    assert _state(pkg) == before and pkg.user.number("9")
    reloads.restore()  # a second restore changes nothing
    assert _state(pkg) == before


def test_a_reader_that_cannot_be_re_run_leaves_the_doubt(pkg):
    mutated = _code(pkg, ABNF.replace('DIGITS = "[0-9]+"', 'DIGITS = "[0-8]+"'))
    originals = {k: v for k, v in pkg.originals.items() if k != "apkg.user"}  # like a test module: not re-run
    reloads = reload_with_readers(pkg.abnf, mutated, pkg.graph, pkg.modules, originals, ran_at_import=set())
    try:
        assert any("apkg.user reads NUMBER_MATCHER" in d for d in reloads.doubts)
    finally:
        reloads.restore()
    assert pkg.user.NUMBER_PATTERN == "^[0-9]+$"
    assert reloads.doubts  # still there once the modules are put back: the caller reads them after the tests ran


def test_a_reader_whose_body_raises_restores_everything(pkg):
    before = _state(pkg)
    mutated = _code(pkg, ABNF.replace('DIGITS = "[0-9]+"', 'DIGITS = "[0-9"'))  # misc's re.compile fails
    with pytest.raises(Exception, match="unterminated character set"):
        reload_with_readers(pkg.abnf, mutated, pkg.graph, pkg.modules, pkg.originals, ran_at_import=set())
    assert _state(pkg) == before and pkg.abnf.DIGITS == "[0-9]+"


def test_mutants_read_at_import_are_judged_in_place_as_in_a_fresh_interpreter(tmp_path, capsys):
    """Every import-time mutant of abnf.py whose body does not raise runs in place, with the verdict a fresh
    interpreter gives (misc.py and user.py are under test too: only their original bodies are re-run)."""
    _write(tmp_path)
    reloaded, _ = reload_and_fresh(tmp_path, "apkg", capsys)
    abnf = [m for m in reloaded.values()
            if m["module"] == "apkg.abnf" and "raised" not in (m["isolated_because"] or "")]
    assert {m["status"] for m in abnf} == {"killed", "survived"}
    assert len(abnf) >= 6 and all(m["mode"] == "reexec" for m in abnf), [m for m in abnf if m["mode"] != "reexec"]


EARLY = '''from apkg import abnf, misc

PAIR = (abnf.DIGITS, misc.NUMBER_MATCHER.pattern)
'''


def test_a_reader_re_run_before_a_module_it_reads_from_leaves_the_doubt(pkg, tmp_path):
    """`early` reads abnf and misc at import and sorts first: re-run before misc, it holds misc's old pattern."""
    before = _state(pkg)
    (tmp_path / "apkg" / "early.py").write_text(EARLY)
    early = importlib.import_module("apkg.early")
    try:
        modules = {**pkg.modules, "apkg.early": early}
        graph = ImportGraph([*pkg.graph.facts.values(), module_facts("apkg.early", EARLY)])
        originals = {**pkg.originals, "apkg.early": compile(EARLY, early.__file__, "exec")}
        mutated = _code(pkg, ABNF.replace('DIGITS = "[0-9]+"', 'DIGITS = "[0-8]+"'))
        reloads = reload_with_readers(pkg.abnf, mutated, graph, modules, originals, ran_at_import=set())
        try:
            assert [r.module.__name__ for r in reloads.records][:3] == ["apkg.abnf", "apkg.early", "apkg.misc"]
            assert early.PAIR == ("[0-8]+", "^[0-9]+$")  # what no fresh import computes: the doubt must stay
            assert any("reads NUMBER_MATCHER" in d for d in reloads.doubts), reloads.doubts
        finally:
            reloads.restore()
        assert early.PAIR == ("[0-9]+", "^[0-9]+$") and _state(pkg) == before
    finally:
        sys.modules.pop("apkg.early", None)
