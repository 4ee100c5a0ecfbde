"""Import-time facts: `from M import X` bindings through re-exports, and reads at import time."""

from mu2py.score.imports import ImportGraph, module_facts

CONSTANTS = "WIDTH = 80\nSEP = '-'\n_PRIVATE = 1\n"
PACKAGE_INIT = "from .constants import WIDTH\nfrom pkg.constants import SEP as SEPARATOR\n"
USER = '''
import pkg.constants as c
from pkg import WIDTH, SEPARATOR
from pkg.constants import *


def pad(text, width=WIDTH):
    return text.ljust(width)


def join(a, b):
    return f"{a}{SEPARATOR}{b}{SEP}"


class Box:
    limit = c.WIDTH * 2

    def method(self):
        return _PRIVATE
'''
NESTED = "from ..constants import SEP\n"


def _graph():
    return ImportGraph([
        module_facts("pkg.constants", CONSTANTS),
        module_facts("pkg", PACKAGE_INIT, is_package=True),
        module_facts("app.user", USER),
        module_facts("pkg.sub.nested", NESTED),
    ])


def test_relative_imports_and_aliases_resolve_to_their_origin():
    graph = _graph()
    assert graph.origin("pkg", "WIDTH") == ("pkg.constants", "WIDTH")
    assert graph.origin("app.user", "SEPARATOR") == ("pkg.constants", "SEP")
    assert graph.origin("app.user", "SEP") == ("pkg.constants", "SEP")  # through the star import
    assert graph.origin("pkg.sub.nested", "SEP") == ("pkg.constants", "SEP")


def test_bindings_of_a_name_follow_re_exports():
    graph = _graph()
    assert sorted(graph.bindings_of("pkg.constants", "SEP")) == [
        ("app.user", "SEP"), ("app.user", "SEPARATOR"), ("pkg", "SEPARATOR"), ("pkg.sub.nested", "SEP")]
    assert ("app.user", "_PRIVATE") not in graph.bindings_of("pkg.constants", "_PRIVATE")  # star skips private names


def test_reads_at_import_time_exclude_function_bodies():
    graph = _graph()
    assert graph.read_at_import("pkg.constants", "WIDTH") == "app.user"  # a default value and `c.WIDTH`
    assert graph.read_at_import("pkg.constants", "SEP") is None  # read only inside a function body
    facts = module_facts("app.user", USER)
    assert "SEPARATOR" not in facts.loads and "WIDTH" in facts.loads and "WIDTH" in facts.attrs


def test_unparsable_source_has_no_facts():
    facts = module_facts("broken", "def (:\n")
    assert not facts.bindings and not facts.loads
