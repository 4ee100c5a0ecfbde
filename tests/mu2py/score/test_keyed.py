"""An import-time mutant that changes a few entries of a module-level dict is judged only by the tests that read one
of those keys, or that use the dict otherwise (`keyed`): the same statuses as a fresh interpreter per mutant, with
fewer tests run."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from mu2py.score import keyed
from tests.mu2py.score.conftest import reload_and_fresh, write_tree

TABLE = {"a": 1, "b": 2, "zz": 3}


def _reads(kind: str, default: str) -> Any:
    x = kind
    return TABLE[x], TABLE["b"], TABLE.get(x, TABLE["a"]), TABLE.get(default), "zz" in TABLE, x not in TABLE


def _lookups(names: str) -> list[int]:
    return [TABLE[n] for n in names.split(",")]


def _opaque() -> Any:
    return len(TABLE), [TABLE.get], {**TABLE}


def _write() -> None:
    TABLE["a"] = 1  # a write is no read by key: opaque


NAMES = frozenset({"TABLE"})


def test_reads_by_a_constant_or_a_variable_key_are_sites_and_anything_else_is_opaque() -> None:
    found = keyed.sites(_reads.__code__, NAMES)
    assert found.opaque == frozenset() and found.consts == {"TABLE": frozenset({"a", "b", "zz"})}
    assert sorted(found.variables.values()) == [("TABLE", "default"), ("TABLE", "x"), ("TABLE", "x"), ("TABLE", "x")]
    assert keyed.sites(_opaque.__code__, NAMES).opaque == NAMES
    assert keyed.sites(_write.__code__, NAMES).opaque == NAMES
    assert keyed.sites(_opaque.__code__, frozenset({"OTHER"})) == keyed.Sites()


def _traced(function: Any, *args: Any) -> dict[str, Any]:
    """The keys `function(*args)` reads under TABLE, recorded by an opcode trace as `units._recording` does on 3.11."""
    record = keyed.KeyRecord(NAMES)

    def opcode(frame: Any, event: str, arg: Any) -> Any:
        if event == "opcode":
            record.at(frame.f_code, frame.f_lasti, frame)
        return opcode

    def call(frame: Any, event: str, arg: Any) -> Any:
        if frame.f_code.co_filename == __file__ and frame.f_code.co_name != "_traced":
            if record.ran(frame.f_code):
                frame.f_trace, frame.f_trace_lines, frame.f_trace_opcodes = opcode, False, True
                return opcode
        return None

    sys.settrace(call)
    try:
        function(*args)
    finally:
        sys.settrace(None)
    return record.take()


def test_the_keys_a_run_reads_are_recorded() -> None:
    # the variable keys as they were when read (the generator's `n` on each turn), and every constant key
    assert _traced(_lookups, "zz,a") == {"TABLE": frozenset({"zz", "a"})}
    assert _traced(_reads, "zz", "q") == {"TABLE": frozenset({"a", "b", "zz", "q"})}
    assert _traced(_opaque) == {"TABLE": keyed.ALL}


def test_a_dict_changed_at_some_keys_and_a_test_that_reads_them() -> None:
    same = lambda a, b: a == b  # noqa: E731 - the equivalence `merge.Reload.equivalent` stands for here
    assert keyed.changed_keys({"a": 1, "b": 2}, {"a": 1, "b": 3, "c": 0}, same) == {"b", "c"}
    assert keyed.changed_keys({"a": 1}, [("a", 1)], same) is None
    assert keyed.changed_keys({object(): 1}, {}, same) is None  # a key of a class of its own: any read may match it
    changed = {"TABLE": frozenset({"b"})}
    assert keyed.reads_changed({"TABLE": frozenset({"b", "q"})}, changed)
    assert not keyed.reads_changed({"TABLE": frozenset({"a"}), "OTHER": keyed.ALL}, changed)
    assert keyed.reads_changed({"TABLE": keyed.ALL}, changed)


FORMATS = '''SEPARATORS = {
    "csv": ",",
    "tsv": "\\t",
    "pipe": "|",
    "semi": ";",
}
WIDTHS = {"narrow": 4, "wide": 12}


def join(kind, cells):
    return SEPARATORS[kind].join(cells)


def width(name):
    return WIDTHS.get(name, WIDTHS["narrow"])


def known(kind):
    return kind in SEPARATORS


def kinds():
    return sorted(SEPARATORS)
'''
TEST_FORMATS = '''from tables.formats import SEPARATORS, join, known, width


def test_csv():
    assert join("csv", ["a", "b"]) == "a,b"


def test_tsv():
    assert join("tsv", ["a", "b"]) == "a\\tb"


def test_wide():
    assert width("wide") == 12


def test_default_width():
    assert width("other") == 4


def test_known():
    assert known("pipe") and not known("xml")


def test_pipe_constant():
    assert SEPARATORS["pipe"] == "|"
'''
TEST_KINDS = '''from tables.formats import kinds


def test_kinds():
    assert "semi" in kinds()
'''


def test_a_table_entry_s_mutant_is_judged_by_the_tests_that_read_its_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_tree(tmp_path, {"tables/__init__.py": "", "tables/formats.py": FORMATS,
                          "tests/test_formats.py": TEST_FORMATS, "tests/test_kinds.py": TEST_KINDS})
    reloaded, _ = reload_and_fresh(tmp_path, "tables", capsys)  # the same status for every mutant, both ways

    def entry(line: int, mutated: str) -> dict[str, Any]:
        return next(m for m in reloaded.values() if m["line"] == line and m["mutated"] == mutated and m["at_import"])

    # ";" -> "XX;XX": no test reads "semi"; test_kinds sorts the whole table (opaque) and sees no value: it alone runs
    semi = entry(5, '"XX;XX"')
    assert (semi["status"], semi["tests_run"]) == ("survived", 1)
    # the key "semi" renamed: the five tests before test_kinds read other keys, and do not run
    renamed = entry(5, '"XXsemiXX"')
    assert (renamed["status"], renamed["killed_by"], renamed["tests_run"]) == (
        "killed", "tests/test_kinds.py::test_kinds", 1)
    # "|" changed: test_known reads "pipe" (membership, by a variable) and passes, test_pipe_constant fails
    pipe = entry(4, '"XX|XX"')
    assert (pipe["killed_by"], pipe["tests_run"]) == ("tests/test_formats.py::test_pipe_constant", 2)
    # the default width: `WIDTHS["narrow"]` is read by every call of width(), so test_wide judges it too
    narrow = entry(7, "5")
    assert (narrow["killed_by"], narrow["tests_run"]) == ("tests/test_formats.py::test_default_width", 2)


CLI = '''import sys

from tables.formats import join

if __name__ == "__main__":
    print(join(sys.argv[1], sys.argv[2:]))
'''
TEST_CLI = '''import subprocess
import sys


def run(*args):
    return subprocess.run([sys.executable, "-m", "tables.cli", *args], capture_output=True, text=True,
                          check=True).stdout.strip()


def test_cli_csv():
    assert run("csv", "a", "b") == "a,b"


def test_cli_pipe():
    assert run("pipe", "a", "b") == "a|b"
'''


def test_a_table_entry_s_mutant_runs_the_tests_whose_children_read_its_key(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the children of test_cli.py read SEPARATORS by a variable key (`join`): "csv" in one, "pipe" in the other
    write_tree(tmp_path, {"tables/__init__.py": "", "tables/formats.py": FORMATS, "tables/cli.py": CLI,
                          "tests/test_cli.py": TEST_CLI, "tests/test_kinds.py": TEST_KINDS})
    reloaded, _ = reload_and_fresh(tmp_path, "tables", capsys)  # the same status for every mutant, both ways

    def entry(line: int, mutated: str) -> dict[str, Any]:
        return next(m for m in reloaded.values() if m["line"] == line and m["mutated"] == mutated and m["at_import"])

    # "," changed: test_kinds sees no value and passes; test_cli_csv's child reads "csv" and fails; the pipe one
    # does not run
    csv = entry(2, '"XX,XX"')
    assert (csv["status"], csv["killed_by"], csv["tests_run"]) == ("killed", "tests/test_cli.py::test_cli_csv", 2)
    # ";" changed: no child reads "semi", so test_kinds alone judges it (both CLI tests ran before children's keys
    # were recorded)
    semi = entry(5, '"XX;XX"')
    assert (semi["status"], semi["tests_run"]) == ("survived", 1)
    # `if __name__ == "XX__main__XX":` computes alike here (False, as before) but not in the child running the
    # module as a script: that child's test judges it (it survived without a test before)
    main = next(m for m in reloaded.values() if m["module"] == "tables.cli" and m["mutated"] == '"XX__main__XX"')
    assert (main["status"], main["killed_by"]) == ("killed", "tests/test_cli.py::test_cli_csv")
