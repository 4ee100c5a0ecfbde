"""Driver for sqlparse: SQL-shaped statements in; the token stream, the statement types and the reformatted text out."""

from typing import Any

import sqlparse
from hypothesis import strategies as st

from mu2py import driver

_name = st.sampled_from(["a", "b", "t1", "users", "x_y", '"Q q"', "`b`", "[c]", "s.t", "*"])
_literal = st.one_of(
    st.integers(-1000, 1000).map(str),
    st.sampled_from(["1.5", "1e3", "'it''s'", "'x'", "NULL", "TRUE", "$1", ":p", "?", "%(n)s", "0x1F", "-- c\n"]),
)
_atom = st.one_of(_name, _literal)
_expr = st.recursive(
    _atom,
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from(["+", "-", "*", "/", "=", "<>", ">=", "AND", "OR", "LIKE", "IS", "||", "::"]),
                  inner).map(" ".join),
        st.tuples(st.sampled_from(["count", "max", "coalesce", "CAST", "lower"]), st.lists(inner, max_size=2))
        .map(lambda f: f"{f[0]}({', '.join(f[1])})"),
        inner.map(lambda e: f"({e})"),
        st.tuples(inner, inner).map(lambda p: f"CASE WHEN {p[0]} THEN {p[1]} ELSE NULL END"),
    ),
    max_leaves=5,
)
_exprs = st.lists(_expr, min_size=1, max_size=3).map(", ".join)
_clause = st.one_of(
    _exprs.map(lambda e: f"SELECT {e}"),
    _name.map(lambda n: f"FROM {n}"),
    st.tuples(st.sampled_from(["JOIN", "LEFT JOIN", "INNER JOIN"]), _name, _expr)
    .map(lambda j: f"{j[0]} {j[1]} ON {j[2]}"),
    _expr.map(lambda e: f"WHERE {e}"),
    _exprs.map(lambda e: f"GROUP BY {e}"),
    _exprs.map(lambda e: f"ORDER BY {e} DESC"),
    st.integers(0, 99).map(lambda n: f"LIMIT {n}"),
    st.tuples(_name, _exprs).map(lambda i: f"INSERT INTO {i[0]} VALUES ({i[1]})"),
    st.tuples(_name, _name, _expr).map(lambda u: f"UPDATE {u[0]} SET {u[1]} = {u[2]}"),
    _name.map(lambda n: f"CREATE TABLE {n} (id INTEGER PRIMARY KEY, v VARCHAR(10))"),
    st.sampled_from(["UNION", "WITH q AS (SELECT 1)", "BEGIN", "COMMIT", ";", "/* note */", "DELETE FROM t"]),
)
_statement = st.lists(_clause, min_size=1, max_size=6).map(" ".join)


@driver(st.lists(_statement, min_size=1, max_size=3).map(";\n".join), targets=["sqlparse"])
def parse(text: str) -> Any:
    """Split, parse and reformat; the output is plain data (token types and values, statement types, text)."""
    statements = sqlparse.parse(text)
    tokens = [(str(t.ttype), t.value) for s in statements for t in s.flatten()]
    kinds = [s.get_type() for s in statements]
    formatted = sqlparse.format(text, reindent=True, keyword_case="upper", strip_comments=True)
    return tokens, kinds, formatted
