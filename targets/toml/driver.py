"""Driver for tomllib: TOML-shaped documents in, the parsed dict (or the error message) out."""

from tomllib import TOMLDecodeError, loads
from typing import Any

from hypothesis import strategies as st

from mu2py import driver

_bare_key = st.text("abcxyz_-019", min_size=1, max_size=5)
_key = st.one_of(_bare_key, _bare_key.map(lambda k: f'"{k} q"'), st.tuples(_bare_key, _bare_key).map(".".join))
_basic_string = st.text(st.characters(min_codepoint=32, max_codepoint=0x24F, exclude_characters='"\\'), max_size=6)
_scalar = st.one_of(
    st.integers(-(10**9), 10**9).map(str),
    st.sampled_from(["0x1F", "0o17", "0b101", "1_000", "+7", "-0", "3.25", "1e6", "-2.5E-3", "inf", "nan", "-inf"]),
    st.sampled_from(["true", "false"]),
    _basic_string.map(lambda s: f'"{s}"'),
    _basic_string.map(lambda s: f"'{s}'"),
    st.sampled_from(['"esc\\t\\n\\u00e9"', '"""multi\nline"""', "'''raw\nlines'''", '"\\x"']),
    st.sampled_from(["1979-05-27T07:32:00Z", "1979-05-27", "07:32:00", "1979-05-27 07:32:00.999-07:00"]),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(_bare_key, inner), max_size=3).map(
            lambda kvs: "{" + ", ".join(f"{k} = {v}" for k, v in kvs) + "}"
        ),
    ),
    max_leaves=6,
)
_line = st.one_of(
    st.tuples(_key, _value).map(lambda kv: f"{kv[0]} = {kv[1]}"),
    _key.map(lambda k: f"[{k}]"),
    _key.map(lambda k: f"[[{k}]]"),
    st.sampled_from(["", "# comment", "  ", "=", "[", "a = ", "x.y = 1"]),
)


@driver(st.lists(_line, max_size=8).map("\n".join), targets=["tomllib"])
def parse(text: str) -> Any:
    """Parse a TOML document; a decode error is an output (its message), not a failure."""
    try:
        return ("ok", loads(text))
    except TOMLDecodeError as exc:
        return ("error", str(exc))
