"""Parameter types written in a docstring: the last place hints are looked for, and only simple ones.

Three styles are read:

* Sphinx: `:type x: int`, or `:param int x: ...`;
* Google: `x (int): ...` (or `x (int, optional): ...`) under an `Args:` (`Arguments:`, `Parameters:`) line;
* NumPy: `x : int` (or `x, y : int, optional`) under a `Parameters` line underlined with dashes.

A type is used only when it is simple: after dropping `optional` and `default ...` remarks and
reading `A or B` as `A | B`, it must parse as names, dotted names, subscripts and `|` (so `list of
int` or `array_like` give nothing), evaluate in the module's hint namespace, and give a class or a
typing form. Anything else is no hint.
"""

from __future__ import annotations

import ast
import inspect
import re
import typing
from collections.abc import Callable
from typing import Any

_SPHINX_TYPE = re.compile(r"^\s*:type\s+\*{0,2}(\w+)\s*:\s*(.+?)\s*$", re.MULTILINE)
_SPHINX_PARAM = re.compile(r"^\s*:param\s+([^:]+?)\s+\*{0,2}(\w+)\s*:", re.MULTILINE)
_GOOGLE_HEADER = re.compile(r"^(\s*)(?:Args|Arguments|Parameters|Params)\s*:\s*$")
_GOOGLE_ENTRY = re.compile(r"^\s*\*{0,2}(\w+)\s*\(([^()]*(?:\([^()]*\)[^()]*)*)\)\s*:")
_NUMPY_ENTRY = re.compile(r"^\s*(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s+:\s+(.+?)\s*$")
_REMARK = re.compile(r"^(optional|default\b.*|defaults? to\b.*)$", re.IGNORECASE)
# the node types a simple type expression is made of (`Optional[dict[str, int]]`, `int | None`, `np.ndarray`)
_SIMPLE = (ast.Expression, ast.Name, ast.Attribute, ast.Subscript, ast.Tuple, ast.List, ast.BinOp, ast.BitOr,
           ast.Constant, ast.Load)


def _google(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        header = _GOOGLE_HEADER.match(line)
        if header is None:
            continue
        for entry in lines[i + 1:]:
            if entry.strip() and len(entry) - len(entry.lstrip()) <= len(header.group(1)):
                break  # the next section starts at the header's indentation
            match = _GOOGLE_ENTRY.match(entry)
            if match:
                found.setdefault(match.group(1), match.group(2))
    return found


def _numpy(lines: list[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for i, line in enumerate(lines[:-1]):
        if line.strip() not in ("Parameters", "Other Parameters") or not re.fullmatch(r"\s*-{3,}\s*", lines[i + 1]):
            continue
        indent = len(line) - len(line.lstrip())
        for j in range(i + 2, len(lines)):
            entry = lines[j]
            if j + 1 < len(lines) and re.fullmatch(r"\s*-{3,}\s*", lines[j + 1]):
                break  # the next section's title
            if not entry.strip() or len(entry) - len(entry.lstrip()) != indent:
                continue  # a description line
            match = _NUMPY_ENTRY.match(entry)
            if match:
                for name in match.group(1).split(","):
                    found.setdefault(name.strip().lstrip("*"), match.group(2))
    return found


def docstring_types(doc: str) -> dict[str, str]:
    """Parameter name -> type text as `doc` writes it, in any of the three styles (the first mention wins)."""
    found: dict[str, str] = {}
    for name, text in _SPHINX_TYPE.findall(doc):
        found.setdefault(name, text)
    for text, name in _SPHINX_PARAM.findall(doc):
        found.setdefault(name, text)
    lines = doc.splitlines()
    for name, text in [*_google(lines).items(), *_numpy(lines).items()]:
        found.setdefault(name, text)
    return found


def _top_level_parts(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        if char in "[(":
            depth += 1
        elif char in "])":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:i].strip())
            start = i + 1
    return [*parts, text[start:].strip()]


def simple_type(text: str, namespace: dict[str, Any]) -> Any:
    """The type `text` names when it is simple (see the module docstring), else None."""
    first, *remarks = _top_level_parts(text.strip().strip("`"))
    if not first or not all(_REMARK.match(remark) for remark in remarks):
        return None
    expression = re.sub(r"\s+or\s+", " | ", first)
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        return None
    if not all(isinstance(node, _SIMPLE) for node in ast.walk(tree)):
        return None
    try:
        value = eval(compile(tree, "<docstring>", "eval"), dict(namespace))  # noqa: S307 - names and subscripts only
    except Exception:  # noqa: BLE001 - a name the module does not bind: no hint
        return None
    if value is None:
        return type(None)
    if isinstance(value, type) or typing.get_origin(value) is not None:
        return value
    return None


def docstring_hints(fn: Callable[..., Any], namespace: dict[str, Any], notes: list[str],
                    wanted: set[str]) -> dict[str, Any]:
    """The hints of `fn`'s parameters in `wanted` that its docstring types simply (see the module docstring)."""
    doc = inspect.getdoc(inspect.unwrap(fn)) or ""
    if not doc:
        return {}
    hints = {}
    for name, text in docstring_types(doc).items():
        if name in wanted:
            hint = simple_type(text, namespace)
            if hint is not None:
                hints[name] = hint
    if hints:
        notes.append(f"type hints from the docstring: {', '.join(sorted(hints))}")
    return hints
