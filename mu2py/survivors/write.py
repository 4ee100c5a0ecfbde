"""Readable pytest tests from killing inputs: one test function per input, asserting what the original did.

Each test calls the function with the input's arguments written out (`clamp(x=-1, low=0)`;
an instance method builds its instance first), and asserts the original's return value
with `==` (or, when it holds a NaN, equal reprs) or its exception with `pytest.raises` (and
`match="^" + re.escape(message) + "$"` when the case has one), and the warnings the case
holds with `pytest.warns` around the call (`testgen.warned`).
Its docstring names the mutants it was written to kill. Values are literals where
`testgen` can write them faithfully, else pickled into `<file stem>.pickle` next to the
module (bounded as in `testgen`); an input or output neither fits gives no test, with the
reason. Names and bytes are a function of the cases alone: the same cases, the same file.
"""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mu2py.store.atomic import write_atomic
from mu2py.testgen.function_driver import CallableAttribute
from mu2py.testgen.render import KILL_MARK, NOTHING, PICKLE_PROTOCOL, WIDTH, Case, ModuleWriter, literal, pretty
from mu2py.testgen.signatures import CONSTRUCTOR, METHOD, SELF, FunctionSpec, Param
from mu2py.testgen.warned import match_source, warns_checks, warns_statement

# the helper a test of a constructor asserts through (defined in the test module, as `instance_state` computes it)
ATTRIBUTES = "_attributes"


@dataclass
class KillCase:
    """One killing input of one function: the case (arguments and the original's outcome) and the mutants it
    kills (score report entries)."""

    spec: FunctionSpec
    case: Case
    mutants: list[dict[str, Any]]
    test_name: str = ""  # set by `render`


@dataclass
class Rendered:
    """A rendered test module: its source, pickle bytes (or None), the tests it holds, and cases left out."""

    source: str
    pickled: bytes | None
    tests: dict[str, KillCase] = field(default_factory=dict)
    left_out: list[tuple[KillCase, str]] = field(default_factory=list)


def file_stem(module: str) -> str:
    """The test file's stem for a package module (prefixed: never shadows a suite's own test module)."""
    return "test_kill_" + module.replace(".", "_")


def _value(mod: ModuleWriter, value: Any, label: str, indent: int, *,
           must_equal: bool) -> tuple[str | None, str | None]:
    """(source text for `value`, None) or (None, why it cannot be written)."""
    written, ref, why = mod.value(value, label, must_equal=must_equal)
    if why is not None:
        return None, why
    return (ref if written is NOTHING else pretty(written, indent)), None


def _arguments(mod: ModuleWriter, params: list[Param], values: dict[str, Any], label: str,
               indent: int) -> tuple[list[str] | None, str | None]:
    """Call arguments: positional-only ones by position, the rest as keywords, in signature order."""
    positional = {p.name for p in params if p.positional}
    parts = []
    for name, value in values.items():
        if name == SELF:
            continue
        text, why = _value(mod, value, f"{label}/{name}", indent, must_equal=False)
        if text is None:
            return None, f"its argument {name} {why}"
        parts.append(text if name in positional else f"{name}={text}")
    return parts, None


def shown_call(spec: FunctionSpec, arguments: dict[str, Any], limit: int = 120) -> str:
    """The call a written test makes on `arguments`, on one line and at most `limit` characters (`clamp(x=-1, low=0)`):
    for showing an input, not for running it.

    Arguments are passed as the tests pass them (positional-only ones by position, the rest as keywords, an
    instance built from its own arguments) and written as their literals; a value with no faithful literal is shown
    by its repr, shortened, where a test would read it from its pickle file.
    """
    from mu2py.testgen.render import as_literal, short_repr

    def args(params: list[Param], values: dict[str, Any]) -> str:
        positional = {p.name for p in params if p.positional}
        parts = []
        for name, value in values.items():
            if name == SELF:
                continue
            text = as_literal(value) or short_repr(value)
            parts.append(text if name in positional else f"{name}={text}")
        return ", ".join(parts)

    head = spec.owner or spec.name if spec.kind == CONSTRUCTOR else spec.name
    if spec.kind == METHOD:
        head = f"{spec.owner}({args(spec.init_params, arguments.get(SELF, {}))}).{spec.attr}"
    text = f"{head}({args(spec.params, arguments)})"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _joined(head: str, parts: list[str], indent: int) -> str:
    """`head(a, b)` on one line when it fits (and no part spans lines), else one argument per line."""
    one = f"{head}({', '.join(parts)})"
    if indent + len(one) <= WIDTH and "\n" not in one:
        return one
    pad = " " * (indent + 4)
    return f"{head}(\n" + "".join(f"{pad}{p},\n" for p in parts) + " " * indent + ")"


def _call(kc: KillCase, mod: ModuleWriter, label: str, indent: int) -> tuple[list[str], str] | str:
    """(setup statements, the call expression), or why the input cannot be written."""
    spec, arguments = kc.spec, kc.case.arguments
    setup: list[str] = []
    if spec.kind == METHOD:
        init, why = _arguments(mod, spec.init_params, arguments.get(SELF, {}), f"{label}/self", indent)
        if init is None:
            return f"its instance: {why}"
        setup.append(f"instance = {_joined(mod.ref(spec.module, spec.owner or ''), init, indent)}")
        head = f"instance.{spec.attr}"
    elif spec.kind == CONSTRUCTOR:
        head = mod.ref(spec.module, spec.owner or "")
    else:
        head = mod.ref(spec.module, spec.name)
    parts, why = _arguments(mod, spec.params, arguments, label, indent)
    if parts is None:
        return why or "no arguments"
    return setup, _joined(head, parts, indent)


def _asserts_attributes(kc: KillCase) -> bool:
    """Whether the test of `kc` asserts what a constructor left (through the module's `_attributes` helper)."""
    return kc.spec.kind == CONSTRUCTOR and kc.case.raises is None and isinstance(kc.case.expected, dict)


def _docstring(kc: KillCase, root: Path | None) -> list[str]:
    lines = [f"Kills {len(kc.mutants)} mutant{'s' if len(kc.mutants) != 1 else ''} the suite did not:"]
    for m in kc.mutants:
        file = Path(m["file"])
        shown = file.relative_to(root) if root is not None and file.is_relative_to(root) else file.name
        lines.append(f"{shown}:{m['line']} `{m['original']}` -> `{m['mutated']}` ({m['operator']})")
    text = [line.replace("\\", "\\\\").replace('"""', "'''") for line in lines]
    return ['    """' + text[0], *(f"    {line}" for line in text[1:]), '    """']


def _test(kc: KillCase, mod: ModuleWriter, label: str, root: Path | None) -> list[str] | str:
    """The lines of one test function, or why it cannot be written.

    With warnings to assert, the call (and the instance's construction) runs inside `pytest.warns`, and what is
    checked after the call (the output, the further warnings and where they point) after that block.  A value
    spanning lines is written for the column it starts in (continuation lines carry their own indentation).
    """
    case = kc.case
    warns = case.warns
    pad = " " * (8 if warns else 4)  # where the call's statements start
    body: list[str] = []
    after: list[str] = []
    if case.raises is not None:
        call = _call(kc, mod, label, len(pad) + 4)
        if isinstance(call, str):
            return call
        setup, expression = call
        exception = case.raises
        if case.raises_module:
            exception = mod.ref(case.raises_module, case.raises[len(case.raises_module) + 1:])
        body += [f"{pad}{line}" for line in setup]
        # anchored: pytest.raises searches, and a mutant wrapping the message ("XX" + it + "XX") would still match
        match = f", match={match_source(case.match)}" if case.match else ""
        body += [f"{pad}with pytest.raises({exception}{match}):", f"{pad}    {expression}"]
    else:
        call = _call(kc, mod, label, len(pad))
        if isinstance(call, str):
            return call
        setup, expression = call
        shown = case.expected
        if _asserts_attributes(kc):
            # what the instance holds (`function_driver.instance_state`), but the attributes holding callables:
            # compared while fuzzing, never asserted (`_attributes` leaves them out)
            shown = {k: v for k, v in shown.items() if not isinstance(v, CallableAttribute)}
            expression = f"{ATTRIBUTES}({expression})"
        expected, why = _value(mod, shown, f"{label}/expected", 4, must_equal=True)
        if expected is None:
            return f"its output {why}"
        body += [f"{pad}{line}" for line in setup]
        # nan != nan: a value holding one is compared by repr (plain data only: literals)
        nan = "float('nan')" in (literal(case.expected) or "")
        if nan:
            body.append(f"{pad}actual = {expression}")
            after += [f"    expected = {expected}", "    assert repr(actual) == repr(expected)"]
        elif not warns and len(f"    assert {expression} == {expected}") <= WIDTH and "\n" not in expression + expected:
            body.append(f"    assert {expression} == {expected}")
        else:
            body.append(f"{pad}actual = {expression}")
            after.append(f"    assert actual == {expected}")
    if warns:
        body.insert(0, f"    {warns_statement(mod, warns)}")
        after += [f"    {line}" for line in warns_checks(mod, warns, 4, WIDTH)]
    return [f"def {kc.test_name}():", *_docstring(kc, root), *body, *after]


def render(module: str, cases: list[KillCase], command: str, root: Path | None = None) -> Rendered:
    """The test module of `module`'s killing inputs (see the module docstring); `cases` in the order to write."""
    mod = ModuleWriter(module)
    counts: dict[str, int] = {}
    for kc in cases:
        base = "test_" + kc.spec.name.replace(".", "_")
        counts[base] = counts.get(base, 0) + 1
        kc.test_name = f"{base}_{counts[base]}"
    mod.reserved.update(["instance", ATTRIBUTES, *(kc.test_name for kc in cases)])
    rendered = Rendered("", None)
    body: list[str] = []
    for kc in cases:
        lines = _test(kc, mod, kc.test_name, root)
        if isinstance(lines, str):
            rendered.left_out.append((kc, lines))
            continue
        rendered.tests[kc.test_name] = kc
        body += ["", "", *lines]
    stem = file_stem(module)
    header = [f'"""Tests of {module} {KILL_MARK}: each kills mutants its suite did not.', "",
              "Each test replays one input found by fuzzing aimed at the suite's surviving mutants and asserts",
              "what the original code returned (==) or raised, and the warnings it emitted; it passed on the",
              "original and failed on each mutant its docstring names, each in a fresh interpreter, when it was",
              "written.",
              f"Regenerate with: {command}", '"""', ""]
    imports: list[str] = []
    if mod.pickled:
        imports += ["import pickle"]
    if any(kc.case.match or kc.case.warns for kc in rendered.tests.values()):
        imports += ["import re"]
    if mod.pickled:
        imports += ["from pathlib import Path"]
    if imports:
        imports += [""]
    if any(kc.case.raises is not None or kc.case.warns for kc in rendered.tests.values()):
        imports += ["import pytest", ""]
    imports += mod.import_lines()
    if mod.pickled:
        imports += ["", "# values with no literal form, pickled when the tests were written",
                    f'_PICKLED = pickle.loads((Path(__file__).parent / "{stem}.pickle").read_bytes())']
        rendered.pickled = pickle.dumps(dict(sorted(mod.pickled.items())), protocol=PICKLE_PROTOCOL)
    if any(_asserts_attributes(kc) for kc in rendered.tests.values()):
        imports += ["", "", f"def {ATTRIBUTES}(instance):",
                    '    """What a constructor left: the attributes of `instance`, but functions and methods."""',
                    "    return {name: value for name, value in vars(instance).items() if not callable(value)}"]
    rendered.source = "\n".join(header + imports + body) + "\n"
    return rendered


def write(folder: Path, module: str, rendered: Rendered) -> Path:
    """Write a rendered module (and its pickle, or remove a stale one) atomically; returns the test file."""
    path = folder / f"{file_stem(module)}.py"
    pickle_path = path.with_suffix(".pickle")
    if rendered.pickled is not None:
        write_atomic(pickle_path, rendered.pickled)
    elif pickle_path.exists():
        pickle_path.unlink()
    write_atomic(path, rendered.source)
    return path
