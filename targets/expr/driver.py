"""Driver evaluating programs of grammars/expr.lark with the standard library's `fractions` and `tokenize`.

The code under test is not written here: `tokenize` (pure Python on 3.11) lexes the program
and `fractions.Fraction` does all the arithmetic exactly (parsing number literals, + - * / %,
comparisons, rounding).  This module only walks the token stream with the grammar's
precedence (a recursive-descent evaluator).  Both libraries are imported at module level so
that a mutant copy of this driver binds to the mutant copies.

Semantics: one statement per line; `let x = e` declares x (declaring twice is an error),
`x = e` assigns a declared x, `print e` and a bare expression output the value;
`if c then a else b` evaluates only the branch taken (c is true when non-zero); comparisons
give 1 or 0; the functions abs, floor, ceil, round (1 or 2 arguments), min, max, pow and
limit (`Fraction.limit_denominator`) are predefined.  Errors (unknown name, division by zero,
bad arity) are outputs.
"""

from __future__ import annotations

import io
import math
import tokenize
from collections.abc import Callable
from fractions import Fraction

from mu2py import driver
from targets.grammar_source import bounded_source

KEYWORDS = frozenset({"let", "print", "if", "then", "else"})
MAX_EXPONENT = 64
"""pow's exponent and round's digits are capped: nested powers would otherwise never finish."""

_SKIP = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING})


class EvalError(Exception):
    """An error of the evaluated program (an output, not a failure of the driver)."""


def _small_int(value: Fraction, what: str) -> int:
    if value.denominator != 1 or abs(value) > MAX_EXPONENT:
        raise EvalError(f"{what} must be an integer of at most {MAX_EXPONENT} in size, got {value}")
    return int(value)


def _round(x: Fraction, digits: Fraction | None = None) -> Fraction:
    if digits is None:
        return Fraction(round(x))
    return round(x, _small_int(digits, "round's digits"))


FUNCTIONS: dict[str, tuple[int, int | None, Callable[..., Fraction]]] = {
    "abs": (1, 1, abs),
    "floor": (1, 1, lambda x: Fraction(math.floor(x))),
    "ceil": (1, 1, lambda x: Fraction(math.ceil(x))),
    "round": (1, 2, _round),
    "min": (1, None, min),
    "max": (1, None, max),
    "pow": (2, 2, lambda x, n: Fraction(x ** _small_int(n, "pow's exponent"))),
    "limit": (2, 2, lambda x, n: x.limit_denominator(_small_int(n, "limit's denominator"))),
}
"""name -> (fewest arguments, most arguments or None, function)."""


class _Evaluator:
    """Evaluates one program: `tokens` without comments and blank lines, `pos` the next token."""

    def __init__(self, tokens: list[tokenize.TokenInfo]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.env: dict[str, Fraction] = {}
        self.output: list[str] = []

    # -- tokens ------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> tokenize.TokenInfo:
        """The token `ahead` places on (the end marker past the end)."""
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def next(self) -> tokenize.TokenInfo:
        """Consume and return the next token."""
        tok = self.peek()
        self.pos += 1
        return tok

    def at(self, text: str) -> bool:
        """Whether the next token is the name or operator `text`."""
        tok = self.peek()
        return tok.string == text and tok.type in (tokenize.NAME, tokenize.OP)

    def expect(self, text: str) -> None:
        """Consume `text` or raise EvalError."""
        tok = self.next()
        if tok.string != text:
            raise EvalError(f"expected {text!r} at line {tok.start[0]}, found {tok.string!r}")

    # -- statements ----------------------------------------------------------------------

    def program(self) -> list[str]:
        """Run every statement; return the outputs."""
        while self.peek().type != tokenize.ENDMARKER:
            if self.peek().type != tokenize.NEWLINE:
                self.statement()
            if self.peek().type not in (tokenize.NEWLINE, tokenize.ENDMARKER):
                tok = self.peek()
                raise EvalError(f"unexpected {tok.string!r} at line {tok.start[0]}")
            if self.peek().type == tokenize.NEWLINE:
                self.next()
        return self.output

    def statement(self) -> None:
        """Run one statement (let, assignment, print or expression)."""
        tok = self.peek()
        if tok.type == tokenize.NAME and tok.string == "let":
            self.next()
            name = self.name()
            self.expect("=")
            value = self.expr(True)
            if name in self.env:
                raise EvalError(f"{name} is already declared")
            self.env[name] = value
        elif tok.type == tokenize.NAME and tok.string == "print":
            self.next()
            self.output.append(str(self.expr(True)))
        elif tok.type == tokenize.NAME and tok.string not in KEYWORDS and self.peek(1).string == "=":
            name = self.name()
            self.expect("=")
            value = self.expr(True)
            if name not in self.env:
                raise EvalError(f"assignment to undeclared {name}")
            self.env[name] = value
        else:
            self.output.append(f"= {self.expr(True)}")

    def name(self) -> str:
        """Consume a non-keyword name."""
        tok = self.next()
        if tok.type != tokenize.NAME or tok.string in KEYWORDS:
            raise EvalError(f"expected a name at line {tok.start[0]}, found {tok.string!r}")
        return tok.string

    # -- expressions: `live` is False inside a branch not taken (parsed, not evaluated) -----

    def expr(self, live: bool) -> Fraction:
        """expr: `if c then a else b` or a comparison."""
        if self.at("if"):
            self.next()
            cond = self.expr(live)
            self.expect("then")
            yes = self.expr(live and cond != 0)
            self.expect("else")
            no = self.expr(live and cond == 0)
            return yes if cond != 0 else no
        return self.comparison(live)

    def comparison(self, live: bool) -> Fraction:
        """comparison: sum [COMP_OP sum], 1 or 0."""
        left = self.sum(live)
        op = self.peek().string
        if op in ("==", "!=", "<", "<=", ">", ">="):
            self.next()
            right = self.sum(live)
            if not live:
                return Fraction(0)
            result = {
                "==": left == right, "!=": left != right, "<": left < right,
                "<=": left <= right, ">": left > right, ">=": left >= right,
            }[op]
            return Fraction(int(result))
        return left

    def sum(self, live: bool) -> Fraction:
        """sum: product (('+' | '-') product)*."""
        value = self.product(live)
        while self.peek().string in ("+", "-"):
            op = self.next().string
            right = self.product(live)
            if live:
                value = value + right if op == "+" else value - right
        return value

    def product(self, live: bool) -> Fraction:
        """product: unary (('*' | '/' | '%') unary)*."""
        value = self.unary(live)
        while self.peek().string in ("*", "/", "%"):
            op = self.next().string
            right = self.unary(live)
            if live:
                value = value * right if op == "*" else value / right if op == "/" else value % right
        return value

    def unary(self, live: bool) -> Fraction:
        """unary: '-' unary | atom."""
        if self.at("-"):
            self.next()
            value = self.unary(live)
            return -value if live else value
        return self.atom(live)

    def atom(self, live: bool) -> Fraction:
        """atom: NUMBER | NAME | NAME '(' args ')' | '(' expr ')'."""
        tok = self.next()
        if tok.type == tokenize.NUMBER:
            return Fraction(tok.string)  # the library parses the literal
        if tok.string == "(":
            value = self.expr(live)
            self.expect(")")
            return value
        if tok.type != tokenize.NAME or tok.string in KEYWORDS:
            raise EvalError(f"unexpected {tok.string!r} at line {tok.start[0]}")
        if self.at("("):
            return self.call(tok.string, live)
        if not live:
            return Fraction(0)
        if tok.string not in self.env:
            raise EvalError(f"unknown variable {tok.string}")
        return self.env[tok.string]

    def call(self, name: str, live: bool) -> Fraction:
        """The arguments of a call of `name` and, when live, its value."""
        self.expect("(")
        args: list[Fraction] = []
        if not self.at(")"):
            args.append(self.expr(live))
            while self.at(","):
                self.next()
                args.append(self.expr(live))
        self.expect(")")
        if not live:
            return Fraction(0)
        if name not in FUNCTIONS:
            raise EvalError(f"unknown function {name}")
        low, high, fn = FUNCTIONS[name]
        if len(args) < low or (high is not None and len(args) > high):
            raise EvalError(f"{name} takes {low}..{high or 'any'} arguments, got {len(args)}")
        return fn(*args)


@driver(bounded_source("expr.lark"), targets=["fractions", "tokenize"])
def evaluate(text: str) -> tuple[str, ...]:
    """Run an expr program: ("ok", *outputs), or ("error", kind, message) for a program error."""
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(text).readline) if t.type not in _SKIP]
        return ("ok", *_Evaluator(tokens).program())
    except (tokenize.TokenError, SyntaxError) as exc:
        return ("error", "lex", str(exc))
    except EvalError as exc:
        return ("error", "eval", str(exc))
    except (ZeroDivisionError, ValueError, OverflowError) as exc:  # raised by the arithmetic itself
        return ("error", type(exc).__name__, str(exc))
