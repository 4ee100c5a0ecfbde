"""Mutation sites: where each mutation lives, what runs it, and how a probe can watch it.

A *site* is the expression or statement a probe watches for a group of mutants.  For
most mutations it is the mutated node itself; an operator node (`is`, `in`) or a
comparison target belongs to its enclosing `Comparison`.  Each site is classified by how
its probe can be attached:

* `bin`  — a binary operation, probed as `probe(site, left, right)`: infection computed
* `cmp`  — a single comparison `a OP b`, probed likewise: infection computed
* `aug`  — `name op= value` on a plain name: infection computed
* `ret`  — `return value`: infection computed (`return None` differs iff value is not None)
* `val`  — the value of an assignment: infection computed for the `= None` mutant
* `hit`  — any other expression, wrapped to record that it was evaluated
* `stmt` — a probe on the innermost enclosing statement: prepended on the same line to a
  simple statement, or wrapped around the header expression of an `if`/`while`/`for`/`match`
* `static` — no sound per-input probe (import-time code, lambda bodies...): never pruned
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from mu2py.mutants.operators import FoundMutation, ParsedModule
from mu2py.mutants.probes import inplace_ops

# Parents under which an expression cannot be replaced by a call.
_NO_WRAP_PARENTS = (
    cst.ConcatenatedString,
    cst.FormattedString,
    cst.Decorator,
    cst.Annotation,
    cst.ImportAlias,
    cst.ImportFrom,
    cst.Import,
    cst.AsName,
    cst.Global,
    cst.Nonlocal,
    cst.NameItem,
    cst.MatchValue,
    cst.MatchSingleton,
    cst.MatchAs,
    cst.MatchClass,
    cst.MatchKeywordElement,
    cst.MatchMappingElement,
    cst.MatchSequenceElement,
    cst.AssignTarget,
    cst.Del,
)
# Parents whose `target` slot is a store context: only that slot cannot be wrapped.
_TARGET_PARENTS = (cst.For, cst.CompFor, cst.AugAssign, cst.AnnAssign)

#: compound statements whose header expression can carry a statement probe
HEADER_FIELD: dict[type, str] = {cst.If: "test", cst.While: "test", cst.For: "iter", cst.Match: "subject"}

_BLOCK_STATEMENTS = (cst.SimpleStatementLine, cst.BaseCompoundStatement)


@dataclass
class Site:
    """One probed place: its kind, anchor node and the mutations it watches."""

    index: int
    kind: str
    anchor: cst.CSTNode
    scope: str
    per_call: bool = True
    statement: cst.CSTNode | None = None
    mutations: list[FoundMutation] = field(default_factory=list)


def _anchor(parsed: ParsedModule, node: cst.CSTNode) -> cst.CSTNode:
    """The expression or statement a mutation's node belongs to."""
    parents = parsed.parents
    while isinstance(node, (cst.BaseCompOp, cst.ComparisonTarget, cst.BaseBinaryOp, cst.BaseUnaryOp,
                            cst.BaseBooleanOp, cst.BaseAugOp)):
        node = parents[node]
    return node


def _scope(parsed: ParsedModule, node: cst.CSTNode) -> tuple[str, bool]:
    """(qualified scope name, runs-per-call) for a node.

    A node runs per call when some enclosing function or lambda *body* holds it; default
    values and decorators of a function run when the function is defined instead.
    """
    parents = parsed.parents
    names: list[str] = []
    per_call = False
    via_params = False
    current = node
    while current in parents:
        parent = parents[current]
        if isinstance(parent, cst.Parameters):
            via_params = True
        elif isinstance(parent, (cst.FunctionDef, cst.Lambda)):
            if not via_params and (isinstance(parent, cst.Lambda) or current is parent.body):
                per_call = True
                names.append(parent.name.value if isinstance(parent, cst.FunctionDef) else "<lambda>")
            elif isinstance(parent, cst.FunctionDef):
                names.append(parent.name.value)
            via_params = False
        elif isinstance(parent, cst.ClassDef):
            names.append(parent.name.value)
        current = parent
    scope = ".".join(reversed(names)) if names else "<module>"
    return scope, per_call


def _wrappable(parsed: ParsedModule, node: cst.CSTNode) -> bool:
    if not isinstance(node, cst.BaseExpression):
        return False
    parent = parsed.parents.get(node)
    if parent is None or isinstance(parent, _NO_WRAP_PARENTS):
        return False
    if isinstance(parent, _TARGET_PARENTS) and parent.target is node:
        return False
    if isinstance(parent, cst.AnnAssign) and parent.annotation is node:
        return False
    if isinstance(parent, cst.Attribute) and parent.attr is node:
        return False
    if isinstance(parent, cst.Arg) and parent.keyword is node:
        return False
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param)) and getattr(parent, "name", None) is node:
        return False
    if isinstance(parent, cst.FormattedStringExpression) and parent.expression is not node:
        return False
    # a lambda body is evaluated only when the lambda is called: wrap inside, never around
    return True


def _enclosing_statement(parsed: ParsedModule, node: cst.CSTNode) -> cst.CSTNode | None:
    """The innermost block-level statement holding `node`, not crossing a lambda."""
    parents = parsed.parents
    current = node
    while current in parents:
        parent = parents[current]
        if isinstance(current, cst.Lambda) and current is not node:
            return None
        if isinstance(current, _BLOCK_STATEMENTS) and isinstance(
            parent, (cst.IndentedBlock, cst.Module)
        ):
            return current
        if isinstance(current, cst.BaseSmallStatement) and isinstance(parent, cst.SimpleStatementSuite):
            return current
        current = parent
    return None


def _is_docstring(parsed: ParsedModule, statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    body = statement.body
    if not (len(body) == 1 and isinstance(body[0], cst.Expr) and isinstance(body[0].value, cst.BaseString)):
        return False
    block = parsed.parents.get(statement)
    return block is not None and bool(block.body) and block.body[0] is statement


def _kind(parsed: ParsedModule, anchor: cst.CSTNode, mutations: list[FoundMutation]) -> str:
    if isinstance(anchor, cst.BinaryOperation) and all(m.operator == "arithmetic" for m in mutations):
        return "bin" if _wrappable(parsed, anchor) else "stmt"
    if (
        isinstance(anchor, cst.Comparison)
        and len(anchor.comparisons) == 1
        and all(m.operator in ("boundary", "negate_cond") for m in mutations)
    ):
        return "cmp" if _wrappable(parsed, anchor) else "stmt"
    if (
        isinstance(anchor, cst.AugAssign)
        and isinstance(anchor.target, cst.Name)
        and inplace_ops(type(anchor.operator)) is not None
    ):
        return "aug"
    if isinstance(anchor, cst.Return) and anchor.value is not None:
        return "ret"
    if isinstance(anchor, (cst.Assign, cst.AnnAssign)) and anchor.value is not None:
        return "val"
    if _wrappable(parsed, anchor):
        return "hit"
    return "stmt"


def find_sites(parsed: ParsedModule) -> list[Site]:
    """Group the module's mutations by site, in source order; every mutation gets exactly one site."""
    by_anchor: dict[int, Site] = {}
    order: list[Site] = []
    for mutation in parsed.mutations:
        anchor = _anchor(parsed, mutation.original_node)
        site = by_anchor.get(id(anchor))
        if site is None:
            scope, per_call = _scope(parsed, anchor)
            site = Site(index=len(order), kind="static" if not per_call else "", anchor=anchor, scope=scope,
                        per_call=per_call)
            by_anchor[id(anchor)] = site
            order.append(site)
        site.mutations.append(mutation)
    for site in order:
        if site.kind == "static":
            continue
        site.kind = _kind(parsed, site.anchor, site.mutations)
        if site.kind == "stmt":
            statement = _enclosing_statement(parsed, site.anchor)
            if (
                statement is None
                or _is_docstring(parsed, statement)
                or (isinstance(statement, cst.BaseCompoundStatement) and type(statement) not in HEADER_FIELD)
            ):
                site.kind = "static"
            else:
                site.statement = statement
    return order
