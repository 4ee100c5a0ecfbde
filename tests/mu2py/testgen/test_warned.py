"""The warnings a written test asserts: those the original emits again on a second run, each once."""

import warnings

import pytest

from mu2py.engine.runs import MAX_WARNING_TEXT, RunResult, Status, where
from mu2py.testgen import function_driver
from mu2py.testgen.warned import ExpectedWarning, expected_warnings, resolve_category

CALLER = where(function_driver.__file__)


def _ran(*warned):
    return RunResult(Status.OK, output=None, warnings=warned)


def test_only_warnings_a_second_run_repeats_are_asserted_each_once():
    deprecated = ("builtins.DeprecationWarning", "old, use new", CALLER, 55)
    timed = ("builtins.UserWarning", "took 0.013 s", "pkg/mod.py", 9)
    first = _ran(deprecated, timed, deprecated, ("builtins.UserWarning", "x" * MAX_WARNING_TEXT, "pkg/mod.py", 3))
    second = _ran(deprecated, ("builtins.UserWarning", "took 0.021 s", "pkg/mod.py", 9), first.warnings[-1])
    found, notes = expected_warnings(first, second)
    # the timed message differs between the runs, the long one was cut: neither can be matched exactly
    assert found == (ExpectedWarning("DeprecationWarning", None, "old, use new", True),) and notes == []
    assert expected_warnings(first, _ran()) == ((), [])


class PackageWarning(UserWarning):
    """A warning class of the code under test: imported by the test that asserts it."""


def test_categories_are_resolved_and_named_as_the_test_imports_them():
    assert resolve_category("builtins.ResourceWarning") is ResourceWarning
    assert resolve_category(f"{__name__}.PackageWarning") is PackageWarning
    assert resolve_category("no_such_module_xyz.W") is None and resolve_category(f"{__name__}.nothing") is None
    warned = (f"{__name__}.PackageWarning", "odd", "pkg/mod.py", 4)
    found, _ = expected_warnings(_ran(warned), _ran(warned))
    assert found == (ExpectedWarning(f"{__name__}.PackageWarning", __name__, "odd", False),)


def test_a_run_of_the_generated_driver_points_at_its_call(warn_pkg_on_path):
    from mu2py.testgen.function_driver import function_target, run_original
    from mu2py.testgen.signatures import infer_named

    target = function_target(infer_named("warn_pkg.legacy", "old_total"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # what the caller's filters say changes nothing of what is recorded
        first, _ = run_original(target, {"values": [1, 2]})
        second, _ = run_original(target, {"values": [1, 2]})
    assert expected_warnings(first, second)[0] == (ExpectedWarning("DeprecationWarning", None, "old, use new", True),)


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # id_0's, which its test does not assert
def test_a_corpus_module_asserts_warnings_in_its_warns_tests(warn_pkg_on_path):
    from mu2py.testgen.render import Case, FunctionCases, render
    from mu2py.testgen.signatures import infer_named

    here = ExpectedWarning("DeprecationWarning", None, "old, use new", True)
    cases = FunctionCases(infer_named("warn_pkg.legacy", "old_total"), [
        Case("id_0", {"values": [1, 2]}, expected=3),  # its warnings not asserted (as when they did not repeat)
        Case("id_1", {"values": [4]}, expected=4, warns=(here,)),
        Case("id_2", {"values": [None]}, raises="TypeError", warns=(here,)),
    ])
    source, pickled = render("warn_pkg.legacy", [cases], "mu2py corpus warn_pkg.legacy --trials 1 --seed 0")
    assert pickled is None and "import re\n" in source and cases.written == 3
    assert "def test_old_total(arguments, expected):" in source
    assert "def test_old_total_warns(arguments, expected, warns):" in source
    assert "def test_old_total_raises_warns(arguments, exception, warns):" in source
    assert "[(DeprecationWarning, 'old, use new', True)]" in source
    # each case passes on the original, called from this module's file as the written file calls it
    namespace = {"__name__": "generated", "__file__": "generated"}
    exec(compile(source, "generated", "exec"), namespace)
    ran = []
    for name, test in list(namespace.items()):
        if name.startswith("test_"):
            for param in test.pytestmark[0].args[1]:
                test(*param.values)
                ran.append(param.id)
    assert sorted(ran) == ["id_0", "id_1", "id_2"]
    # and a warning pointing elsewhere (a mutant's stacklevel) fails the location check
    elsewhere = namespace["test_old_total_warns"]
    with pytest.raises(AssertionError):
        namespace["__file__"] = "another file"
        elsewhere({"values": [4]}, 4, [(DeprecationWarning, "old, use new", True)])
