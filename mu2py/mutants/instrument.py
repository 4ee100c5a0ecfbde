"""Rewrite a module's syntax tree so its original behaviour is kept and probes watch every site.

The rewritten module computes exactly what the original computes (probes return the
original value, evaluate operands once and in the original order) and reports, per run,
which sites were reached and which mutants were infected (see `probes`).
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst

from mu2py.mutants.sites import HEADER_FIELD, Site

PROBE_NAMES = ("__mu2_hit__", "__mu2_bin__", "__mu2_cmp__", "__mu2_aug__", "__mu2_enter__",
               "__mu2_ret__", "__mu2_val__", "__mu2_stmt__")


def _call(name: str, *args: cst.BaseExpression) -> cst.Call:
    return cst.Call(func=cst.Name(name), args=[cst.Arg(a) for a in args])


def _operands(name: str, sid: cst.Integer, left: cst.BaseExpression, op: cst.CSTNode,
              right: cst.BaseExpression) -> cst.Call:
    """`name(sid, left, right)`, the comma between the operands taking the operator's whitespace.

    An operation split over lines inside brackets (`a +` newline `b`) keeps its line break in
    the comma: every node after it keeps its line number, so coverage keys of the probed copy
    are those of the file (one key space with the plain copy).
    """
    comma = cst.Comma(whitespace_before=op.whitespace_before,  # type: ignore[attr-defined]  # an operator with both whitespaces
                      whitespace_after=op.whitespace_after)  # type: ignore[attr-defined]  # an operator with both whitespaces
    return cst.Call(func=cst.Name(name), args=[cst.Arg(sid), cst.Arg(left, comma=comma), cst.Arg(right)])


def _int(n: int) -> cst.Integer:
    return cst.Integer(str(n))


def _keep_parens(original: cst.BaseExpression, new: cst.BaseExpression) -> cst.BaseExpression:
    # parentheses carry line continuations: keep the original's around the probe call
    lpar = getattr(original, "lpar", ())
    rpar = getattr(original, "rpar", ())
    return new.with_changes(lpar=lpar, rpar=rpar) if lpar else new


class _Instrumenter(cst.CSTTransformer):
    def __init__(self, sites: Sequence[Site], key: dict[int, int]) -> None:
        super().__init__()
        self.by_anchor = {id(s.anchor): s for s in sites if s.kind not in ("static", "stmt")}
        self.before: dict[int, list[int]] = {}
        for site in sites:
            if site.kind == "stmt" and site.statement is not None:
                self.before.setdefault(id(site.statement), []).append(key[site.index])
        self.key = key

    def on_leave(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]  # narrower than libcst's signature
        site = self.by_anchor.get(id(original))
        if site is not None:
            updated = self._probe(site, updated)
        sids = self.before.get(id(original))
        if sids:
            updated = self._statement_probe(updated, sids)
        if isinstance(original, cst.SimpleStatementSuite):
            updated = updated.with_changes(body=self._prefix_small(original.body, updated.body))  # type: ignore[attr-defined]  # a SimpleStatementSuite, as original
        return updated

    @staticmethod
    def _stmt_call(sids: Sequence[int]) -> cst.Call:
        return _call("__mu2_stmt__", *[_int(s) for s in sids])

    def _statement_probe(self, node: cst.CSTNode, sids: Sequence[int]) -> cst.CSTNode:
        # every probe stays on the statement's own line, so line numbers (coverage,
        # tracebacks, failure locations) are those of the original source
        if isinstance(node, cst.SimpleStatementLine):
            return node.with_changes(body=[cst.Expr(self._stmt_call(sids)), *node.body])
        if isinstance(node, cst.BaseSmallStatement):
            return node  # handled by the enclosing suite
        field = HEADER_FIELD[type(node)]
        header = getattr(node, field)
        wrapped = cst.BooleanOperation(self._stmt_call(sids), cst.Or(), _paren(header))
        return node.with_changes(**{field: wrapped.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])})

    def _prefix_small(self, originals: Sequence[cst.CSTNode], updated: Sequence[cst.CSTNode]) -> list:
        body: list[cst.CSTNode] = []
        for orig, new in zip(originals, updated, strict=True):
            sids = self.before.get(id(orig))
            if sids:
                body.append(cst.Expr(self._stmt_call(sids)))
            body.append(new)
        return body

    def _probe(self, site: Site, node: cst.CSTNode) -> cst.CSTNode:
        sid = _int(self.key[site.index])
        if site.kind == "bin":
            assert isinstance(node, cst.BinaryOperation)
            return _keep_parens(node, _operands("__mu2_bin__", sid, node.left, node.operator, node.right))
        if site.kind == "cmp":
            assert isinstance(node, cst.Comparison)
            target = node.comparisons[0]
            return _keep_parens(node, _operands("__mu2_cmp__", sid, node.left, target.operator, target.comparator))
        if site.kind == "aug":
            assert isinstance(node, cst.AugAssign) and isinstance(node.target, cst.Name)
            value = _call("__mu2_aug__", sid, cst.Name(node.target.value), node.value)
            return cst.Assign(targets=[cst.AssignTarget(node.target)], value=value, semicolon=node.semicolon)
        if site.kind == "ret":
            assert isinstance(node, cst.Return) and node.value is not None
            entered = cst.BooleanOperation(_call("__mu2_enter__", sid), cst.Or(), _paren(node.value))
            return node.with_changes(value=_call("__mu2_ret__", sid, entered),
                                     whitespace_after_return=cst.SimpleWhitespace(" "))
        if site.kind == "val":
            assert isinstance(node, (cst.Assign, cst.AnnAssign)) and node.value is not None
            entered = cst.BooleanOperation(_call("__mu2_enter__", sid), cst.Or(), _paren(node.value))
            return node.with_changes(value=_call("__mu2_val__", sid, entered))
        if site.kind == "hit":
            assert isinstance(node, cst.BaseExpression)
            # `(hit() or e)` records the site *before* e runs (hit returns None), so a
            # mutant that skips part of e is still seen as reached when e raises
            lpar = getattr(node, "lpar", None)
            inner = node.with_changes(lpar=(), rpar=()) if lpar else node
            expr = cst.BooleanOperation(_call("__mu2_hit__", sid), cst.Or(), _paren(inner))
            # the node's own parentheses go outside: a line break after `(` stays where it was
            return expr.with_changes(lpar=lpar or [cst.LeftParen()], rpar=node.rpar if lpar else [cst.RightParen()])
        raise AssertionError(site.kind)


def _paren(expr: cst.BaseExpression) -> cst.BaseExpression:
    if getattr(expr, "lpar", None):
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def instrument(module: cst.Module, sites: Sequence[Site], key: dict[int, int]) -> str:
    """Source of `module` with a probe at every site; `key` maps a site's index to its global id."""
    return module.visit(_Instrumenter(sites, key)).code
