"""Driver for `tokenize.generate_tokens` on programs of grammars/indent.lark (a small Python-like language).

On Python 3.11 `tokenize` is a pure-Python tokenizer (regular expressions plus an explicit
indentation stack producing INDENT/DEDENT), a real parser of significant indentation not
written here.  It is imported at module level so that a mutant copy of this driver binds to
the mutant copy of `tokenize`.  (From Python 3.12 on, `generate_tokens` delegates to the C
tokenizer and little of `tokenize` remains to cover or mutate.)
"""

from __future__ import annotations

import io
import tokenize

from mu2py import driver
from targets.grammar_source import bounded_source

Token = tuple[str, str, tuple[int, int], tuple[int, int]]


@driver(bounded_source("indent.lark"), targets=["tokenize"])
def tokens(text: str) -> list[Token] | tuple[str, str, str]:
    """The token stream of `text` as (type, string, start, end) tuples; a tokenizer error is an output too."""
    try:
        return [
            (tokenize.tok_name[tok.exact_type], tok.string, tok.start, tok.end)
            for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        ]
    except (tokenize.TokenError, SyntaxError) as exc:  # IndentationError is a SyntaxError
        return ("error", type(exc).__name__, str(exc))
