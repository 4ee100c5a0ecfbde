"""The operator table: mutmut's operators plus the PIT defaults, with stable ids."""

from mu2py.mutants.catalog import discover
from mu2py.target.modules import modules_target

SOURCE = '''\
LIMIT = 10

class Box:
    size = 3

def f(a, b, flag):
    if a < b and not flag:
        return -a + b % 2
    x = a // b
    x += 1
    if a == b:
        return True
    return x
'''


def _mutants(tmp_path):
    path = tmp_path / "sample.py"
    path.write_text(SOURCE)
    return discover(modules_target(str(path)))[0]


def test_pit_operators_present(tmp_path):
    pairs = {(m.original, m.mutated) for m in _mutants(tmp_path)}
    expected = {
        ("< b", "<= b"),      # conditional boundary
        ("< b", ">= b"),      # negated conditional
        ("== b", "!= b"),
        ("-a + b % 2", "-a - b % 2"),  # arithmetic
        ("b % 2", "b * 2"),
        ("a // b", "a * b"),
        ("x += 1", "x -= 1"),  # augmented assignment
        ("-a", "a"),          # unary negation removed
        ("not flag", "flag"),
        ("a < b and not flag", "a < b or not flag"),
        ("return x", "return None"),
        ("True", "False"),
        ("10", "11"),
        ("10", "9"),          # module level constants are included
        ("3", "4"),           # class bodies too
    }
    assert expected <= pairs, expected - pairs


def test_ids_are_stable_and_unique(tmp_path):
    first = [m.id for m in _mutants(tmp_path)]
    second = [m.id for m in _mutants(tmp_path)]
    assert first == second and len(set(first)) == len(first)


def test_module_level_mutants_are_marked_import_time(tmp_path):
    by_line = {m.line: m for m in _mutants(tmp_path)}
    assert by_line[1].scope == "<module>" and by_line[4].at_import
    assert by_line[7].scope == "f"


def test_multi_line_mutations_in_indented_blocks_have_verified_spans():
    """Splicing the span (cheap) gives the module libcst's rewrite gives; without a span a mutant's payload
    re-generated the whole module (a third of a second each on urllib.parse, 116 of its mutants)."""
    import ast

    from mu2py.mutants.operators import apply_mutation, find_mutations
    from mu2py.target.modules import read_module

    info = read_module("urllib.parse")
    parsed = find_mutations(info.source, info.file, ())
    assert all(m.span is not None for m in parsed.mutations)
    multi_line = [m for m in parsed.mutations if "\n" in m.original_code]
    assert len(multi_line) > 100
    for m in multi_line[::20]:  # libcst's rewrite costs a third of a second each: a sample of 25
        spliced = apply_mutation(parsed, m, info.source)
        assert ast.dump(ast.parse(spliced)) == ast.dump(ast.parse(apply_mutation(parsed, m)))


TRAMPOLINE_ONLY = '''\
class Money:
    def __new__(cls, cents):
        self = super().__new__(cls)
        self.cents = cents + 0
        return self

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value * 1)

    @property
    def euros(self):
        return self.cents // 100

    def __getattribute__(self, name):  # pragma: no mutate block
        return object.__getattribute__(self, name + "")
'''


def test_functions_mutmut_skips_for_its_trampolines_are_mutated_unless_a_pragma_says_no(tmp_path):
    """Module copies need no trampolines: `__new__`, `__setattr__` and decorated methods get mutants; a block
    pragma still skips one."""
    path = tmp_path / "money.py"
    path.write_text(TRAMPOLINE_ONLY)
    scopes = {m.scope for m in discover(modules_target(str(path)))[0]}
    assert {"Money.__new__", "Money.__setattr__", "Money.euros"} <= scopes
    assert "Money.__getattribute__" not in scopes
