"""The warnings a written test asserts: those the original emitted on its input, the same in two runs.

A run records each warning as (category, message, file, line) (`engine.runs`).  A test asserts the
category (the class, or its nearest importable base, as `regression.class_ref` names it) and the whole
message with `pytest.warns(Category, match="^" + re.escape(message) + "$")`; and, when the warning
points at the line that called the function (the generated driver's call: `stacklevel` aimed at the
caller, as a deprecation's is), that it points into the test's own file, where the test calls it.
A warning is asserted only when a second run of the original emitted it too (a message naming a time
or an id would fail the test on the original), and not when its message was cut short
(`MAX_WARNING_TEXT`).  A caller that finds such a test failing on the original in a fresh interpreter
(a warning a package emits once per process) writes it again without its warnings.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from mu2py.engine.runs import MAX_WARNING_TEXT, RunResult, where

if TYPE_CHECKING:
    from mu2py.testgen.render import ModuleWriter


@dataclass(frozen=True)
class ExpectedWarning:
    """A warning a test asserts: its category as source (`ref`, imported from `module` unless a builtin), its whole
    message, and whether it points at the line that called the function (`here`: in a test, the test's own file)."""

    ref: str
    module: str | None
    message: str
    here: bool


def resolve_category(name: str) -> type | None:
    """The warning class a run's category name (`module.qualname`) names in this process, or None."""
    parts = name.split(".")
    for k in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:k])
        obj: Any = sys.modules.get(module)
        if obj is None:
            try:
                obj = importlib.import_module(module)
            except Exception:  # noqa: BLE001 - not a module by that name: a shorter prefix may be
                continue
        for part in parts[k:]:
            obj = getattr(obj, part, None)
        return obj if isinstance(obj, type) and issubclass(obj, Warning) else None
    return None


def expected_warnings(first: RunResult, second: RunResult) -> tuple[tuple[ExpectedWarning, ...], list[str]]:
    """The warnings a test of this input asserts (see the module docstring), each once, in the order `first` emitted
    them; and notes on categories asserted as a base class."""
    from mu2py.testgen import function_driver
    from mu2py.testgen.regression import class_ref

    if not first.warnings or not second.warnings:
        return (), []
    again = set(second.warnings)
    caller = where(function_driver.__file__)
    found: list[ExpectedWarning] = []
    notes: list[str] = []
    for warned in first.warnings:
        category, message, file, _ = warned
        if category == "..." or warned not in again or len(message) >= MAX_WARNING_TEXT:
            continue
        kind = resolve_category(category)
        ref, module, note = class_ref(kind, "warns") if kind is not None else ("Warning", None, None)
        expected = ExpectedWarning(ref, module, message, file == caller)
        if expected not in found:
            found.append(expected)
            if note:
                notes.append(note)
    return tuple(found), notes


def category_source(mod: ModuleWriter, expected: ExpectedWarning) -> str:
    """Source naming the warning's category in the module being written (imported there when not a builtin)."""
    if expected.module is None:
        return expected.ref
    return mod.ref(expected.module, expected.ref[len(expected.module) + 1:])


def match_source(message: str) -> str:
    """A `match=` pattern for exactly `message` (pytest searches: anchored, a message wrapped in more still fails)."""
    return f'"^" + re.escape({message!r}) + "$"'


def warns_statement(mod: ModuleWriter, warns: tuple[ExpectedWarning, ...]) -> str:
    """The `with pytest.warns(...) as warned:` line asserting the first warning (the others: `warns_checks`)."""
    first = warns[0]
    return f"with pytest.warns({category_source(mod, first)}, match={match_source(first.message)}) as warned:"


def warns_checks(mod: ModuleWriter, warns: tuple[ExpectedWarning, ...], indent: int, width: int) -> list[str]:
    """Statements after the `pytest.warns` block: each further warning was emitted too, and each that points at the
    caller points into this file (`w.filename == __file__`); one per line when it fits `width` from `indent`."""
    lines: list[str] = []
    for k, expected in enumerate(warns):
        if k == 0 and not expected.here:
            continue  # pytest.warns asserts the first one's category and message
        category = category_source(mod, expected)
        conditions = [f"issubclass(w.category, {category}) and str(w.message) == {expected.message!r}"]
        if expected.here:
            conditions.append("and w.filename == __file__")
        one = f"assert any({' '.join(conditions)} for w in warned)"
        fits = indent + len(one) <= width
        lines += [one] if fits else ["assert any(", *(f"    {c}" for c in conditions), "    for w in warned", ")"]
    return lines
