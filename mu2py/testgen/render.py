"""Regression tests as source: one pytest module per package module, one parametrised test per function.

Every case is one saved input (the argument dict) with what the original returned, asserted
with `==`, or the exception type it raised, asserted with `pytest.raises`; a case with warnings
to assert (`warned`) goes to the function's `_warns` (or `_raises_warns`) test, which asserts
them with `pytest.warns` around the call.  Values are
written as Python literals when `literal` can (its text evaluates back to a value with the
same text and structure; `float('nan')`-style calls for special floats) in at most
MAX_LITERAL characters, wrapped to WIDTH columns; else as their own repr where that is a call of
importable classes or functions on literals which evaluates back to an equal value with the same
repr (`Version('1.2.3')`, `date(2020, 1, 1)`: see `ModuleWriter.constructed`); otherwise they go
to a pickle file next to the module when they pickle to at most MAX_STORED bytes.  A case whose value is over
that bound, or whose output does not survive pickling equal to itself, is left out with a
comment saying why.  Functions and exception classes are imported with `from module import
name` (never through a package attribute a re-export may shadow).  The same cases give the
same bytes.
"""

from __future__ import annotations

import ast
import math
import pickle
import textwrap
from dataclasses import dataclass, field
from typing import Any

from mu2py.engine.oracle import compare as compare_values
from mu2py.testgen.signatures import CONSTRUCTOR, METHOD, SELF, FunctionSpec, Param
from mu2py.testgen.warned import ExpectedWarning, category_source

PICKLE_PROTOCOL = 4
# a value whose literal text is longer than this goes to the pickle file
MAX_LITERAL = 2000
# a value pickled to more bytes than this is not stored: its case is left out, with a note saying so
MAX_STORED = 4096
# generated lines are wrapped to this width (a literal token longer than that stays whole)
WIDTH = 100
NOTHING = object()  # "no literal form": the value is written as a pickle lookup instead
_SPECIAL_FLOATS = {"inf": "float('inf')", "-inf": "float('-inf')", "nan": "float('nan')"}


@dataclass
class Case:
    """One input and its recorded outcome: `expected` output, or `raises` (a class reference as source) and, when
    the test is to assert it, `match`: the exception's message; and the warnings the test asserts, in the order
    the original first emitted them (`warned.expected_warnings`)."""

    id: str
    arguments: dict[str, Any]
    expected: Any = None
    raises: str | None = None
    raises_module: str | None = None
    match: str | None = None
    warns: tuple[ExpectedWarning, ...] = ()


@dataclass
class FunctionCases:
    """The cases of one function, and why some inputs gave no case."""

    spec: FunctionSpec
    cases: list[Case] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # set by `render`: how many cases it wrote, and why it left the others out
    written: int = 0
    left_out: list[str] = field(default_factory=list)


def literal(value: Any, depth: int = 0) -> str | None:
    """Source text that evaluates back to `value` (see `evaluate`), or None (sets sorted, for stable text).

    Plain data only: Python literals, and `float('inf')`, `float('-inf')`, `float('nan')`.
    """
    if depth > 100:
        return None
    if value is None or isinstance(value, (bool, str, bytes)):
        return repr(value)
    if type(value) is int:
        return repr(value)
    if type(value) is float:
        return repr(value) if math.isfinite(value) else _SPECIAL_FLOATS[repr(value)]
    if type(value) is complex:
        return repr(value) if math.isfinite(value.real) and math.isfinite(value.imag) else None
    if type(value) in (list, tuple):
        items = [literal(v, depth + 1) for v in value]
        if any(i is None for i in items):
            return None
        if type(value) is list:
            return "[" + ", ".join(items) + "]"  # type: ignore[arg-type]  # no None among them: checked above
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"  # type: ignore[arg-type]  # no None among them: checked above
    if type(value) is dict:
        pairs = [(literal(k, depth + 1), literal(v, depth + 1)) for k, v in value.items()]
        if any(k is None or v is None for k, v in pairs):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in pairs) + "}"
    if type(value) is set:
        items = [literal(v, depth + 1) for v in value]
        if any(i is None for i in items):
            return None
        return "{" + ", ".join(sorted(items)) + "}" if items else "set()"  # type: ignore[arg-type]  # no None among them: checked above
    return None


def evaluate(text: str) -> Any:
    """The value of a text `literal` wrote: `ast.literal_eval` with `float('...')` calls allowed."""
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id == "float"
                                               and len(node.args) == 1 and not node.keywords
                                               and isinstance(node.args[0], ast.Constant)):
            raise ValueError("only float('...') calls are allowed")
        if isinstance(node, ast.Name) and node.id != "float":
            raise ValueError(f"unknown name {node.id}")
    return eval(compile(tree, "<literal>", "eval"), {"__builtins__": {}, "float": float})  # noqa: S307 - checked


def as_literal(value: Any) -> str | None:
    """`literal(value)` when it evaluates back to a value with the same text and the same structure."""
    from mu2py.engine.oracle import compare

    text = literal(value)
    if text is None:
        return None
    try:
        back = evaluate(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return text if literal(back) == text and compare(back, value) is True else None


def pretty(value: Any, indent: int, width: int = WIDTH, first: int = 0) -> str:
    """`literal(value)` wrapped so that its lines fit in `width` from column `indent` where they can.

    Containers put one item per line, long strings and bytes become implicitly concatenated
    pieces in parentheses; the text evaluates to the same value as `literal(value)`. The
    first line starts `first` columns further right (after a dict key).
    """
    text = literal(value)
    assert text is not None
    if indent + first + len(text) <= width:
        return text
    pad, end = " " * (indent + 4), " " * indent
    kind = type(value)
    if kind in (str, bytes) and len(value) > 1:
        pieces, start, room = [], 0, max(width - indent - 4, 16)
        while start < len(value):
            stop = start + 1
            while stop < len(value) and len(literal(value[start:stop + 1]) or "") <= room:
                stop += 1
            pieces.append(literal(value[start:stop]))
            start = stop
        return "(\n" + "".join(f"{pad}{piece}\n" for piece in pieces) + end + ")"
    if kind in (list, tuple, set) and value:
        items = [pretty(v, indent + 4, width) for v in value]
        if kind is set:
            items.sort()
        opening, closing = {list: "[]", tuple: "()", set: "{}"}[kind]  # type: ignore[index, str-unpack]  # 2 characters
        return opening + "\n" + "".join(f"{pad}{item},\n" for item in items) + end + closing
    if kind is dict and value:
        lines = []
        for k, v in value.items():
            key = literal(k)
            lines.append(f"{pad}{key}: {pretty(v, indent + 4, width, first=len(key or '') + 2)},\n")
        return "{\n" + "".join(lines) + end + "}"
    return text


# names the generated module binds itself (an imported name never takes one of them)
_RESERVED = frozenset({"pytest", "pickle", "Path", "re", "arguments", "expected", "exception", "actual", "_PICKLED",
                       "warns", "warned", "category", "message", "here", "w"})


@dataclass
class ModuleWriter:
    """One test module being written: its reserved names, the imports it needs, and the values it pickles."""

    name: str
    reserved: set[str] = field(default_factory=lambda: set(_RESERVED))
    imports: dict[tuple[str, str], str] = field(default_factory=dict)  # (module, name) -> local name
    pickled: dict[str, Any] = field(default_factory=dict)

    def ref(self, module: str, dotted: str) -> str:
        """Source naming `module.dotted`, imported with `from module import first_part`.

        `import pkg.mod` would name it through `pkg`'s attributes, which a package's
        `__init__` may shadow (a function re-exported under its submodule's name); a
        `from` import reads the module itself. The local name is unique in the file.
        """
        first, dot, rest = dotted.partition(".")
        local = self.imports.get((module, first))
        if local is None:
            taken = self.reserved | set(self.imports.values())
            local = first
            if local in taken:
                local = f"{module.replace('.', '_')}_{first}"
            while local in taken:
                local += "_"
            self.imports[(module, first)] = local
        return local + dot + rest

    def constructed(self, value: Any, *, must_equal: bool) -> str | None:
        """Source rebuilding `value` from its repr, its callees imported (`ref`), or None.

        Only a repr of at most MAX_LITERAL characters that is calls on literals (`Version('1.2.3')`,
        `Fraction(1, 3)`, `datetime.date(2020, 1, 1)`), each callee a builtin type or a class or function
        importable by its own module and name, qualifies; and only when evaluating it gives a value with the
        same repr, equal to `value` (by `==` when `must_equal`, else also by structure).  The imports are
        registered only then.
        """
        try:
            text = repr(value)
        except Exception:  # noqa: BLE001 - a repr that raises gives no source
            return None
        if len(text) > MAX_LITERAL or "(" not in text:
            return None
        try:
            tree = ast.parse(text, mode="eval")
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        callees = _callees(tree, type(value))
        if callees is None:
            return None
        # evaluated under placeholder names: nothing is imported into the module unless the text round-trips
        names = {id(node): f"_callee_{k}" for k, node in enumerate(callees)}
        namespace = {names[id(node)]: obj for node, obj in callees.items()}
        try:
            back = eval(compile(_renamed(tree, names), "<repr>", "eval"),  # noqa: S307 - calls resolved above
                        {"__builtins__": {}}, namespace)
            same = repr(back) == text and (back == value if must_equal else compare_values(back, value))
        except Exception:  # noqa: BLE001 - a constructor or __eq__ that raises: not a faithful form
            return None
        if same is not True:
            return None
        local = {id(node): self.ref(obj.__module__, obj.__qualname__) if obj.__module__ != "builtins"
                 else obj.__qualname__ for node, obj in callees.items()}
        return ast.unparse(_renamed(tree, local))

    def import_lines(self) -> list[str]:
        """The `from ... import ...` lines, one per module, sorted."""
        names: dict[str, list[str]] = {}
        for (module, name), local in sorted(self.imports.items()):
            names.setdefault(module, []).append(name if local == name else f"{name} as {local}")
        lines = []
        for module, items in names.items():
            line = f"from {module} import {', '.join(items)}"
            lines += [line] if len(line) <= WIDTH else [f"from {module} import (", *(f"    {i}," for i in items), ")"]
        return lines

    def value(self, value: Any, label: str, *, must_equal: bool) -> tuple[Any, str | None, str | None]:
        """How to write `value`: (the value for `pretty`, or NOTHING and a pickle lookup) and why neither, if so.

        A literal is used when faithful and at most MAX_LITERAL characters; otherwise the
        value is pickled when that is at most MAX_STORED bytes (and, with `must_equal`,
        unpickles equal to itself).
        """
        text = as_literal(value)
        if text is not None and len(text) <= MAX_LITERAL:
            return value, None, None
        built = self.constructed(value, must_equal=must_equal)
        if built is not None:
            return NOTHING, built, None
        try:
            data = pickle.dumps(value, protocol=PICKLE_PROTOCOL)
        except Exception:  # noqa: BLE001 - anything unpicklable (lambdas, local classes, open files)
            return NOTHING, None, "has neither a literal form nor a pickle"
        if len(data) > MAX_STORED:
            return NOTHING, None, f"is {len(data):,} bytes pickled, over the {MAX_STORED:,}-byte bound"
        if must_equal:
            try:
                if not pickle.loads(data) == value:
                    return NOTHING, None, "does not compare equal to itself once stored"
            except Exception:  # noqa: BLE001 - a raising __eq__ makes the value useless as an expectation
                return NOTHING, None, "does not compare equal to itself once stored"
        self.pickled[label] = value
        return NOTHING, f"_PICKLED[{label!r}]", None


_LITERAL_NODES = (ast.Expression, ast.Constant, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.UnaryOp, ast.USub,
                  ast.UAdd, ast.keyword, ast.Load, ast.Call)


def _callees(tree: ast.Expression, kind: type) -> dict[ast.AST, Any] | None:
    """Per call in `tree` (a repr), the object its callee names, or None when some part is not a call on
    literals or some callee is not a builtin type or an object importable by its `__module__` and `__qualname__`.
    A bare name is looked up among the builtins and in the module of `kind` (the value's class); a dotted one
    from a module already imported."""
    import builtins
    import importlib
    import sys

    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    callee_parts = {id(part) for call in calls for part in ast.walk(call.func)}
    for node in ast.walk(tree):
        if id(node) not in callee_parts and not isinstance(node, _LITERAL_NODES):
            return None
    home = sys.modules.get(kind.__module__)
    found: dict[ast.AST, Any] = {}
    for call in calls:
        func = call.func
        if isinstance(func, ast.Name):
            obj = getattr(builtins, func.id, None)
            if not isinstance(obj, type):
                obj = getattr(home, func.id, None)
        elif isinstance(func, ast.Attribute):
            chain: list[str] = []
            part: ast.AST = func
            while isinstance(part, ast.Attribute):
                chain.insert(0, part.attr)
                part = part.value
            if not isinstance(part, ast.Name) or part.id not in sys.modules:
                return None
            obj = sys.modules[part.id]
            for attr in chain:
                obj = getattr(obj, attr, None)
        else:
            return None
        module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
        if not callable(obj) or not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
            return None
        try:
            resolved: Any = importlib.import_module(module)
            for attr in qualname.split("."):
                resolved = getattr(resolved, attr)
        except Exception:  # noqa: BLE001 - not importable by its own name: a test could not import it either
            return None
        if resolved is not obj:
            return None
        found[call.func] = obj
    return found


def _renamed(tree: ast.Expression, names: dict[int, str]) -> ast.Expression:
    """A copy of `tree` whose callees (keyed by the ids of `tree`'s own callee nodes) are the bare names `names`
    gives them."""
    import copy

    renamed = copy.deepcopy(tree)
    # the copy's nodes are met in the same order as the original's: each copied call takes its original's name
    for old, new in zip(ast.walk(tree), ast.walk(renamed), strict=True):
        if isinstance(old, ast.Call) and isinstance(new, ast.Call) and id(old.func) in names:
            new.func = ast.Name(id=names[id(old.func)], ctx=ast.Load())
    return ast.fix_missing_locations(renamed)


def _args(container: str, params: list[Param], skip: str | None = None) -> str:
    """Call arguments from an argument dict: positional-only values in order, then the rest as keywords."""
    positional = tuple(p.name for p in params if p.positional)
    parts = [f"{container}[{p!r}]" for p in positional]
    if len(positional) < len(params):
        if positional:
            left_out = (*positional, skip) if skip else positional
            parts.append(f"**{{k: v for k, v in {container}.items() if k not in {left_out!r}}}")
        elif skip:
            parts.append(f"**{{k: v for k, v in {container}.items() if k != {skip!r}}}")
        else:
            parts.append(f"**{container}")
    return ", ".join(parts)


def _call(spec: FunctionSpec, mod: ModuleWriter) -> tuple[list[str], str]:
    """Statements building the instance (methods only) and the expression calling `spec` on `arguments`."""
    setup = []
    if spec.kind == METHOD:
        owner = mod.ref(spec.module, spec.owner or "")
        setup.append(f"instance = {owner}({_args(f'arguments[{SELF!r}]', spec.init_params)})")
        call = f"instance.{spec.attr}({_args('arguments', spec.params, SELF)})"
    elif spec.kind == CONSTRUCTOR:
        # the corpus's tests never fuzz a constructor (only public methods and functions): the class is called
        call = f"{mod.ref(spec.module, spec.owner or '')}({_args('arguments', spec.params)})"
    else:
        call = f"{mod.ref(spec.module, spec.name)}({_args('arguments', spec.params)})"
    if spec.key:
        key_module, _, key_name = spec.key.partition(":")
        call = f"{mod.ref(key_module, key_name)}({call})"
    return setup, call


def _param(parts: list[tuple[Any, str | None]], case_id: str, comment: str) -> list[str]:
    """A `pytest.param(...)` entry on one line, or one part per line when that is too long."""
    texts = [ref if ref is not None else literal(v) for v, ref in parts]
    one = f"        pytest.param({', '.join(texts)}, id={case_id!r}),"  # type: ignore[arg-type]  # the parts' values all have a literal
    lines = [f"        # {comment}"] if comment else []
    if len(one) <= WIDTH:
        return [*lines, one]
    lines.append("        pytest.param(")
    for value, ref in parts:
        lines.append(f"            {ref if ref is not None else pretty(value, 12)},")
    return [*lines, f"            id={case_id!r},", "        ),"]


def _function_source(fc: FunctionCases, mod: ModuleWriter) -> list[str]:
    spec = fc.spec
    returned: list[str] = []
    raised: list[str] = []
    returned_warns: list[str] = []
    raised_warns: list[str] = []
    notes = list(fc.notes)
    nan = False
    for case in fc.cases:
        arguments, args_ref, why = mod.value(case.arguments, f"{spec.name}/{case.id}/arguments", must_equal=False)
        if why is not None:
            notes.append(f"{case.id}: its input {why}")
            continue
        shown = _comment(case.arguments) if args_ref is not None else ""
        # a case with warnings to assert goes to the function's `_warns` tests, its warnings their third value
        warns = [(NOTHING, _warns_value(mod, case.warns))] if case.warns else []
        if case.raises is not None:
            exception = case.raises
            if case.raises_module:
                exception = mod.ref(case.raises_module, case.raises[len(case.raises_module) + 1:])
            (raised_warns if warns else raised).extend(
                _param([(arguments, args_ref), (NOTHING, exception), *warns], case.id, shown))
            continue
        expected, expected_ref, why = mod.value(case.expected, f"{spec.name}/{case.id}/expected", must_equal=True)
        if why is not None:
            notes.append(f"{case.id}: its output {short_repr(case.expected)} {why}")
            continue
        if expected_ref is not None:
            shown = _comment(case.arguments, case.expected)
        else:
            nan = nan or "float('nan')" in (literal(expected) or "")
        (returned_warns if warns else returned).extend(
            _param([(arguments, args_ref), (expected, expected_ref), *warns], case.id, shown))
    setup, call = _call(spec, mod)
    count = sum(1 for line in (*returned, *raised, *returned_warns, *raised_warns)
                if line.lstrip().startswith("pytest.param"))
    fc.written, fc.left_out = count, notes[len(fc.notes):]
    lines = ["", "", f"# {spec.qualname}: {count} case{'' if count == 1 else 's'}"]
    for note in notes:
        lines += [f"# {line}" for line in textwrap.wrap(f"left out {note}", WIDTH - 2, subsequent_indent="  ")]
    # nan != nan: where an expected value holds one, equal reprs (of plain data) count as equal
    check = "actual == expected or repr(actual) == repr(expected)" if nan else "actual == expected"
    tests: list[list[str]] = []
    if returned:
        tests.append(["@pytest.mark.parametrize(", '    "arguments, expected",', "    [", *returned, "    ],", ")",
                      f"def {spec.test_name}(arguments, expected):", *(f"    {line}" for line in setup),
                      f"    actual = {call}", f"    assert {check}"])
    if raised:
        tests.append(["@pytest.mark.parametrize(", '    "arguments, exception",', "    [", *raised, "    ],", ")",
                      f"def {spec.test_name}_raises(arguments, exception):", "    with pytest.raises(exception):",
                      *(f"        {line}" for line in setup), f"        {call}"])
    if returned_warns:
        tests.append(["@pytest.mark.parametrize(", '    "arguments, expected, warns",', "    [", *returned_warns,
                      "    ],", ")", f"def {spec.test_name}_warns(arguments, expected, warns):", *_WARNS_FIRST,
                      *(f"        {line}" for line in setup), f"        actual = {call}", f"    assert {check}",
                      *_WARNS_ALL])
    if raised_warns:
        tests.append(["@pytest.mark.parametrize(", '    "arguments, exception, warns",', "    [", *raised_warns,
                      "    ],", ")", f"def {spec.test_name}_raises_warns(arguments, exception, warns):",
                      *_WARNS_FIRST, "        with pytest.raises(exception):",
                      *(f"            {line}" for line in setup), f"            {call}", *_WARNS_ALL])
    for k, test in enumerate(tests):
        lines += ["", "", *test] if k else test
    return lines


# the body of a parametrized `_warns` test around its call: `warns` holds (category, message, here) triples, the
# first asserted by `pytest.warns`, each one after the call (`here`: it points at this file, where the call is)
_WARNS_FIRST = ["    category, message, _ = warns[0]",
                '    with pytest.warns(category, match="^" + re.escape(message) + "$") as warned:']
_WARNS_ALL = ["    for category, message, here in warns:",
              "        assert any(",
              "            issubclass(w.category, category) and str(w.message) == message",
              "            and (not here or w.filename == __file__)",
              "            for w in warned",
              "        )"]


def _warns_value(mod: ModuleWriter, warns: tuple[ExpectedWarning, ...]) -> str:
    """Source of a case's warnings as a `_warns` test takes them: a list of (category, message, here)."""
    return "[" + ", ".join(f"({category_source(mod, w)}, {w.message!r}, {w.here})" for w in warns) + "]"


def _comment(arguments: Any, expected: Any = NOTHING) -> str:
    """A comment showing pickled values by repr, when their repr is stable (no memory address) and short."""
    try:
        text = repr(arguments) if expected is NOTHING else f"{arguments!r} -> {expected!r}"
    except Exception:  # noqa: BLE001 - a raising or too deep __repr__: no comment
        return ""
    if " at 0x" in text or "\n" in text or len(text) > WIDTH - 10:
        return ""
    return text


def short_repr(value: Any, limit: int = 40) -> str:
    """`value`'s repr without memory addresses, cut to `limit` characters (a note's or an example's text)."""
    from mu2py.engine.oracle import identity_free_repr

    text = identity_free_repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def tests_file_stem(module: str) -> str:
    """The file stem of the tests of `module` (prefixed so it never shadows a suite's own test module)."""
    return "test_corpus_" + module.replace(".", "_")


def render(module: str, functions: list[FunctionCases], command: str,
           reproducible: bool = True) -> tuple[str, bytes | None]:
    """The pytest module for `module` and the pickle bytes its cases need (None when all are literals).

    `reproducible` says whether `command` regenerates the same file (a trial budget does;
    a time budget does not: how many trials fit in it varies from run to run).
    """
    mod = ModuleWriter(module)
    mod.reserved.update(fc.spec.test_name for fc in functions)
    mod.reserved.update(f"{fc.spec.test_name}_raises" for fc in functions)
    body: list[str] = []
    for fc in sorted(functions, key=lambda f: f.spec.name):
        body += _function_source(fc, mod)
    stem = tests_file_stem(module)
    how = (f"Regenerate with: {command}" if reproducible else
           f"Generated by: {command}\n(a time budget: another run may try more or fewer inputs;\n"
           "the same --seed and --trials give the same file)")
    header = [
        f'"""Regression tests of {module}, generated by `mu2py corpus` from a mutation-guided corpus.',
        "",
        "Each case replays a saved input and asserts what the original code returned (==) or raised,",
        "and the warnings it emitted, when the tests were generated.",
        how,
        '"""',
        "",
    ]
    uses_re = any(line.endswith(" as warned:") for line in body)  # a `_warns` test matches messages
    std = [*(["import pickle"] if mod.pickled else []), *(["import re"] if uses_re else []),
           *(["from pathlib import Path"] if mod.pickled else [])]
    imports = [*std, *([""] if std else []), "import pytest", "", *mod.import_lines()]
    pickled_bytes = None
    if mod.pickled:
        imports += ["", "# inputs and outputs with no literal form, pickled when the tests were generated",
                    f'_PICKLED = pickle.loads((Path(__file__).parent / "{stem}.pickle").read_bytes())']
        pickled_bytes = pickle.dumps(dict(sorted(mod.pickled.items())), protocol=PICKLE_PROTOCOL)
    return "\n".join(header + imports + body) + "\n", pickled_bytes
