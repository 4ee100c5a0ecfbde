"""`regression.raised_by`: whose words an exception's message is."""

from __future__ import annotations

import pytest

from mu2py.testgen.regression import raised_by

SOURCE = '''\
import json


def checked(n):
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n


def parsed(text):
    return int(text)


def loaded(text):
    return json.loads(text)


def reraised(text):
    try:
        return int(text)
    except ValueError:
        raise
'''
FILE = "/nowhere/pkg/mod.py"


@pytest.fixture(scope="module")
def module() -> dict[str, object]:
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, FILE, "exec"), namespace)
    return namespace


def _raised(fn: object, arg: object) -> BaseException:
    with pytest.raises(Exception) as info:
        fn(arg)  # type: ignore[operator]
    return info.value


@pytest.mark.parametrize(("function", "arg", "own"), [
    ("checked", -1, True),  # the package's own raise statement
    ("parsed", "x", False),  # CPython's int() wording, raised on the package's line
    ("loaded", "{", False),  # a library's (json's) raise, deeper than the package
    ("reraised", "x", False),  # a bare re-raise keeps the traceback: CPython's words still
])
def test_only_a_raise_statement_of_the_code_under_test_is_its_own_words(module, function, arg, own) -> None:
    assert raised_by(_raised(module[function], arg), {FILE: SOURCE}) is own


def test_code_not_under_test_is_not_the_package(module) -> None:
    assert not raised_by(_raised(module["checked"], -1), {"/elsewhere.py": SOURCE})
    assert not raised_by(ValueError("never raised"), {FILE: SOURCE})
