"""Sampling strings from a terminal's regular expression, on the parse tree of `re._parser`.

Why `re._parser`: it is the standard library's own regex parser (the `sre_parse` of old), private
but present under that name in Python 3.11, 3.12 and 3.13, which this project supports; lark itself
reads terminal regexes with it (`lark.utils.get_regexp_width`), so every pattern lark emits is read
exactly as `re` and lark read it.  The libraries that sample from regexes were weighed against it
and change what bonsai generates: Hypothesis' `st.from_regex` draws many choices per string, while
bonsai's decoder reads exactly one int per regex terminal (see `bonsai.generator`), so every stored
corpus would decode to other inputs; rstr's `xeger` walks the same private `re._parser` tree with
its own draws and repetition limit (up to 100), exrex likewise, so for the same seed they give
other strings.  Keeping this sampler keeps the corpora: the same sample index gives the same text.
"""

from __future__ import annotations

import random
import re._constants as sre_c
import re._parser as sre_parse
import string
from typing import Any

__all__ = ["RegexSampler"]

_ALPHABET = string.ascii_letters + string.digits + " _-+*/.,:;!?=<>()[]{}#@$%&|~^'\"\\"
"""Characters for `.` and negated classes: mostly alphanumerics, a few quotes and backslashes."""

_CATEGORY_CHARS = {
    sre_c.CATEGORY_DIGIT: string.digits,
    sre_c.CATEGORY_NOT_DIGIT: string.ascii_letters + "_ -+.",
    sre_c.CATEGORY_WORD: string.ascii_letters + string.digits + "_",
    sre_c.CATEGORY_NOT_WORD: " -+*/.,:;!?=<>()[]{}",
    sre_c.CATEGORY_SPACE: " \t",
    sre_c.CATEGORY_NOT_SPACE: string.ascii_letters + string.digits + "_-+.",
}

_MAX_EXTRA = 3
"""A sampled unbounded repetition runs at most this many times beyond its minimum."""


def _nice_first(chars: str) -> str:
    # Minimal samples take the first char: prefer letters, then digits, then the rest.
    uniq = dict.fromkeys(chars)
    return "".join(sorted(uniq, key=lambda c: (not c.isalpha(), not c.isdigit(), c in "\"'\\", ord(c))))


class RegexSampler:
    """Draws strings from a regular expression via `re._parser` with bounded repetition.

    Assertions (lookarounds, anchors) are skipped here: callers check candidates against the
    compiled pattern and retry.  `minimal()` is deterministic and short.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.node = self._compile(sre_parse.parse(pattern))

    def _compile(self, sub: object) -> tuple:
        nodes = [self._compile_op(op, av) for op, av in sub]  # type: ignore[attr-defined]  # an sre SubPattern of (op, av) pairs
        nodes = [n for n in nodes if n[0] != "empty"]
        if len(nodes) == 1:
            return nodes[0]
        return ("seq", tuple(nodes))

    def _compile_op(self, op: object, av: Any) -> tuple:
        if op is sre_c.LITERAL:
            return ("chars", chr(av))
        if op is sre_c.NOT_LITERAL:
            return ("chars", _nice_first(_ALPHABET.replace(chr(av), "")))
        if op is sre_c.ANY:
            return ("chars", _nice_first(_ALPHABET))
        if op is sre_c.IN:
            return ("chars", self._class(av))
        if op is sre_c.CATEGORY:
            return ("chars", _nice_first(_CATEGORY_CHARS.get(av, "a")))
        if op is sre_c.BRANCH:
            return ("alt", tuple(self._compile(b) for b in av[1]))
        if op is sre_c.SUBPATTERN:
            return ("group", av[0], self._compile(av[3]))
        if op is sre_c.ATOMIC_GROUP:
            return self._compile(av)
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            lo, hi, body = av
            hi = None if hi is sre_c.MAXREPEAT else int(hi)
            return ("rep", int(lo), hi, self._compile(body))
        if op is sre_c.GROUPREF:
            return ("ref", av)
        if op is sre_c.GROUPREF_EXISTS:
            _gid, yes, no = av
            return ("alt", (self._compile(yes), self._compile(no) if no else ("seq", ())))
        return ("empty",)  # AT (anchors), ASSERT, ASSERT_NOT: checked by the caller instead

    @staticmethod
    def _class(items: list) -> str:
        chars: list[str] = []
        negate = False
        for op, av in items:
            if op is sre_c.NEGATE:
                negate = True
            elif op is sre_c.LITERAL:
                chars.append(chr(av))
            elif op is sre_c.RANGE:
                lo, hi = av
                chars.extend(chr(c) for c in range(lo, min(hi, lo + 255) + 1))
            elif op is sre_c.CATEGORY:
                chars.append(_CATEGORY_CHARS.get(av, ""))
        text = "".join(chars)
        if negate:
            text = "".join(c for c in _ALPHABET if c not in text)
        return _nice_first(text or "a")

    def minimal(self) -> str:
        """A short deterministic string: fewest repetitions, shortest branch, nicest characters."""
        out: list[str] = []
        self._emit(self.node, None, out, {})
        return "".join(out)

    def sample(self, rng: random.Random) -> str:
        """A pseudo-random string following the pattern's structure (may violate its assertions)."""
        out: list[str] = []
        self._emit(self.node, rng, out, {})
        return "".join(out)

    def _emit(self, node: tuple, rng: random.Random | None, out: list[str], groups: dict) -> None:
        tag = node[0]
        if tag == "chars":
            chars = node[1]
            out.append(chars[0] if rng is None else rng.choice(chars))
        elif tag == "seq":
            for child in node[1]:
                self._emit(child, rng, out, groups)
        elif tag == "alt":
            options = node[1]
            if rng is None:
                pick = min(options, key=_min_len)
            else:
                pick = options[rng.randrange(len(options))]
            self._emit(pick, rng, out, groups)
        elif tag == "rep":
            _t, lo, hi, body = node
            count = lo
            if rng is not None:
                room = _MAX_EXTRA if hi is None else min(_MAX_EXTRA, hi - lo)
                count += rng.randint(0, max(0, room))
            for _ in range(count):
                self._emit(body, rng, out, groups)
        elif tag == "group":
            start = len(out)
            self._emit(node[2], rng, out, groups)
            if node[1] is not None:
                groups[node[1]] = "".join(out[start:])
        elif tag == "ref":
            out.append(groups.get(node[1], ""))


def _min_len(node: tuple) -> int:
    tag = node[0]
    if tag == "chars":
        return 1
    if tag == "seq":
        return sum(_min_len(c) for c in node[1])
    if tag == "alt":
        return min(_min_len(c) for c in node[1])
    if tag == "rep":
        return node[1] * _min_len(node[3])
    if tag == "group":
        return _min_len(node[2])
    return 0
