"""Driver for urllib.parse: URL-shaped text in, what the splitting, query and quoting functions make of it out."""

from typing import Any
from urllib import parse

from hypothesis import strategies as st

from mu2py import driver

_piece = st.text(st.sampled_from("abcXYZ019-._~%+&=;:@/?#[]! é"), max_size=8)
_url = st.one_of(
    st.text(max_size=40),
    st.tuples(st.sampled_from(["http", "https", "ftp", "file", "mailto", "", "HTTP", "sv+n"]),
              st.sampled_from(["://", ":", ":/", "//", ""]), _piece, _piece, _piece).map("".join),
)


@driver(_url, targets=["urllib.parse"])
def split(text: str) -> Any:
    """Split, parse the query of, unquote and re-join `text`; a ValueError is an output (its message)."""
    out: list[Any] = []
    for fn in (parse.urlsplit, parse.urlparse, parse.parse_qsl, parse.unquote_plus, parse.quote):
        try:
            out.append(fn(text))
        except ValueError as exc:
            out.append(("error", str(exc)))
    try:
        out.append(parse.urljoin("http://a/b/c/d;p?q", text))
        out.append(parse.urlunsplit(parse.urlsplit(text)))
    except ValueError as exc:
        out.append(("error", str(exc)))
    return out
