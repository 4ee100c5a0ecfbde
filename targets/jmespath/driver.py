"""Driver for jmespath: JMESPath-shaped expressions in; the AST and the results on two fixed documents out."""

import json
import warnings
from typing import Any

from hypothesis import strategies as st
from jmespath import exceptions, lexer, parser

from mu2py import driver

# Two fixed documents: a rich object (every JSON type, nested arrays for flatten and slices) and a list root.
DOCUMENTS: tuple[Any, ...] = (
    {
        "a": {"b": {"c": [1, 2, 3]}, "d": "text", "e": None},
        "people": [
            {"name": "ana", "age": 30, "tags": ["x", "y"], "ok": True},
            {"name": "bo", "age": 25, "tags": [], "ok": False},
            {"name": "cy", "age": None, "tags": ["z"]},
        ],
        "nums": [3, -1.5, 0, 42],
        "words": ["b", "a", "ab", ""],
        "matrix": [[1, 2], [3, [4, 5]], []],
        "flag": True,
        "none": None,
        "empty": {},
        "s": "hello",
        "n": 7,
    },
    [{"name": "x", "v": 1}, {"name": "y", "v": -2}, 5, "str", [1, [2]], None],
)

_name = st.sampled_from(["a", "b", "c", "d", "e", "people", "name", "age", "tags", "ok", "nums", "words", "matrix",
                         "flag", "none", "empty", "s", "n", "v", "missing", "_x9"])
_identifier = st.one_of(
    _name, _name.map(lambda n: f'"{n}"'),
    st.sampled_from(['"with space"', '"\\u0061"', '"esc\\"q"', '"\\n"', '"é"', '""', '"a']),
)
_literal = st.one_of(
    st.sampled_from(["`1`", "`-2.5`", "`\"s\"`", "`true`", "`null`", "`[1, 2]`", "`{\"a\": 1}`", "`[]`", "`{}`",
                     "`0`", "`1e3`", "'raw'", "'it\\'s'", "''", "`foo`", "`\\``", "`[1,`", "'a\\\\b'"]),
    st.integers(-100, 100).map(lambda i: f"`{i}`"),
    st.text("abc xyz", max_size=4).map(lambda s: f"'{s}'"),
)
_index = st.integers(-4, 4).map(str)
_slice = st.tuples(st.sampled_from(["", "0", "1", "-1", "-2", "5"]), st.sampled_from(["", "2", "-1", "10"]),
                   st.sampled_from(["", ":", ":1", ":2", ":-1", ":0"])).map(lambda p: f"{p[0]}:{p[1]}{p[2]}")
_functions = ["abs", "avg", "ceil", "contains", "ends_with", "floor", "join", "keys", "length", "map", "max",
              "max_by", "merge", "min", "min_by", "not_null", "reverse", "sort", "sort_by", "starts_with", "sum",
              "to_array", "to_number", "to_string", "type", "values", "nope"]
_comparator = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])


def _extend(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """One grammar step over smaller expressions."""
    return st.one_of(
        st.tuples(inner, inner).map(lambda p: f"{p[0]}.{p[1]}"),
        st.tuples(inner, st.one_of(_index, _slice, st.just("*"))).map(lambda p: f"{p[0]}[{p[1]}]"),
        inner.map(lambda e: f"{e}[]"),
        inner.map(lambda e: f"{e}.*"),
        st.tuples(inner, inner, _comparator, inner).map(lambda p: f"{p[0]}[?{p[1]} {p[2]} {p[3]}]"),
        st.tuples(inner, inner).map(lambda p: f"{p[0]}[?{p[1]}]"),
        st.tuples(inner, st.sampled_from([" | ", " || ", " && ", "|", "||", "&&"]), inner).map("".join),
        st.tuples(inner, _comparator, inner).map(" ".join),
        inner.map(lambda e: f"!{e}"),
        inner.map(lambda e: f"({e})"),
        inner.map(lambda e: f"& {e}"),
        st.tuples(st.sampled_from(_functions), st.lists(inner, max_size=3))
        .map(lambda f: f"{f[0]}({', '.join(f[1])})"),
        st.lists(inner, min_size=1, max_size=3).map(lambda es: "[" + ", ".join(es) + "]"),
        st.lists(st.tuples(_identifier, inner), min_size=1, max_size=3)
        .map(lambda kvs: "{" + ", ".join(f"{k}: {v}" for k, v in kvs) + "}"),
        st.tuples(inner, st.lists(inner, min_size=1, max_size=2)).map(lambda p: f"{p[0]}.[{', '.join(p[1])}]"),
    )


# Calls that type-check on the first document, so that the functions' bodies (not only their argument checks) run.
_typed_call = st.sampled_from([
    "sort_by(people, &name)", "sort_by(people, &age)", "max_by(people, &age)", "min_by(people, &name)",
    "map(&name, people)", "map(&length(@), words)", "sort(words)", "sort(nums)", "avg(nums)", "sum(a.b.c)",
    "max(words)", "min(nums)", "join('-', words)", "keys(a)", "values(a.b)", "merge(a, `{\"x\": 1}`, empty)",
    "contains(words, 'a')", "contains(s, 'ell')", "starts_with(s, 'he')", "ends_with(s, 'lo')", "reverse(s)",
    "reverse(nums)", "length(people)", "to_number('12.5')", "to_number(s)", "to_string(a.b)", "to_array(n)",
    "not_null(none, e, n)", "type(@)", "abs(`-3`)", "ceil(`1.2`)", "floor(nums[1])", "people[?age > `26`].name",
    "people[*].tags[]", "matrix[]", "matrix[][]", "people[?contains(tags, 'x')]", "nums[?@ < `2`]",
    "people[].{n: name, t: length(tags)}", "a.b.c[::-1]", "words[1:]", "people | [0]", "*.b", "a.*.c",
    "[type(s), type(n), type(flag), type(none), type(nums), type(a), type(`1.5`)]", "to_string(s)", "to_string(n)",
    "avg(`[]`)", "max(`[]`)", "min(words)", "max_by(people, &name)", "min_by(people, &age)", "sort_by(`[]`, &a)",
    "min_by(`[]`, &a)", "sort_by(people, &tags)", "max_by(people, &tags)", "sort(`[1, \"a\"]`)", "avg(words)",
    "max(`[\"a\", 1]`)", "join(', ', nums)", "sum(`[]`)", "not_null()", "reverse(words)", "contains(people, s)",
    "merge()", "length()", "abs(s)", "type(`1`, `2`)", "starts_with(`1`, s)", "values(people)", "to_number(`\"x\"`)",
    "to_number(flag)", "to_number('7')", "keys(@)", "map(&[name, age], people)", "ceil(s)", "length(s)", "\"abs\"(n)",
])
_expression = st.recursive(st.one_of(_identifier, _literal, st.sampled_from(["@", "*", "[]"]), _typed_call),
                           _extend, max_leaves=6)
_damaged = st.tuples(_expression, st.sampled_from([".", " | ", "[?", ")", "]", "[0", "{a: ", "==", ",", "`", "'", "-",
                                                    "(", "(a", "[1:2:3:4]", "[:a]", "[0 1]", "[", "{", "=", "`{`"]))


@st.composite
def expressions(draw: st.DrawFn) -> str:
    """Three quarters well-formed expressions, an eighth damaged at the end, an eighth raw text."""
    kind = draw(st.integers(0, 7))  # (nested one_of is flattened: its branches cannot be weighted)
    if kind < 6:
        return draw(_expression)
    return "".join(draw(_damaged)) if kind == 6 else draw(st.text(max_size=16))


def _plain(value: Any) -> str:
    """JSON text that compares as expected: keys sorted, a `NaN` literal equal to itself, an expref by its AST."""
    return json.dumps(value, sort_keys=True, default=lambda obj: {type(obj).__name__: getattr(obj, "expression", None)})


def _tokens(expression: str) -> Any:
    """The lexer's token stream (type, value, span), or its error."""
    try:
        return _plain([(t["type"], t["value"], t["start"], t["end"]) for t in lexer.Lexer().tokenize(expression)])
    except exceptions.JMESPathError as exc:
        return ("error", type(exc).__name__, str(exc))


@driver(expressions(), targets=["jmespath"])
def search(expression: str) -> Any:
    """Lex, compile (once uncached, once from the cache) and search both documents; JMESPath errors are outputs.

    Out: ("error", exception name, message, tokens) when the expression does not compile, else ("ok", tokens,
    AST, whether the second compile came from the cache, warnings, Graphviz text, per document its result).
    """
    parser.Parser.purge()
    with warnings.catch_warnings(record=True) as caught:  # the lexer warns on a deprecated `raw` literal
        warnings.simplefilter("always")
        tokens = _tokens(expression)
        try:
            compiled = parser.Parser().parse(expression)
            cached = parser.Parser().parse(expression)
        except exceptions.JMESPathError as exc:
            return ("error", type(exc).__name__, str(exc), tokens)
    warned = [(w.category.__name__, str(w.message)) for w in caught]
    try:  # the (private) Graphviz renderer, to reach jmespath.visitor.GraphvizVisitor
        dot = compiled._render_dot_file()
    except TypeError as exc:  # jmespath 1.1.0 bug: it visits a slice's int/None children as nodes
        dot = ("uncaught", "TypeError", str(exc))
    results: list[Any] = []
    for document in DOCUMENTS:
        try:
            results.append(("ok", _plain(cached.search(document))))
        except exceptions.JMESPathError as exc:
            results.append(("error", type(exc).__name__, str(exc)))
        except (TypeError, ValueError) as exc:
            # jmespath 1.1.0 lets Python's errors through: `1` < 'a' (TypeError, the spec says null), a slice
            # step of 0 (ValueError), merge() not type-checking its arguments past the first (TypeError, ValueError)
            results.append(("uncaught", type(exc).__name__, str(exc)))
    return ("ok", tokens, _plain(compiled.parsed), cached is compiled, warned, dot, results)
