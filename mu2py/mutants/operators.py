"""Mutation operators: the one adapter over mutmut's libcst operator table, plus PIT defaults.

mutmut is pinned to one exact version (see pyproject.toml) and used only here, through
`MutationVisitor` and `mutation_operators`, never through its file API (which reads its
own configuration from the current directory).  The operators mutmut lacks but PIT has by
default are added below: negated relational conditionals, `%`/`//` to `*`, removal of
unary minus, `return e` to `return None`, and constants minus one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import libcst as cst
from libcst._nodes.internal import CodegenState  # Module.code_for_node with an indentation
from libcst.metadata import (
    MetadataWrapper,
    ParentNodeProvider,
    PositionProvider,
    WhitespaceInclusivePositionProvider,
)
from mutmut.mutation import mutators as mm
from mutmut.mutation.file_mutation import NEVER_MUTATE_FUNCTION_NAMES, MutationVisitor
from mutmut.mutation.pragma_handling import IgnoredCode, PragmaVisitor

_NEGATED_COMPARISON: dict[type[cst.CSTNode], type[cst.CSTNode]] = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
}
_EXTRA_ARITHMETIC: dict[type[cst.CSTNode], type[cst.CSTNode]] = {
    cst.Modulo: cst.Multiply,
    cst.FloorDivide: cst.Multiply,
}


def _negate_relational(node: cst.ComparisonTarget) -> Iterable[cst.CSTNode]:
    new = _NEGATED_COMPARISON.get(type(node.operator))
    if new is not None:
        yield node.with_changes(operator=new())


def _extra_arithmetic(node: cst.BinaryOperation) -> Iterable[cst.CSTNode]:
    new = _EXTRA_ARITHMETIC.get(type(node.operator))
    if new is not None:
        yield node.with_changes(operator=new())


def _remove_unary_minus(node: cst.UnaryOperation) -> Iterable[cst.CSTNode]:
    if isinstance(node.operator, cst.Minus):
        # keep the operand's own parentheses only; `-(a+b)` becomes `(a+b)`
        yield node.expression


def _return_none(node: cst.Return) -> Iterable[cst.CSTNode]:
    value = node.value
    if value is not None and not (isinstance(value, cst.Name) and value.value in ("None", "True", "False")):
        # `return(x)` has no space after `return`: `returnNone` would not parse
        yield node.with_changes(value=cst.Name("None"), whitespace_after_return=cst.SimpleWhitespace(" "))


def _constant_minus_one(node: cst.BaseNumber) -> Iterable[cst.CSTNode]:
    if isinstance(node, cst.Integer):
        value: float = node.evaluated_value  # an int here, a float in the branch below
        if value >= 1:  # `0 - 1` would need a unary minus node; mutmut's `+1` already covers 0
            yield node.with_changes(value=repr(value - 1))
    elif isinstance(node, cst.Float):
        value = node.evaluated_value - 1
        if value == value and abs(value) != float("inf") and value >= 0:
            yield node.with_changes(value=repr(value))


OperatorFn = Callable[[Any], Iterable[cst.CSTNode]]

#: (node type, operator function, operator family); mutmut's table first, in its order,
#: then the PIT additions, so mutmut-generated mutants keep their relative order.
OPERATORS: list[tuple[type, OperatorFn]] = [
    *mm.mutation_operators,
    (cst.ComparisonTarget, _negate_relational),
    (cst.BinaryOperation, _extra_arithmetic),
    (cst.UnaryOperation, _remove_unary_minus),
    (cst.Return, _return_none),
    (cst.BaseNumber, _constant_minus_one),
]

_BOUNDARY = {cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual}


def operator_family(original: cst.CSTNode, mutated: cst.CSTNode, fn: OperatorFn) -> str:
    """A short, PIT-like name for the kind of change a mutation makes."""
    name = getattr(fn, "__name__", "")
    if fn is mm.operator_swap_op:
        if isinstance(original, cst.ComparisonTarget):
            old, new = type(original.operator), type(mutated.operator)  # type: ignore[attr-defined]  # a ComparisonTarget too
            return "boundary" if old in _BOUNDARY and new in _BOUNDARY else "negate_cond"
        if isinstance(original, cst.BooleanOperation):
            return "and_or"
        if isinstance(original, cst.AugAssign):
            return "aug_assign"
        if isinstance(original, cst.UnaryOperation):
            return "unary_sign"
        return "arithmetic"
    return {
        "operator_number": "constant",
        "_constant_minus_one": "constant",
        "operator_string": "string",
        "operator_name": "name",
        "operator_assignment": "assign_value",
        "operator_augmented_assignment": "aug_to_assign",
        "operator_remove_unary_ops": "unary_removal",
        "_remove_unary_minus": "unary_removal",
        "operator_dict_arguments": "dict_kwarg",
        "operator_arg_removal": "call_arg",
        "operator_symmetric_string_methods_swap": "str_method",
        "operator_unsymmetrical_string_methods_swap": "str_method",
        "operator_lambda": "lambda",
        "operator_keywords": "negate_cond" if isinstance(original, cst.BaseCompOp) else "loop_control",
        "operator_match": "match_case",
        "operator_if_exp": "if_exp",
        "_negate_relational": "negate_cond",
        "_extra_arithmetic": "arithmetic",
        "_return_none": "return_value",
    }.get(name, name)


@dataclass
class FoundMutation:
    """A mutation found in a parsed module, before it is turned into a `Mutant`."""

    original_node: cst.CSTNode
    mutated_node: cst.CSTNode
    operator: str
    line: int
    column: int
    end_line: int
    end_column: int
    original_code: str
    mutated_code: str
    span: tuple[int, int] | None = None


class _RecordingVisitor(MutationVisitor):
    """mutmut's visitor, also noting which operator made each mutation."""

    def __init__(self, ignored: IgnoredCode) -> None:
        super().__init__(OPERATORS, ignored, None)
        self.found: list[tuple[cst.CSTNode, cst.CSTNode, str]] = []

    def _skip_node_and_children(self, node: cst.CSTNode) -> bool:
        # mutmut skips decorated functions and `__new__`, `__getattribute__`, `__setattr__`
        # because its trampolines cannot wrap them; module copies have no trampolines, so
        # only a pragma (or an enum's creation hook) skips such a function here, and the
        # decorator expressions themselves are skipped where they are visited
        if isinstance(node, cst.FunctionDef) and (node.decorators or node.name.value in NEVER_MUTATE_FUNCTION_NAMES):
            position = self.get_metadata(PositionProvider, node, None)
            if position is not None and position.start.line in self._ignored_node_lines:
                return bool(super()._skip_node_and_children(node))  # mutmut's pragma handling records it
            return node in self._enum_creation_hooks
        return bool(super()._skip_node_and_children(node))

    def _create_mutations(self, node: cst.CSTNode) -> None:
        for node_type, fn in self._operators:
            if not isinstance(node, node_type):
                continue
            for mutated in fn(node):
                if self._removes_ignored_code(node, mutated):
                    continue
                self.found.append((node, mutated, operator_family(node, mutated, fn)))


@dataclass
class ParsedModule:
    """A module's source parsed once: the libcst tree (inside its metadata wrapper) and its mutations."""

    wrapper: MetadataWrapper
    mutations: list[FoundMutation]
    positions: Any
    parents: Any
    source_hash: str

    @property
    def module(self) -> cst.Module:
        """The tree whose nodes the mutations refer to."""
        return self.wrapper.module


def _pattern_lines(source: str, patterns: Iterable[str]) -> set[int]:
    import re

    compiled = [re.compile(p) for p in patterns]
    return {i for i, text in enumerate(source.splitlines(), 1) if any(c.search(text) for c in compiled)}


def find_mutations(source: str, filename: str, skip_patterns: Iterable[str] = ()) -> ParsedModule:
    """Parse `source` and list its mutations (raises libcst.ParserSyntaxError on bad syntax).

    Lines carrying `# pragma: no mutate` (and mutmut's block pragmas) are skipped, and so
    are lines matching any regex of `skip_patterns`.
    """
    module = cst.parse_module(source)
    # no defensive deep copy (a fifth of this function's time): the tree was parsed here and nothing else holds it,
    # and libcst's parser makes every node anew (metadata is keyed by node identity)
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    pragma = PragmaVisitor(filename)
    wrapper.visit(pragma)
    ignored = IgnoredCode(
        no_mutate_lines=pragma.no_mutate_lines,
        ignore_node_lines=pragma.ignore_node_lines,
        ignore_pattern_lines=_pattern_lines(source, skip_patterns),
    )
    visitor = _RecordingVisitor(ignored)
    wrapper.visit(visitor)
    positions = wrapper.resolve(PositionProvider)
    inclusive = wrapper.resolve(WhitespaceInclusivePositionProvider)
    parents = wrapper.resolve(ParentNodeProvider)
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    empty = cst.Module(body=[])
    found: list[FoundMutation] = []
    for original, mutated, family in visitor.found:
        pos = positions.get(original)
        if pos is None:
            continue
        found.append(
            FoundMutation(
                original_node=original,
                mutated_node=mutated,
                operator=family,
                line=pos.start.line,
                column=pos.start.column,
                end_line=pos.end.line,
                end_column=pos.end.column,
                original_code=empty.code_for_node(original),
                mutated_code=empty.code_for_node(mutated),
            )
        )
        span = _span(source, line_starts, inclusive.get(original), found[-1].original_code)
        if span is None:
            # a node over several lines inside an indented block: its continuation lines carry the block's
            # indentation, which code_for_node leaves out (116 of urllib.parse's mutants, each then costing a
            # whole-module rewrite by libcst, a third of a second)
            indented = _indented_code(source, line_starts, inclusive.get(original), original, mutated, module)
            if indented is not None:
                found[-1].original_code, found[-1].mutated_code, span = indented
        found[-1].span = span
    return ParsedModule(
        wrapper=wrapper,
        mutations=found,
        positions=positions,
        parents=parents,
        source_hash=hashlib.sha256(source.encode()).hexdigest()[:16],
    )


def _code_at_indent(node: cst.CSTNode, module: cst.Module, indent: str) -> str:
    """A node's code as it reads inside a block indented by `indent` (libcst's own codegen, one level set)."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline,
                         indent_tokens=[indent] if indent else [])
    node._codegen(state)
    return "".join(state.tokens)


def _indented_code(source: str, line_starts: list[int], pos: object, original: cst.CSTNode,
                   mutated: cst.CSTNode, module: cst.Module) -> tuple[str, str, tuple[int, int]] | None:
    """(original code, mutated code, span) of a multi-line node whose code depends on its block's indentation.

    The block's indentation is that of a line at or before the node's first line: each candidate is
    tried until the original's code equals the source text (so the span stays verified), and the
    mutated code is generated at the same indentation.
    """
    if pos is None:
        return None
    start = line_starts[pos.start.line - 1] + pos.start.column  # type: ignore[attr-defined]  # a CodeRange: metadata values are untyped
    end = line_starts[pos.end.line - 1] + pos.end.column  # type: ignore[attr-defined]  # a CodeRange: metadata values are untyped
    text = source[start:end]
    tried: set[str] = set()
    for line in range(pos.start.line, max(0, pos.start.line - 30), -1):  # type: ignore[attr-defined]  # a CodeRange: metadata values are untyped
        row = source[line_starts[line - 1]:line_starts[line]]
        indent = row[:len(row) - len(row.lstrip(" \t"))]
        if indent in tried:
            continue
        tried.add(indent)
        if _code_at_indent(original, module, indent) == text:
            return text, _code_at_indent(mutated, module, indent), (start, end)
    return None


def _span(source: str, line_starts: list[int], pos: object, code: str) -> tuple[int, int] | None:
    """Character offsets of a node's own text in `source`, when they can be verified."""
    if pos is None:
        return None
    start = line_starts[pos.start.line - 1] + pos.start.column  # type: ignore[attr-defined]  # a CodeRange: metadata values are untyped
    end = line_starts[pos.end.line - 1] + pos.end.column  # type: ignore[attr-defined]  # a CodeRange: metadata values are untyped
    return (start, end) if source[start:end] == code else None


def apply_mutation(parsed: ParsedModule, mutation: FoundMutation, source: str | None = None) -> str:
    """The module's source with one mutation applied (the original tree is left unchanged).

    With the original `source`, the node's verified text span is spliced (fast); otherwise,
    or when no span could be verified, the tree is rewritten with libcst.
    """
    if source is not None and mutation.span is not None:
        start, end = mutation.span
        return source[:start] + mutation.mutated_code + source[end:]
    return parsed.module.deep_replace(mutation.original_node, mutation.mutated_node).code  # type: ignore[attr-defined]  # a Module's deep_replace returns a Module
