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


def test_record_replays_the_saved_inputs_until_its_deadline(tmp_path, monkeypatch) -> None:
    import random
    import sys
    from pathlib import Path

    from mu2py.budget import Deadline
    from mu2py.inputs.generators import StrategySource
    from mu2py.store.corpus import Corpus, Entry
    from mu2py.testgen.regression import record
    from mu2py.testgen.signatures import infer_named

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[2] / "data" / "kill_sample"))
    spec = infer_named("kill_pkg.calc", "clamp")
    source = StrategySource(spec.strategy)
    corpus = Corpus(source, tmp_path / "corpus")
    rng = random.Random(0)
    for n in range(3):
        decoded = source.decode((), rng)
        corpus.add(Entry(name=f"id_{n}", choices=decoded.choices, size=0, value=decoded.value))
    try:
        assert len(record(spec, tmp_path).cases) == 3
        # the budget's share for recording already spent: nothing replayed, and a note says how many were not
        cut = record(spec, tmp_path, Deadline.after(0.0))
        assert cut.cases == [] and cut.notes == ["3 inputs not recorded: the --time budget ended first"]
    finally:
        for name in [m for m in sys.modules if m == "kill_pkg" or m.startswith("kill_pkg.")]:
            del sys.modules[name]
