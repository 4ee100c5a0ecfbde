"""`bonsai.source`: a grammar as a mu2py driver's input source, built once per grammar file and settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import bonsai
import mu2py
from bonsai.grammar import load_grammar
from mu2py.errors import UserError

ROOT = Path(__file__).resolve().parents[2]
INI = ROOT / "grammars" / "ini.lark"


def test_the_same_grammar_and_settings_give_the_same_generator(tmp_path: Path) -> None:
    """A driver module runs afresh for every mutant copy: the grammar is loaded once, not per copy."""
    first = bonsai.source(INI, bounds="2,2,3")
    assert bonsai.source(str(INI), bounds=(2, 2, 3)) is first
    assert bonsai.source(INI, bounds="2,2,2") is not first
    copy = tmp_path / "ini.lark"
    copy.write_text(INI.read_text())
    mine = bonsai.source(copy, bounds="2,2,3")
    assert mine is not first
    copy.write_text(INI.read_text() + "\n// edited\n")
    os.utime(copy, ns=(copy.stat().st_atime_ns, copy.stat().st_mtime_ns + 10**9))
    assert bonsai.source(copy, bounds="2,2,3") is not mine  # an edited grammar is read again


def test_bad_grammars_are_one_line_errors(tmp_path: Path) -> None:
    """A missing file and a grammar lark rejects are `UserError`s of one line, as on the command line."""
    with pytest.raises(UserError, match="cannot read grammar") as missing:
        bonsai.source(tmp_path / "none.lark")
    bad = tmp_path / "bad.lark"
    bad.write_text("start: undefined_rule\n")
    with pytest.raises(UserError) as broken:
        bonsai.source(bad)
    assert "\n" not in str(missing.value) and "\n" not in str(broken.value)
    with pytest.raises(UserError):
        bonsai.source(INI, bounds="0,2,2")


READER = '''
def sections(text):
    names = []
    for line in text.splitlines():
        if line.startswith("[") and line.endswith("]"):
            names.append(line[1:-1])
    return names
'''

DRIVER = f'''
import bonsai
from mu2py import driver
from gsrc_pkg import reader


@driver(bonsai.source({str(INI)!r}, bounds="2,2,2"), targets=["gsrc_pkg.reader"])
def run(text):
    return reader.sections(text)
'''


def test_fuzz_draws_grammar_texts_and_kills(tmp_path: Path, monkeypatch) -> None:
    """End to end: `mu2py fuzz` on a driver whose source is a grammar keeps texts the grammar parses and kills."""
    package = tmp_path / "gsrc_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "reader.py").write_text(READER)
    (package / "drivers.py").write_text(DRIVER)
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = mu2py.fuzz("gsrc_pkg.drivers:run", trials=40, seed=0, out=tmp_path / "out")
    finally:
        for name in [n for n in sys.modules if n.startswith("gsrc_pkg")]:
            del sys.modules[name]
    grammar = load_grammar(str(INI))
    # a corpus .txt is the rendering and a newline: for a grammar source the rendering is the text itself
    texts = [p.read_text()[:-1] for p in sorted((tmp_path / "out" / "corpus").glob("*.txt"))]
    assert texts and len(texts) == len(result.corpus)
    for text in texts:
        grammar.parse(text)  # every kept input is a text of the grammar
    assert result.report is not None and result.report["summary"]["killed"] > 0
