"""Survivors of a score report grouped by the function that can reach them."""

from mu2py.survivors.survivors import definition_lines, function_of_scope, group_survivors


def test_function_of_scope():
    assert function_of_scope("clamp") == "clamp"
    assert function_of_scope("Counter.bump") == "Counter.bump"
    assert function_of_scope("outer.<locals>.inner") == "outer"
    assert function_of_scope("Box.grow.<locals>.f") == "Box.grow"
    assert function_of_scope("<module>") is None
    assert function_of_scope("Outer.Inner.method") is None


def _entry(mid, status, scope, line, file, at_import=False):
    return {"id": mid, "status": status, "scope": scope, "line": line, "file": str(file), "module": "m",
            "at_import": at_import}


def test_grouping(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("LIMIT = 3\n\n\ndef f(x, low=0):\n    return x + low\n\n\nclass C:\n"
                      "    def g(self, y=1):\n        return y\n")
    assert definition_lines(str(source)) == [(4, 4, "f"), (9, 9, "C.g")]
    report = {"mutants": [
        _entry("m:5:a", "survived", "f", 5, source),
        _entry("m:5:b", "no_coverage", "f", 5, source),
        _entry("m:5:c", "killed", "f", 5, source),  # detected: not a survivor
        _entry("m:4:d", "survived", "<module>", 4, source, at_import=True),  # f's default value
        _entry("m:9:e", "survived", "C", 9, source, at_import=True),  # g's default value
        _entry("m:10:f", "timeout", "C.g", 10, source),
        _entry("m:1:g", "survived", "<module>", 1, source, at_import=True),  # a module constant
    ]}
    grouped = group_survivors(report)
    assert [(g.module, g.function, [m["id"] for m in g.mutants]) for g in grouped.groups] == [
        ("m", "f", ["m:5:a", "m:5:b", "m:4:d"]), ("m", "C.g", ["m:9:e"])]
    assert [(m["id"], why) for m, why in grouped.left_out] == [("m:1:g", "module level")]
    assert grouped.aimed == 4


LAMBDAS = '''\
def outer(a):
    def inner(b):
        return b + 1
    return inner(a) * 2


f = lambda x: x + 1
g = lambda x, k=3: (lambda y: y - k)(x)
KEYS = sorted([3, 1], key=lambda v: -v)
one = lambda: 1; two = lambda: 2  # noqa: E702


class C:
    h = lambda self, z: z * 2

    def m(self, q):
        return (lambda w: w + 5)(q)

    class Inner:
        def deep(self):
            return 7
'''


def test_lambdas_bound_to_names_are_aimed_at_by_that_name(tmp_path):
    """Scopes as mu2py.mutants.sites names them: a lambda is `<lambda>`, a nested def has no `<locals>`."""
    source = tmp_path / "m.py"
    source.write_text(LAMBDAS)
    assert (7, 7, "f") in definition_lines(str(source)) and (14, 14, "C.h") in definition_lines(str(source))
    report = {"mutants": [
        _entry("m:7:14", "survived", "<lambda>", 7, source),
        _entry("m:8:16", "survived", "<module>", 8, source, at_import=True),  # g's default value
        _entry("m:8:30", "survived", "<lambda>.<lambda>", 8, source),  # a lambda inside g: reached through g
        _entry("m:14:24", "survived", "C.<lambda>", 14, source),
        _entry("m:17:26", "survived", "C.m.<lambda>", 17, source),
        _entry("m:3:15", "survived", "outer.inner", 3, source),  # a nested function: reached through outer
        _entry("m:9:36", "survived", "<lambda>", 9, source),  # a key function passed at import: no name
        _entry("m:21:19", "survived", "C.Inner.deep", 21, source),
    ]}
    grouped = group_survivors(report)
    assert sorted((g.function, [m["id"] for m in g.mutants]) for g in grouped.groups) == [
        ("C.h", ["m:14:24"]), ("C.m", ["m:17:26"]), ("f", ["m:7:14"]), ("g", ["m:8:16", "m:8:30"]),
        ("outer", ["m:3:15"])]
    assert [(m["id"], why) for m, why in grouped.left_out] == [
        ("m:9:36", "in a lambda bound to no name"), ("m:21:19", "in a nested class")]


def test_two_lambdas_on_one_line_are_told_apart_by_column(tmp_path):
    source = tmp_path / "m.py"
    source.write_text(LAMBDAS)
    first, second = (dict(_entry(f"m:10:{c}", "survived", "<lambda>", 10, source), column=c) for c in (14, 31))
    grouped = group_survivors({"mutants": [first, second]})
    assert sorted(g.function for g in grouped.groups) == ["one", "two"]


def test_without_the_source_the_scope_decides(tmp_path):
    report = {"mutants": [_entry("m:1:a", "survived", "Box.grow", 1, tmp_path / "gone.py"),
                          _entry("m:1:b", "survived", "<lambda>", 1, tmp_path / "gone.py"),
                          _entry("m:1:c", "survived", "A.B.c", 1, tmp_path / "gone.py")]}
    grouped = group_survivors(report)
    assert [g.function for g in grouped.groups] == ["Box.grow"]
    assert [why for _, why in grouped.left_out] == ["in a lambda bound to no name", "in a nested class"]
