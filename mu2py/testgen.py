"""Regression tests as source: one pytest module per package module, one parametrised test per function.

Every case is one saved input (the argument dict) with what the original returned, asserted
with `==`, or the exception type it raised, asserted with `pytest.raises`.  Values are
written as Python literals when `literal` can (its text evaluates back, by
`ast.literal_eval`, to an equal value with the same text) in at most MAX_LITERAL
characters; otherwise they go to a pickle file next to the module, and a case whose output
does not survive pickling equal to itself is left out with a comment saying why.  The same
cases give the same bytes.
"""

from __future__ import annotations

import ast
import math
import pickle
from dataclasses import dataclass, field
from typing import Any

from mu2py.signatures import FunctionSpec

PICKLE_PROTOCOL = 4
# longer literals go to the pickle file: a test module stays readable
MAX_LITERAL = 2000
_NOTHING = object()


@dataclass
class Case:
    """One input and its recorded outcome: `expected` output, or `raises` (a class reference as source)."""

    id: str
    arguments: dict[str, Any]
    expected: Any = None
    raises: str | None = None
    raises_module: str | None = None


@dataclass
class FunctionCases:
    """The cases of one function, and why some inputs gave no case."""

    spec: FunctionSpec
    cases: list[Case] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def literal(value: Any, depth: int = 0) -> str | None:
    """Source text for `value` that `ast.literal_eval` turns back into it, or None (sets sorted, for stable text)."""
    if depth > 100:
        return None
    if value is None or isinstance(value, (bool, str, bytes)):
        return repr(value)
    if type(value) is int:
        return repr(value)
    if type(value) is float:
        return repr(value) if math.isfinite(value) else None
    if type(value) is complex:
        return repr(value) if math.isfinite(value.real) and math.isfinite(value.imag) else None
    if type(value) in (list, tuple):
        items = [literal(v, depth + 1) for v in value]
        if any(i is None for i in items):
            return None
        if type(value) is list:
            return "[" + ", ".join(items) + "]"  # type: ignore[arg-type]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"  # type: ignore[arg-type]
    if type(value) is dict:
        pairs = [(literal(k, depth + 1), literal(v, depth + 1)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if type(value) is set:
        items = [literal(v, depth + 1) for v in value]
        if any(i is None for i in items):
            return None
        return "{" + ", ".join(sorted(items)) + "}" if items else "set()"  # type: ignore[arg-type]
    return None


def _as_literal(value: Any) -> str | None:
    text = literal(value)
    if text is None:
        return None
    try:
        back = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if literal(back) == text and back == value else None


@dataclass
class _Module:
    name: str
    imports: set[str] = field(default_factory=set)
    pickled: dict[str, Any] = field(default_factory=dict)

    def value(self, value: Any, label: str, *, must_equal: bool) -> str | None:
        """Source for `value`: a literal, or a lookup in the pickle file; None when neither is faithful."""
        text = _as_literal(value)
        if text is not None and len(text) <= MAX_LITERAL:
            return text
        try:
            back = pickle.loads(pickle.dumps(value, protocol=PICKLE_PROTOCOL))
        except Exception:  # noqa: BLE001 - anything unpicklable (lambdas, local classes, open files)
            return None
        if must_equal:
            try:
                if not back == value:
                    return None
            except Exception:  # noqa: BLE001 - a raising __eq__ makes the value useless as an expectation
                return None
        self.pickled[label] = value
        return f"_PICKLED[{label!r}]"


def _call(spec: FunctionSpec, module_ref: str) -> str:
    positional = spec.positional
    if positional:
        args = ", ".join(f"arguments[{p!r}]" for p in positional)
        rest = f"{{k: v for k, v in arguments.items() if k not in {positional!r}}}"
        call = f"{module_ref}.{spec.name}({args}, **{rest})"
    else:
        call = f"{module_ref}.{spec.name}(**arguments)"
    if spec.key:
        key_module, _, key_name = spec.key.partition(":")
        call = f"{key_module}.{key_name}({call})"
    return call


def _function_source(fc: FunctionCases, mod: _Module) -> list[str]:
    spec = fc.spec
    lines: list[str] = []
    returned: list[str] = []
    raised: list[str] = []
    notes = list(fc.notes)
    for case in fc.cases:
        arguments = mod.value(case.arguments, f"{spec.name}/{case.id}/arguments", must_equal=False)
        if arguments is None:
            notes.append(f"{case.id}: its input has neither a literal form nor a pickle")
            continue
        shown = _comment(case.arguments) if arguments.startswith("_PICKLED") else ""
        if case.raises is not None:
            if case.raises_module:
                mod.imports.add(case.raises_module)
            raised.append(f"        pytest.param({arguments}, {case.raises}, id={case.id!r}),{shown}")
            continue
        expected = mod.value(case.expected, f"{spec.name}/{case.id}/expected", must_equal=True)
        if expected is None:
            notes.append(f"{case.id}: its output {_short(case.expected)} cannot be written down so that it "
                         "compares equal to itself")
            continue
        if expected.startswith("_PICKLED"):
            shown = _comment(case.arguments, case.expected)
        returned.append(f"        pytest.param({arguments}, {expected}, id={case.id!r}),{shown}")
    if spec.key:
        mod.imports.add(spec.key.partition(":")[0])
    call = _call(spec, mod.name)
    lines.append("")
    lines.append("")
    count = len(returned) + len(raised)
    lines.append(f"# {spec.qualname}: {count} case{'' if count == 1 else 's'}")
    lines.extend(f"# left out {note}" for note in notes)
    if returned:
        lines += ["@pytest.mark.parametrize(", '    "arguments, expected",', "    [", *returned, "    ],", ")",
                  f"def test_{spec.name}(arguments, expected):", f"    assert {call} == expected"]
    if raised:
        if returned:
            lines += ["", ""]
        lines += ["@pytest.mark.parametrize(", '    "arguments, exception",', "    [", *raised, "    ],", ")",
                  f"def test_{spec.name}_raises(arguments, exception):", "    with pytest.raises(exception):",
                  f"        {call}"]
    return lines


def _comment(arguments: Any, expected: Any = _NOTHING) -> str:
    """A trailing comment showing pickled values by repr, when their repr is stable (no memory address)."""
    text = repr(arguments) if expected is _NOTHING else f"{arguments!r} -> {expected!r}"
    if " at 0x" in text or "\n" in text or len(text) > 200:
        return ""
    return f"  # {text}"


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def tests_file_stem(module: str) -> str:
    """The file stem of the tests of `module` (prefixed so it never shadows a suite's own test module)."""
    return "test_corpus_" + module.replace(".", "_")


def render(module: str, functions: list[FunctionCases], command: str) -> tuple[str, bytes | None]:
    """The pytest module for `module` and the pickle bytes its cases need (None when all are literals)."""
    mod = _Module(module)
    mod.imports.add(module)
    body: list[str] = []
    for fc in sorted(functions, key=lambda f: f.spec.name):
        body += _function_source(fc, mod)
    stem = tests_file_stem(module)
    header = [
        f'"""Regression tests of {module}, generated by `mu2py corpus` from a mutation-guided corpus.',
        "",
        "Each case replays a saved input and asserts what the original code returned (==) or raised",
        f"when the tests were generated. Regenerate with: {command}",
        '"""',
        "",
    ]
    std = ["import pickle", "from pathlib import Path", ""] if mod.pickled else []
    imports = [*std, "import pytest", "", *(f"import {name}" for name in sorted(mod.imports))]
    pickled_bytes = None
    if mod.pickled:
        imports += ["", "# inputs and outputs with no literal form, pickled when the tests were generated",
                    f'_PICKLED = pickle.loads((Path(__file__).parent / "{stem}.pickle").read_bytes())']
        pickled_bytes = pickle.dumps(dict(sorted(mod.pickled.items())), protocol=PICKLE_PROTOCOL)
    return "\n".join(header + imports + body) + "\n", pickled_bytes
