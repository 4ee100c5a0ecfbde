"""Lark grammars bundled with bonsai (installed as package data), and a shared LALR parser factory.

`shared_lalr` builds the LALR tables of a grammar once per process and option set. A target
mutated by mu2py executes its modules afresh for every mutant copy, so a parser built at
import (or first use) inside the target would redo the grammar analysis for every copy.
Instead the target passes its own transformer, post-lexer and lexer callbacks to each
`SharedParser.parse` call: the (possibly mutated) code of the caller still runs, while the
tables are shared. This package is outside every mutated target, and nothing it caches
refers to a caller's objects once a parse has returned.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from lark import Lark, Token, Tree
from lark.lark import PostLex

DIR = Path(__file__).resolve().parent

__all__ = ["DIR", "SharedParser", "path", "shared_lalr"]


def path(name: str | Path) -> Path:
    """The file of a bundled grammar (`path("chocopy.lark")`); an absolute path is returned as is."""
    return DIR / name


class _Hooks:
    """The caller's objects for the parse in progress (all None/empty between parses)."""

    __slots__ = ("transformer", "postlex", "callbacks", "busy")

    def __init__(self) -> None:
        self.transformer: Any = None
        self.postlex: Any = None
        self.callbacks: Mapping[str, Callable[[Token], Any]] = {}
        self.busy = False


class _RuleRelay:
    """Stands in for a transformer at build time: every rule callback forwards to the current one.

    Lark asks for one callback per rule name when the parser is built; a rule name always
    starts with a lower-case letter, so other names (terminals, `__default__`) are refused
    and lark keeps its defaults for them.
    """

    def __init__(self, hooks: _Hooks) -> None:
        self._hooks = hooks

    def __getattr__(self, name: str) -> Callable[[list[Any]], Any]:
        if not name[:1].islower():
            raise AttributeError(name)
        hooks = self._hooks

        def forward(children: list[Any]) -> Any:
            fn = getattr(hooks.transformer, name, None)
            if fn is not None:
                return fn(children)
            default = getattr(hooks.transformer, "__default__", None)
            if default is not None:
                return default(name, children, None)
            return Tree(name, children)

        return forward


class _PostLexRelay(PostLex):
    """Stands in for a post-lexer at build time: `process` runs the current caller's (if any)."""

    def __init__(self, hooks: _Hooks, always_accept: tuple[str, ...]) -> None:
        self._hooks = hooks
        self.always_accept = always_accept

    def process(self, stream: Iterator[Token]) -> Iterator[Token]:
        """Hand the token stream to the caller's post-lexer."""
        post = self._hooks.postlex
        return post.process(stream) if post is not None else stream


def _lexer_relay(hooks: _Hooks, terminal: str) -> Callable[[Token], Any]:
    def forward(tok: Token) -> Any:
        fn = hooks.callbacks.get(terminal)
        return fn(tok) if fn is not None else tok

    return forward


class SharedParser:
    """An LALR parser built once; each `parse` runs the caller's transformer, post-lexer and callbacks."""

    def __init__(self, lark: Lark, hooks: _Hooks, callback_terminals: tuple[str, ...]) -> None:
        self.lark = lark
        self._hooks = hooks
        self._terminals = frozenset(callback_terminals)

    def parse(
        self,
        text: str,
        *,
        transformer: Any = None,
        postlex: PostLex | None = None,
        lexer_callbacks: Mapping[str, Callable[[Token], Any]] | None = None,
    ) -> Any:
        """Parse `text` as `Lark(..., transformer=, postlex=, lexer_callbacks=).parse(text)` would.

        `transformer` methods take the children list (plain `Transformer` methods, no
        `v_args`); lexer callbacks may only be given for the terminals named at build time.
        Not reentrant: a callback must not parse with the same shared parser.
        """
        callbacks = dict(lexer_callbacks or {})
        unknown = set(callbacks) - self._terminals
        if unknown:
            raise ValueError(f"lexer callbacks for {sorted(unknown)} were not declared to shared_lalr")
        hooks = self._hooks
        if hooks.busy:
            raise RuntimeError("a shared parser is not reentrant")
        hooks.transformer, hooks.postlex, hooks.callbacks, hooks.busy = transformer, postlex, callbacks, True
        try:
            return self.lark.parse(text)
        finally:
            # drop the caller's objects: a mutant copy must not stay alive through this cache
            hooks.transformer, hooks.postlex, hooks.callbacks, hooks.busy = None, None, {}, False


@functools.cache
def shared_lalr(
    grammar: str | Path,
    *,
    always_accept: tuple[str, ...] | None = None,
    callback_terminals: tuple[str, ...] = (),
    **options: Any,
) -> SharedParser:
    """The shared LALR parser of `grammar` (a bundled name or a path) with lark `options`, built once.

    `always_accept` is the post-lexer's `always_accept` (None: the parser takes no
    post-lexer); `callback_terminals` are the terminals that get lexer callbacks. Both, like
    `options`, are fixed when the tables are built and are part of the cache key.
    """
    hooks = _Hooks()
    postlex = _PostLexRelay(hooks, tuple(always_accept)) if always_accept is not None else None
    lark = Lark(
        path(grammar).read_text(encoding="utf-8"),
        parser="lalr",
        transformer=_RuleRelay(hooks),
        postlex=postlex,
        lexer_callbacks={t: _lexer_relay(hooks, t) for t in callback_terminals},
        **options,
    )
    return SharedParser(lark, hooks, tuple(callback_terminals))
