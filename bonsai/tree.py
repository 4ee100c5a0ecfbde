"""Derivation trees of the bounded generator and their rendering to text that re-lexes and parses."""

from __future__ import annotations

from typing import NamedTuple, Union

from bonsai.grammar import Grammar

__all__ = ["RepeatNode", "RuleNode", "Token", "Tree", "pretty", "render", "tokens"]


class Token(NamedTuple):
    """A leaf: the terminal's name and the text chosen for it ('' for %declare'd terminals)."""

    terminal: str
    text: str


class RepeatNode(NamedTuple):
    """One `*`/`+`/`?`/`[..]`/`~` repetition: `count` iterations, their items flattened into `children`."""

    count: int  # type: ignore[assignment]  # the field shadows tuple.count, on purpose
    children: tuple[Tree, ...]


class RuleNode(NamedTuple):
    """An expanded non-terminal (a rule or a template instance), with the alias of the chosen alternative."""

    rule: str
    children: tuple[Tree, ...]
    alias: str | None = None


Tree = Union[RuleNode, RepeatNode, Token]  # noqa: UP007 - a runtime alias used in isinstance-free code


def tokens(tree: Tree) -> list[Token]:
    """The leaves of `tree` from left to right."""
    out: list[Token] = []
    _collect(tree, out)
    return out


def _collect(node: Tree, out: list[Token]) -> None:
    if type(node) is Token:
        out.append(node)
        return
    for child in node.children:  # type: ignore[union-attr]  # not a Token: mypy narrows no `type(x) is` else-branch
        _collect(child, out)


def render(tree: Tree, grammar: Grammar) -> str:
    """Text of `tree` that lexes back into the same terminals.

    Ignored whitespace (the grammar's `%ignore`) is inserted only between tokens that could
    otherwise merge (see `Grammar.needs_space`).  Under an Indenter setup, the newline terminal
    renders as a real newline and `_INDENT`/`_DEDENT` as 4 spaces per block level on the next line.
    """
    out: list[str] = []
    space = grammar.space
    needs_space = grammar.needs_space
    ind = grammar.indenter
    nl = ind.newline if ind else None
    indent = ind.indent if ind else None
    dedent = ind.dedent if ind else None
    level = 0
    line_start = False
    prev: str | None = None
    for name, text in tokens(tree):
        if ind is not None:
            if name == nl:
                out.append("\n")
                line_start = True
                prev = None
                continue
            if name == indent:
                level += 1
                continue
            if name == dedent:
                level = max(0, level - 1)
                continue
        if not text:
            continue
        if line_start:
            out.append("    " * level)
            line_start = False
        elif prev is not None and space is not None and needs_space(prev, text):
            out.append(space)
        out.append(text)
        prev = text
    return "".join(out)


def pretty(tree: Tree, indent: str = "  ") -> str:
    """A multi-line outline of `tree` for people (rules, repetition counts, tokens)."""
    lines: list[str] = []

    def walk(node: Tree, depth: int) -> None:
        pad = indent * depth
        if type(node) is Token:
            lines.append(f"{pad}{node.terminal} {node.text!r}")
        elif type(node) is RepeatNode:
            lines.append(f"{pad}*{node.count}")
            for child in node.children:
                walk(child, depth + 1)
        else:
            label = node.rule if node.alias is None else f"{node.rule} -> {node.alias}"  # type: ignore[union-attr]  # a RuleNode: mypy narrows no `type(x) is` else-branch
            lines.append(f"{pad}{label}")
            for child in node.children:  # type: ignore[union-attr]  # a RuleNode, as above
                walk(child, depth + 1)

    walk(tree, 0)
    return "\n".join(lines)
