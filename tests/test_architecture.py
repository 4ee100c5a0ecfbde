"""ARCHITECTURE.md names real code: every `FILE.py` and `FILE.py:NAME` it mentions exists, so it cannot drift.

References are read from the prose's backticked spans (a span that is a path and nothing else) and from the
diagrams (```text blocks: every token shaped like one). A path is taken from the repository root, else from
`mu2py/`; `NAME` is a function or class defined at the top level of that file, `Class.method` a method of it.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "ARCHITECTURE.md"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)
PATH = r"(?:[A-Za-z_][\w-]*/)*[A-Za-z_]\w*\.py"
NAME = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
REFERENCE = re.compile(rf"(?<![\w/.<-])({PATH})(?::({NAME}))?")
FOLDER = re.compile(r"(?:[A-Za-z_][\w-]*/)+")
MAX_DIAGRAM_LINES = 25


def _where(path: str) -> Path | None:
    """The file or folder a reference names: from the root, else from `mu2py/`."""
    for base in (ROOT, ROOT / "mu2py"):
        if (base / path).exists():
            return base / path
    return None


@cache
def _defined(file: Path) -> dict[str, ast.AST]:
    return {node.name: node for node in ast.parse(file.read_text(encoding="utf-8")).body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)}


def _has(file: Path, dotted: str) -> bool:
    """Whether `file` defines `dotted`: a top-level function or class, then attributes of a class's body."""
    first, *rest = dotted.split(".")
    node = _defined(file).get(first)
    for part in rest:
        if not isinstance(node, ast.ClassDef):
            return False
        node = next((n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                     and n.name == part), None)
    return node is not None


def references(text: str) -> list[tuple[str, str | None]]:
    """Every (path, name or None) of a document: backticked spans of its prose, and tokens of its text diagrams."""
    found: list[tuple[str, str | None]] = []
    for lang, body in ((m.group(1), m.group(2)) for m in FENCE.finditer(text)):
        if lang == "text":
            found += [(m.group(1), m.group(2)) for m in REFERENCE.finditer(body)]
    for span in re.findall(r"`([^`\n]+)`", FENCE.sub("", text)):
        whole = REFERENCE.fullmatch(span)
        if whole:
            found.append((whole.group(1), whole.group(2)))
        elif FOLDER.fullmatch(span):
            found.append((span, None))
    return found


def wrong(text: str) -> list[str]:
    """The references of `text` that name nothing in this repository."""
    errors = []
    for path, name in dict.fromkeys(references(text)):
        where = _where(path)
        if where is None:
            errors.append(f"{path}: no such file or folder")
        elif name is not None and not (where.is_file() and _has(where, name)):
            errors.append(f"{path}:{name}: not defined there")
    return errors


def test_every_reference_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert len(references(text)) > 100  # the diagrams are read, not skipped
    assert not wrong(text), "\n".join(wrong(text))


def test_the_check_catches_a_wrong_reference() -> None:
    text = ("`fuzz/fuzzer.py:Fuzzer.run` and `fuzz/fuzzer.py:Fuzzer.walk`\n"
            "```text\nscore/scoring.py:score -> score/nowhere.py -> api.py:scores\n```\n`no/such/folder/`\n")
    assert wrong(text) == ["score/nowhere.py: no such file or folder", "api.py:scores: not defined there",
                           "fuzz/fuzzer.py:Fuzzer.walk: not defined there", "no/such/folder/: no such file or folder"]


def test_each_diagram_is_one_picture() -> None:
    diagrams = [body for lang, body in ((m.group(1), m.group(2)) for m in FENCE.finditer(DOC.read_text()))
                if lang == "text"]
    assert diagrams and all(len(body.splitlines()) <= MAX_DIAGRAM_LINES for body in diagrams)


def test_its_links_resolve_and_the_readme_links_it() -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", FENCE.sub("", DOC.read_text(encoding="utf-8")))
    assert all((ROOT / link).exists() for link in links if "://" not in link), links
    assert "](ARCHITECTURE.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
