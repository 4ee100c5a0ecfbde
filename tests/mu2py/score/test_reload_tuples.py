"""A table of named tuples holding the module's functions (tabulate's `_table_formats`) is carried over by a re-run
body: each re-created tuple is rebuilt around the original functions, as the original class, not a doubt that
sends the mutant to a fresh interpreter."""

from mu2py.score.imports import ImportGraph, module_facts
from mu2py.score.reload import reload_in_place
from tests.mu2py.score.conftest import one_module_package

FORMATS = '''from collections import namedtuple

Line = namedtuple("Line", ["begin", "sep", "end"])
Format = namedtuple("Format", ["above", "row", "padding"])


def colons(widths):
    return "|" + "|".join(":" + "-" * w for w in widths) + "|"


FORMATS = {
    "plain": Format(above=None, row=Line("", "  ", ""), padding=0),
    "pipe": Format(above=colons, row=Line("|", "|", "|"), padding=1),
}
PAIRS = [(colons, 1)]
ORDER = (colons, "pipe")


def render(name, widths):
    fmt = FORMATS[name]
    return fmt.above(widths) if fmt.above else fmt.row.sep.join("x" * w for w in widths)
'''


def _reloaded(tmp_path, line, original, mutated, check):
    with one_module_package(tmp_path, "tpkg", "formats", FORMATS) as (module, _, program):
        m = next(m for m in program.mutants if m.line == line and m.original == original and m.mutated == mutated)
        colons, format_class = module.colons, module.Format
        reload = reload_in_place(module, compile(program.mutant_source(m.id), m.file, "exec"),
                                 ImportGraph([module_facts("tpkg.formats", FORMATS)]), {"tpkg.formats": module},
                                 ran_at_import=set())
        try:
            check(module, colons, format_class)
            return list(reload.doubts)
        finally:
            reload.restore()
            assert module.render("pipe", [2]) == "|:--|" and module.FORMATS["plain"].padding == 0


def test_named_tuples_in_a_table_hold_the_original_functions_and_class(tmp_path):
    def check(module, colons, format_class):
        pipe = module.FORMATS["pipe"]
        assert module.FORMATS["plain"].padding == 1  # the mutant's table
        assert pipe.above is colons and type(pipe) is format_class and type(pipe.row) is module.Line
        assert module.PAIRS[0][0] is colons  # a plain tuple in a list, too
        assert module.render("pipe", [2]) == "|:--|"

    assert _reloaded(tmp_path, 12, "0", "1", check) == []


def test_a_tuple_bound_to_a_name_is_still_a_doubt(tmp_path):
    # `ORDER = (colons, "pipe")` re-created holds the re-created function, and a name, not a container, holds it
    assert any("re-created tuple" in d for d in _reloaded(tmp_path, 16, '"pipe"', '"XXpipeXX"', lambda *_: None))
