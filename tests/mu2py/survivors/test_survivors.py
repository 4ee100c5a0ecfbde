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
