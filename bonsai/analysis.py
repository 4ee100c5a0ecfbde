"""Bound-independent analysis of a grammar's rules: minimal derivation sizes, productivity, reachability."""

from __future__ import annotations

from bonsai.ebnf import GROUP, REF, REPEAT
from bonsai.grammar import Grammar, GrammarLoadError

__all__ = ["derivation_costs", "productive_without", "reachable", "refs", "seq_ok"]


def derivation_costs(grammar: Grammar) -> tuple[dict[str, float], list[list[float]], list[int]]:
    """Minimal derivation size of every rule (Gauss-Seidel fixpoint), of every alternative, and each `Alts`' cheapest.

    Returns (rule cost by name, alternative costs by `Alts.uid`, cheapest alternative by `Alts.uid`).
    Raises GrammarLoadError when a rule reachable from the start rule can never terminate.
    """
    g = grammar
    inf = float("inf")
    cost = {name: inf for name in g.rules}

    def item_cost(item: object) -> float:
        kind = item.kind  # type: ignore[attr-defined]  # a grammar item: its kind says which
        if kind == REF:
            return cost[item.name]  # type: ignore[attr-defined]  # a grammar item: its kind says which
        if kind == GROUP:
            return min((seq_cost(s) for s in item.seqs), default=inf)  # type: ignore[attr-defined]  # a grammar item: its kind says which
        if kind == REPEAT:
            if item.lo == 0:  # type: ignore[attr-defined]  # a grammar item: its kind says which
                return 0
            body = min((seq_cost(s) for s in item.body.seqs), default=inf)  # type: ignore[attr-defined]  # a grammar item: its kind says which
            return item.lo * body  # type: ignore[attr-defined]  # a grammar item: its kind says which
        return 1

    def seq_cost(seq: tuple) -> float:
        return sum(item_cost(i) for i in seq)

    changed = True
    while changed:
        changed = False
        for name, rule in g.rules.items():
            c = 1 + min((seq_cost(s) for s in rule.alts.seqs), default=inf)
            if c < cost[name]:
                cost[name] = c
                changed = True
    stuck = [n for n in reachable(g) if cost[n] == inf]
    if stuck:
        # an unproductive rule can never be completed, under any bounds: generating from it
        # would silently drop part of the grammar (or, for the start rule, produce nothing)
        names = ", ".join(repr(n) for n in stuck)
        cause = _first_cyclic(g, stuck)
        raise GrammarLoadError(
            f"rule {cause!r} cannot terminate within any bounds: every alternative recurses without a base case "
            f"(rules reachable from {g.start!r} that cannot terminate: {names})"
        )
    alt_cost = [[seq_cost(s) for s in alts.seqs] for alts in g.alts_table]
    global_min_alt = [min(range(len(costs)), key=costs.__getitem__) if costs else -1 for costs in alt_cost]
    return cost, alt_cost, global_min_alt


def productive_without(grammar: Grammar, blocked: frozenset[str]) -> frozenset[str]:
    """Rules that derive a terminal string when the `blocked` rules may not be expanded."""
    rules = grammar.rules
    prod: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, rule in rules.items():
            if name in prod or name in blocked:
                continue
            if any(seq_ok(seq, prod) for seq in rule.alts.seqs):
                prod.add(name)
                changed = True
    return frozenset(prod)


def seq_ok(seq: tuple, prod: frozenset[str] | set[str]) -> bool:
    """Whether every item of `seq` derives a terminal string using only `prod` rules."""
    for item in seq:
        kind = item.kind
        if kind == REF:
            if item.name not in prod:
                return False
        elif kind == GROUP:
            if not any(seq_ok(s, prod) for s in item.seqs):
                return False
        elif kind == REPEAT:
            if item.lo > 0 and not any(seq_ok(s, prod) for s in item.body.seqs):
                return False
    return True


def reachable(grammar: Grammar) -> list[str]:
    """Rules reachable from the start rule, in breadth-first order (the start rule first)."""
    order = [grammar.start]
    seen = {grammar.start}
    i = 0
    while i < len(order):
        for ref in sorted(refs(grammar, order[i])):
            if ref not in seen:
                seen.add(ref)
                order.append(ref)
        i += 1
    return order


def refs(grammar: Grammar, name: str) -> set[str]:
    """Names of the rules that rule `name` refers to directly (inside groups and repetitions too)."""
    found: set[str] = set()
    stack: list[object] = [grammar.rules[name].alts]
    while stack:
        item = stack.pop()
        kind = item.kind  # type: ignore[attr-defined]  # a grammar item: its kind says which
        if kind == GROUP:
            for seq in item.seqs:  # type: ignore[attr-defined]  # a grammar item: its kind says which
                stack.extend(seq)
        elif kind == REPEAT:
            stack.append(item.body)  # type: ignore[attr-defined]  # a grammar item: its kind says which
        elif kind == REF:
            found.add(item.name)  # type: ignore[attr-defined]  # a grammar item: its kind says which
    return found


def _first_cyclic(grammar: Grammar, stuck: list[str]) -> str:
    """The first of `stuck` that lies on a cycle of stuck rules: the cause, not a rule that merely uses one."""
    members = set(stuck)
    for name in stuck:
        todo = [r for r in refs(grammar, name) if r in members]
        seen: set[str] = set()
        while todo:
            rule = todo.pop()
            if rule == name:
                return name
            if rule not in seen:
                seen.add(rule)
                todo.extend(r for r in refs(grammar, rule) if r in members)
    return stuck[0]
