"""Driver for the standard library's JSON decoder, forced onto its pure-Python scanner.

The C accelerator (`_json`) would bypass the code under test, so the decoder is built
with `py_scanstring` and `py_make_scanner`.  Modules are imported as `from json import
decoder` so that mutant copies of the driver bind to mutant copies of the decoder.
"""

from json import decoder, scanner
from typing import Any

from hypothesis import strategies as st

from mu2py import driver

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=12,
)


@st.composite
def json_texts(draw: st.DrawFn) -> str:
    """JSON documents in varied layouts, sometimes damaged (to reach the error paths)."""
    import json

    value = draw(_values)
    # tuples, not lists: Hypothesis caches a strategy built from hashable arguments, instead of building
    # (and validating) a new one per draw
    text = json.dumps(value, indent=draw(st.sampled_from((None, 0, 2))), ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from((None, (",", ":"), (" , ", " : ")))))
    if draw(st.integers(0, 3)) == 0 and text:
        i = draw(st.integers(0, len(text) - 1))
        damage = draw(st.sampled_from(('"', "\\", "}", "]", ",", "x", "\\u12", "tru", "-", "1e")))
        text = text[:i] + damage + text[i + 1 :]
    return text


@driver(json_texts(), targets=["json.decoder", "json.scanner"])
def parse(text: str) -> Any:
    """Decode with the pure-Python decoder; errors are outputs (message and position), not failures."""
    dec = decoder.JSONDecoder()
    dec.parse_string = decoder.py_scanstring
    dec.scan_once = scanner.py_make_scanner(dec)
    try:
        return ("ok", dec.decode(text))
    except decoder.JSONDecodeError as exc:
        return ("error", exc.msg, exc.pos)


@driver(st.text(max_size=64), targets=["json.decoder", "json.scanner"])
def parse_text(text: str) -> Any:
    """The same decoder on unstructured text of up to 64 characters: the input atheris' harness gets."""
    return parse(text)
