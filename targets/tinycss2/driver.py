"""Driver for tinycss2: CSS-shaped stylesheets in; node trees, serializations, colors and An+B values out."""

from typing import Any

from hypothesis import strategies as st
from tinycss2 import bytes as css_bytes
from tinycss2 import color3, color4, color5, nth, parser, tokenizer

from mu2py import driver

_sign = st.sampled_from(["", "", "-", "+"])
_number = st.tuples(_sign, st.sampled_from(["0", "1", "7", "42", "255", "1000", "", "00"]),
                    st.sampled_from(["", "", ".5", ".25"]), st.sampled_from(["", "", "", "e3", "E-2", "e+1"])
                    ).map("".join).filter(lambda n: n.lstrip("+-")[:1] not in ("", "e", "E"))
_unit = st.sampled_from(["", "", "px", "em", "%", "deg", "rad", "grad", "turn", "n", "n-", "n-3", "s", "e", "\\70x"])
_ident = st.sampled_from(["a", "red", "Blue", "none", "inherit", "transparent", "currentColor", "-moz-x", "--v", "-",
                          "--", "n", "-n", "odd", "even", "\\31 x", "é", "u", "U", "_", "\\-"])
_string = st.sampled_from(['"s"', "'t'", '"esc\\"aped"', "'\\41 '", '"x\\\ny"', '""', "'\\\\'"])
_url = st.sampled_from(["url(a.png)", "url( 'b.css' )", 'url("c")', "url(  d  )", "URL(f\\)g)", "url()", "u\\rl(x)"])
_hash = st.sampled_from(["#abc", "#ABCD", "#a1b2c3", "#11223344", "#xyz", "#-1", "#1", "#", "#\\31"])
_misc = st.sampled_from(["U+26", "u+0-7F", "U+4??", "U+1f600-1F64F", "U+?", ",", "/", "!", "*", "+", "-", "<!--", "-->",
                         "@", "|=", "~=", "^=", "$=", "*=", "||", "/* c */", "/**/", "<", "=", ":"])
# Channels of the color functions: well-typed for each function (so that most colors parse), or anything.
_pct = st.integers(0, 100).map(lambda i: f"{i}%")
_byte = st.one_of(st.integers(0, 300).map(str), st.sampled_from(["none", "-5", "1.5", "1e2"]))
_hue = st.one_of(st.integers(-400, 400).map(str),
                 st.tuples(st.integers(-10, 400), st.sampled_from(["deg", "grad", "rad", "turn", "DEG", "x"]))
                 .map(lambda h: f"{h[0]}{h[1]}"), st.just("none"))
_alpha = st.sampled_from(["", "", " / 0.5", " / 50%", " / none", " / 2", " / -1", " /", " / x"])


def _function(names: list[str], *channels: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """`name(channel channel channel / alpha)` or the legacy comma-separated form."""
    return st.tuples(st.sampled_from(names), st.tuples(*channels), st.booleans(), _alpha).map(
        lambda c: f"{c[0]}({', '.join(c[1])}{c[3].replace(' / ', ', ')})" if c[2]
        else f"{c[0]}({' '.join(c[1])}{c[3]})")


_channel = st.one_of(_pct, _byte, _hue, st.sampled_from(["0.5", "x", "1px"]))
_color = st.one_of(
    _function(["rgb", "rgba", "RGB"], _byte, _byte, _byte),
    _function(["rgb", "rgba"], _pct, _pct, _pct),
    _function(["hsl", "hsla", "hwb"], _hue, _pct, _pct),
    _function(["lab", "oklab"], _pct, _byte, _byte),
    _function(["lch", "oklch"], _pct, _byte, _hue),
    _function(["device-cmyk"], _pct, _pct, _pct, _pct),
    st.tuples(st.sampled_from(["srgb", "srgb-linear", "display-p3", "xyz", "xyz-d50", "xyz-d65", "a98-rgb",
                               "prophoto-rgb", "rec2020", "x", "1"]),
              st.lists(st.one_of(_pct, st.sampled_from(["0", "0.5", "1", "none"])), min_size=3, max_size=3), _alpha)
    .map(lambda c: f"color({c[0]} {' '.join(c[1])}{c[2]})"),
    _function(["rgb", "hsl", "lab", "lch", "x", "color"], _channel, _channel),
    st.tuples(st.sampled_from(["rgb", "hsla", "hwb", "oklch", "device-cmyk", "color"]),
              st.lists(_channel, max_size=6).map(" ".join)).map(lambda c: f"{c[0]}({c[1]})"),
    st.sampled_from(["light-dark(red, blue)", "light-dark(#fff,rgb(0 0 0))", "light-dark(red)", "light-dark(1, 2)",
                     "red", "transparent", "currentcolor", "#abc", "#a1b2c3d4", "rebeccapurple", "#abcde"]),
)
_token = st.one_of(st.tuples(_number, _unit).map("".join), _ident, _string, _url, _hash, _misc, _color, _color)
_value = st.recursive(
    st.lists(_token, min_size=1, max_size=3).map(" ".join),
    lambda inner: st.one_of(
        st.tuples(inner, st.sampled_from([", ", " ", " / ", ","]), inner).map("".join),
        st.tuples(st.sampled_from(["calc", "var", "attr", "f", "nth-child", "a-b"]), inner)
        .map(lambda f: f"{f[0]}({f[1]})"),
        inner.map(lambda v: f"({v})"),
        inner.map(lambda v: f"[{v}]"),
        inner.map(lambda v: f"{{{v}}}"),
    ),
    max_leaves=3,
)
_nth = st.one_of(
    st.tuples(_sign, st.sampled_from(["", "0", "2", "3", "10"]), st.sampled_from(["n", "N", "", "n-", "n-1"]),
              st.sampled_from(["", " ", "  "]), st.sampled_from(["", "+", "-", "+ ", "- "]),
              st.sampled_from(["", "1", "5", "0", "-2", "+3"])).map("".join),
    st.sampled_from(["odd", "even", "-n+3", "+n", "+ n", "+", "-n-", "n- 1", "3n - -2", "2n+ +1", "5", "a", "", "-n-2",
                     "n-2", "-N-3", "+n-4", "+ 2", "2n 1", "1.5", "2n-1 x"]),
)
_simple_selector = st.one_of(
    st.sampled_from(["a", "div", ".c", "#i", "*", "::before", ":hover", "[href]", '[href^="x"]', "[a|=b i]", "&",
                     ":not(.a, #b)", "\\31 x", "svg|g", "*|*", ".-x", "#1"]),
    st.tuples(st.sampled_from([":nth-child", ":nth-of-type", ":nth-last-child", ":NTH-CHILD"]), _nth)
    .map(lambda p: f"{p[0]}({p[1]})"),
)
_selector = st.lists(st.tuples(_simple_selector, st.sampled_from(["", " ", " > ", " + ", " ~ ", ", "])).map("".join),
                     min_size=1, max_size=3).map("".join)
_declaration = st.one_of(
    st.tuples(st.sampled_from(["color", "background", "margin", "--x", "Font-Size", "a", "-webkit-b", "c\\:d"]),
              st.sampled_from([":", ": ", " : ", ":  "]), _value,
              st.sampled_from(["", "", "", " !important", "!IMPORTANT", " ! important", " !x", "!"])).map("".join),
    st.sampled_from(["color", "a:", ":b", "--c: {d: e}", "1: x", "color red", "", "!important", "x: y;;"]),
)
_declarations = st.lists(_declaration, max_size=3).map("; ".join)


def _rules(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Rules with nested rule lists drawn from `inner`."""
    return st.one_of(
        st.tuples(_selector, _declarations, inner).map(lambda r: f"{r[0]} {{ {r[1]}; {r[2]} }}"),
        st.tuples(st.sampled_from(["@media screen and (max-width: 600px)", "@supports (display: grid)", "@layer x",
                                   "@MEDIA print", "@container (min-width: 1em)", "@document url(x)"]), inner)
        .map(lambda r: f"{r[0]} {{ {r[1]} }}"),
        st.tuples(st.sampled_from(["@font-face", "@page :first", "@page", "@keyframes k", "@x-y"]), _declarations)
        .map(lambda r: f"{r[0]} {{ {r[1]} }}"),
    )


_rule = st.recursive(
    st.one_of(
        st.tuples(_selector, _declarations).map(lambda r: f"{r[0]} {{ {r[1]} }}"),
        st.sampled_from(['@import url("x.css") screen;', "@import 'y';", "@namespace svg url(http://x);",
                         "@layer a, b;", "@charset \"utf-8\";", "@unknown x y;", "@media", "@;", "{}", "a{b:c}",
                         "<!-- a {} -->", "/* c */", "@page{margin:1in}", "@a{}@b;"]),
    ),
    lambda inner: _rules(st.lists(inner, max_size=2).map(" ".join)),
    max_leaves=3,
)
_stylesheet = st.tuples(
    st.sampled_from(["", "", "", "", '@charset "utf-8";', '@charset "latin1";', '@charset "utf-16";', "\ufeff",
                     '@charset "nope";', '@CHARSET "utf-8";', '@charset "utf-8"']),
    st.lists(_rule, max_size=3).map("\n".join),
).map("".join)
# Pieces that break a stylesheet: unclosed strings, urls, comments and blocks, stray closers, bad escapes.
_damage = st.sampled_from(['"unclosed\n', "'", '"\\', "url(bad\"x)", "url(d e)", "url(", "url(\\", "\\\n", "\\", "}",
                           "]", ")", "{", "[", "(", "/* open", "a {", ";", '@charset "x', "\x00", "\r\n", "\f"])


@st.composite
def stylesheets(draw: st.DrawFn) -> str:
    """Mostly well-formed stylesheets; some declaration lists and values alone, damaged sheets, raw text."""
    kind = draw(st.integers(0, 9))  # (nested one_of is flattened: its branches cannot be weighted)
    if kind < 6:
        return draw(_stylesheet)
    if kind == 6:
        return draw(st.one_of(_declarations, _value))
    if kind < 9:
        text, at = draw(_stylesheet), draw(st.integers(0, 200))
        return text[:at] + draw(_damage) + text[at:]
    return draw(st.text(max_size=30))

def _plain(node: Any) -> Any:
    """A node tree as nested tuples: the node type, then every field (child nodes converted the same way)."""
    if isinstance(node, list):
        return [_plain(item) for item in node]
    if isinstance(node, float):
        return node if node == node else "nan"
    if not hasattr(node, "type") or not hasattr(node, "source_line"):
        return node
    fields = [node.type]
    for cls in type(node).__mro__:
        for name in getattr(cls, "__slots__", ()):
            fields.append((name, _plain(getattr(node, name, None))))
    return tuple(fields)


def _css(nodes: list[Any]) -> list[str | None]:
    """Each node's serialization; None for a node holding a parse error (documented as not serializable)."""
    out: list[str | None] = []
    for node in nodes:
        try:
            out.append(node.serialize())
        except TypeError as exc:
            if not str(exc).startswith("Can not serialize"):
                raise
            out.append(None)
    return out


def _joined(nodes: list[Any]) -> str:
    """The serialization of `nodes`, leaving out those holding parse errors."""
    return "".join(part or "" for part in _css(nodes))


def _brief(nodes: list[Any]) -> list[Any]:
    """Per node its type, position and serialization (a parse error's kind and message instead)."""
    return [(node.type, node.source_line, node.source_column,
             (node.kind, node.message) if node.type == "error" else _css([node])[0]) for node in nodes]


def _color(token: Any) -> Any:
    """What CSS Color levels 3, 4 (and its conversions) and 5 make of one component value."""
    out: list[Any] = []
    for module in (color3, color4, color5):
        try:
            color = module.parse_color(token)
        except (TypeError, ValueError) as exc:
            # tinycss2 1.5.1 bugs: color() with no arguments (ValueError: `space, *tokens = []`); in level 5,
            # device-cmyk() with a `none` channel or a bad alpha, color(--custom ... / x) (TypeError: float(None))
            out.append(("uncaught", type(exc).__name__, str(exc)))
            continue
        if color is None or isinstance(color, str):
            out.append(color)
        elif isinstance(color, tuple):  # color3.RGBA
            out.append(("rgba", *map(_plain, color)))
        else:
            plain = (color.space, *map(_plain, color.coordinates), _plain(color.alpha))
            if module is color4:  # and in the spaces it converts to
                plain += tuple(_converted(color, space) for space in ("srgb", "xyz-d50", "xyz-d65", "lab"))
            out.append(plain)
    return out


def _converted(color: Any, space: str) -> Any:
    """`color.to(space)` as plain coordinates; None for a conversion tinycss2 does not implement."""
    try:
        converted = color.to(space)
    except NotImplementedError:
        return None
    return (converted.space, *map(_plain, converted.coordinates), _plain(converted.alpha))


def _nth(arguments: list[Any]) -> Any:
    """An+B of a function's arguments (None when not An+B)."""
    try:
        return nth.parse_nth(arguments)
    except (AttributeError, StopIteration) as exc:  # tinycss2 1.5.1 bugs: `3n+`, `n-` (None.type) and a lone `+`
        return ("uncaught", type(exc).__name__, str(exc))


def _walk(nodes: list[Any], out: list[Any], in_value: bool = False) -> None:
    """An+B of function arguments and (inside declaration values) colors, depth first, into `out`."""
    for node in nodes:
        kind = node.type
        if in_value and kind in ("function", "hash", "ident"):
            out.append(("color", _color(node)))
        if kind == "function":
            out.append(("nth", node.lower_name, _nth(node.arguments)))
            _walk(node.arguments, out, in_value)
        elif kind == "declaration":
            out.append(("declaration", node.lower_name, node.important))
            _walk(node.value, out, True)
        elif kind in ("qualified-rule", "at-rule"):
            _walk(node.prelude, out)
            if node.content is not None:
                _walk(parser.parse_blocks_contents(node.content, skip_comments=True, skip_whitespace=True), out)
        elif kind in ("() block", "[] block", "{} block"):
            _walk(node.content, out, in_value)


# Every module but color3: its keyword table (147 named colors) alone makes 1,341 import-time mutants, each
# re-importing the package for every judged input that does not name its color (a coverage-guided corpus of
# 83 inputs took 148,556 mutant runs and 19 CPU minutes to judge). `--targets tinycss2` puts it back.
_TARGETS = ["tinycss2.ast", "tinycss2.bytes", "tinycss2.color4", "tinycss2.color5", "tinycss2.nth", "tinycss2.parser",
            "tinycss2.serializer", "tinycss2.tokenizer"]


@driver(stylesheets(), targets=_TARGETS)
def parse(text: str) -> Any:
    """Parse `text` as a stylesheet, rule, declarations and component values; plain data and CSS text out."""
    tokens = tokenizer.parse_component_value_list(text)
    bare = tokenizer.parse_component_value_list(text, skip_comments=True)  # (the parsers take tokens or text)
    sheet = parser.parse_stylesheet(tokens)
    details: list[Any] = []
    _walk(parser.parse_stylesheet(bare, skip_whitespace=True), details)
    one = parser.parse_one_component_value(bare)
    css = _joined(tokens)
    decoded, encoding = css_bytes.decode_stylesheet_bytes(text.encode("utf-8", "surrogatepass"))
    return (
        _plain(sheet),
        _css(sheet),
        css,
        _joined(tokenizer.parse_component_value_list(css)) == css,  # the serialization round-trips
        details,
        _brief(parser.parse_rule_list(bare, skip_whitespace=True)),
        _brief([parser.parse_one_rule(bare)]),
        _plain(parser.parse_declaration_list(text, skip_comments=True)),
        _brief([parser.parse_one_declaration(bare)]),
        _brief([one]),
        _color(one),
        (decoded, encoding.name),
    )
