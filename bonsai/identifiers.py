"""Which regex terminals are identifier-like, and so bounded by m by default whatever their name.

A terminal's regex is identifier-like when it matches unboundedly many distinct names made of word
characters: read as `re` reads it (`re._parser`, as `bonsai.regex_sampler` does), it is

* a prefix of optional single characters, any (lark.lark's `RULE` starts with `!?[_?]?`),
* then a required character whose class holds a letter, only word characters and no digit,
* then single word characters, required, optional or repeated, at least one of them without an
  upper bound (`*`, `+`, `{2,}`).

Lookaheads and anchors (`(?!if\\b)`, `\\b`) are skipped: they remove finitely many names.  So
`/[a-z_][a-z_0-9]*/`, `/_?[A-Z][_A-Z0-9]*/`, `/[^\\W\\d]\\w*/` and `/[a-z]+/` are identifier-like;
a keyword or literal set (`/if|else/`, no unbounded repetition), a number (`/[0-9]+/`, `/[0-9a-f]+/`:
a digit may come first), a string (`/"[^"]*"/`) or a word with other characters (`/[a-z][a-z-]*/`)
is not.  Character classes are judged on ASCII.
"""

from __future__ import annotations

import re
import re._constants as sre_c
import re._parser as sre_parse
import string
from typing import Any

__all__ = ["identifier_like"]

_ASCII = frozenset(chr(i) for i in range(128))
_WORD = frozenset(string.ascii_letters + string.digits + "_")
_CATEGORIES = {
    sre_c.CATEGORY_DIGIT: r"\d", sre_c.CATEGORY_NOT_DIGIT: r"\D", sre_c.CATEGORY_WORD: r"\w",
    sre_c.CATEGORY_NOT_WORD: r"\W", sre_c.CATEGORY_SPACE: r"\s", sre_c.CATEGORY_NOT_SPACE: r"\S",
}
_SKIPPED = (sre_c.ASSERT_NOT, sre_c.ASSERT, sre_c.AT)
_REPEATS = (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT)


def identifier_like(regex: str) -> bool:
    """Whether `regex` matches unboundedly many identifier-like names (see the module docstring)."""
    try:
        parsed = sre_parse.parse(regex)
    except (re.error, RecursionError):
        return False
    items = _items(list(parsed), bool(parsed.state.flags & sre_c.SRE_FLAG_IGNORECASE))
    if items is None:
        return False
    k = 0
    while k < len(items) and items[k][1:] == (0, 1):  # optional prefix characters, whatever they are
        k += 1
    if k == len(items):
        return False
    head, rest = items[k][0], items[k:]
    return (any(c.isalpha() for c in head) and head <= _WORD and not head & set(string.digits)
            and all(chars <= _WORD for chars, _lo, _hi in rest)
            and any(hi is None for _chars, _lo, hi in rest))


def _items(seq: list[Any], icase: bool) -> list[tuple[frozenset[str], int, int | None]] | None:
    """`seq` as (characters, min count, max count or None) items; None when an item is no single-character one."""
    out: list[tuple[frozenset[str], int, int | None]] = []
    for op, av in seq:
        if op in _SKIPPED:
            continue
        if op in _REPEATS:
            lo, hi, body = av
            chars = _chars(list(body), icase)
            if chars is None:
                return None
            out.append((chars, lo, None if hi == sre_c.MAXREPEAT else hi))
        elif op is sre_c.SUBPATTERN:
            # a group (`(?i:[a-z][a-z0-9]*)`, as lark writes flags): its items, under its flags
            inner = _items(list(av[3]), icase or bool(av[1] & sre_c.SRE_FLAG_IGNORECASE))
            if inner is None:
                return None
            out.extend(inner)
        else:
            chars = _chars([(op, av)], icase)
            if chars is None:
                return None
            out.append((chars, 1, 1))
    return out


def _chars(seq: list[Any], icase: bool) -> frozenset[str] | None:
    """The ASCII characters the one-character pattern `seq` matches; None when it is not one character."""
    if len(seq) != 1:
        return None
    op, av = seq[0]
    found: frozenset[str] | None
    if op is sre_c.LITERAL:
        found = frozenset(chr(av))
    elif op is sre_c.NOT_LITERAL:
        found = _ASCII - {chr(av)}
    elif op is sre_c.ANY:
        found = _ASCII - {"\n"}
    elif op is sre_c.CATEGORY:
        found = _category(av)
    elif op is sre_c.IN:
        found = _class(av)
    elif op is sre_c.BRANCH:
        parts = [_chars(list(alt), icase) for alt in av[1]]
        found = None if any(p is None for p in parts) else frozenset().union(*(p for p in parts if p is not None))
    elif op is sre_c.SUBPATTERN:
        return _chars(list(av[3]), icase or bool(av[1] & sre_c.SRE_FLAG_IGNORECASE))
    else:
        return None
    if found is not None and icase:
        found = found | {c.swapcase() for c in found}
    return found


def _category(category: Any) -> frozenset[str]:
    pattern = re.compile(_CATEGORIES.get(category, "(?!)"))
    return frozenset(c for c in _ASCII if pattern.fullmatch(c))


def _class(items: list[Any]) -> frozenset[str] | None:
    negate = bool(items) and items[0][0] is sre_c.NEGATE
    found: set[str] = set()
    for op, av in items[1:] if negate else items:
        if op is sre_c.LITERAL:
            found.add(chr(av))
        elif op is sre_c.RANGE:
            found.update(chr(i) for i in range(av[0], min(av[1], 127) + 1))
        elif op is sre_c.CATEGORY:
            found |= _category(av)
        else:
            return None
    return _ASCII - found if negate else frozenset(found)
