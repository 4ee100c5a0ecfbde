"""ChocoPy parser: grammars/chocopy.lark (LALR + indentation post-lexer) to the AST of nodes.py."""

from __future__ import annotations

import keyword
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import LarkError, UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.indenter import DedentError, Indenter

import grammars
from targets.chocopy import nodes as n

GRAMMAR_PATH = grammars.path("chocopy.lark")
MAX_INT = 2147483647
RESERVED = frozenset(keyword.kwlist) | frozenset(keyword.softkwlist) - {"_"}
# the grammar offers these as literals in type and superclass positions; to the reference
# lexer they are identifiers, so a token spelled so is an ID wherever ChocoPy names a token
PREDEFINED_CLASSES = frozenset({"object", "int", "bool", "str"})


class ChocoPySyntaxError(Exception):
    """A lexical or syntax error, with the reference compiler's error object."""

    def __init__(self, message: str, line: int = 0, column: int = 0, end_line: int = 0, end_column: int = 0):
        super().__init__(message)
        self.message = message
        self.location = [line, column, end_line, end_column]

    def to_json(self) -> dict[str, Any]:
        """Return the reference compiler's JSON for a program with this syntax error."""
        err = n.CompilerError(self.location, self.message, syntax=True)
        prog = n.Program([0, 0, 0, 0], [], [], n.Errors([0, 0, 0, 0], [err]))
        return prog.to_json()


class ChocoPyIndenter(Indenter):
    """Indentation post-lexer: no implicit line joining in ChocoPy, tabs to multiples of 8."""

    NL_type = "_NEWLINE"
    OPEN_PAREN_types: list[str] = []
    CLOSE_PAREN_types: list[str] = []
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    text_len = -1

    def handle_NL(self, token: Token) -> Any:
        """Indent/dedent as lark's Indenter, placing end-of-file DEDENTs as the reference does.

        The reference lexer puts the k-th DEDENT at end of file at column k of the line
        after the last one; other DEDENTs sit just before the first token of the next line.
        """
        if token.end_pos != self.text_len:
            yield from super().handle_NL(token)
            return
        k = 0
        for tok in super().handle_NL(token):
            if tok.type == "_DEDENT":
                k += 1
                tok = Token("_DEDENT", "", tok.end_pos, tok.end_line, k + 1, tok.end_line, k + 1, tok.end_pos)
            yield tok


class _Pass:
    """Marker for a `pass` statement (dropped from the AST, but it has a source extent)."""

    __slots__ = ("location", "sym_end")

    def __init__(self, location: n.Location, sym_end: tuple[int, int]) -> None:
        self.location = location
        self.sym_end = sym_end


class _Block:
    """A statement block with the position of its closing DEDENT."""

    __slots__ = ("stmts", "sym_end")

    def __init__(self, stmts: list[Any], sym_end: tuple[int, int]) -> None:
        self.stmts = stmts
        self.sym_end = sym_end


def _start(tok: Token) -> list[int]:
    return [tok.line, tok.column]


def _tok_loc(tok: Token) -> n.Location:
    return [tok.line, tok.column, tok.end_line, tok.end_column - 1]


def _nl_pos(tok: Token) -> tuple[int, int]:
    """Position of the newline character a _NEWLINE token starts with (after a comment)."""
    idx = tok.value.find("\n")
    if idx < 0:
        return (tok.line, tok.column)
    return (tok.line, tok.column + idx)


def _dedent_pos(tok: Token) -> tuple[int, int]:
    return (tok.end_line, tok.end_column - 1)


def _extent(item: Any) -> n.Location:
    """Source extent of a child: a token, or a node including any parentheses around it."""
    if isinstance(item, Token):
        return _tok_loc(item)
    paren = getattr(item, "paren", None)
    return paren if paren is not None else item.location


def _span(first: Any, last: Any) -> n.Location:
    a = _extent(first)
    b = _extent(last)
    return [a[0], a[1], b[2], b[3]]


def _unescape(body: str) -> str:
    if "\\" not in body:
        return body
    out = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch == "\\":
            nxt = body[i + 1]
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}[nxt])
            i += 2
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def _nodes(children: list[Any]) -> list[Any]:
    return [c for c in children if not isinstance(c, Token)]


def _real(items: list[Any]) -> list[Any]:
    return [c for c in items if not isinstance(c, _Pass)]


def _sym_end(node: Any) -> tuple[int, int]:
    return node.sym_end


class _ToAst(Transformer):
    """Builds AST nodes bottom-up during the LALR parse (all tokens are kept)."""

    # ------------------------------------------------------------ literals and names
    def identifier(self, c: list[Any]) -> n.Identifier:
        return n.Identifier(_tok_loc(c[0]), c[0].value)

    def none_literal(self, c: list[Any]) -> n.NoneLiteral:
        return n.NoneLiteral(_tok_loc(c[0]))

    def true_literal(self, c: list[Any]) -> n.BooleanLiteral:
        return n.BooleanLiteral(_tok_loc(c[0]), True)

    def false_literal(self, c: list[Any]) -> n.BooleanLiteral:
        return n.BooleanLiteral(_tok_loc(c[0]), False)

    def integer_literal(self, c: list[Any]) -> n.IntegerLiteral:
        tok = c[0]
        value = int(tok.value)
        if value > MAX_INT:
            raise ChocoPySyntaxError(f"Integer literal out of range: {tok.value}", *_tok_loc(tok))
        return n.IntegerLiteral(_tok_loc(tok), value)

    def string_literal(self, c: list[Any]) -> n.StringLiteral:
        tok = c[0]
        return n.StringLiteral(_tok_loc(tok), _unescape(tok.value[1:-1]))

    # ------------------------------------------------------------ types
    def class_type(self, c: list[Any]) -> n.ClassType:
        # ID, IDSTRING ("Foo": the quotes are not part of the name) or a predefined class
        # literal, whose text is the class name as for an ID
        tok = c[0]
        name = tok.value[1:-1] if tok.type == "IDSTRING" else tok.value
        return n.ClassType(_tok_loc(tok), name)

    def list_type(self, c: list[Any]) -> n.ListType:
        return n.ListType(_span(c[0], c[2]), c[1])

    def typed_var(self, c: list[Any]) -> n.TypedVar:
        ident = n.Identifier(_tok_loc(c[0]), c[0].value)
        return n.TypedVar(_span(ident, c[2]), ident, c[2])

    # ------------------------------------------------------------ expressions
    def binary_expr(self, c: list[Any]) -> n.BinaryExpr:
        return n.BinaryExpr(_span(c[0], c[2]), c[0], c[1].value, c[2])

    def unary_expr(self, c: list[Any]) -> n.UnaryExpr:
        return n.UnaryExpr(_span(c[0], c[1]), c[0].value, c[1])

    def if_expr(self, c: list[Any]) -> n.IfExpr:
        return n.IfExpr(_span(c[0], c[4]), c[2], c[0], c[4])

    def paren_expr(self, c: list[Any]) -> n.Expr:
        inner: n.Expr = c[1]
        inner.paren = _span(c[0], c[2])
        return inner

    def member_expr(self, c: list[Any]) -> n.MemberExpr:
        return n.MemberExpr(_span(c[0], c[2]), c[0], c[2])

    def index_expr(self, c: list[Any]) -> n.IndexExpr:
        return n.IndexExpr(_span(c[0], c[3]), c[0], c[2])

    def call_expr(self, c: list[Any]) -> n.CallExpr:
        return n.CallExpr(_span(c[0], c[-1]), c[0], _nodes(c[2:-1]))

    def method_call_expr(self, c: list[Any]) -> n.MethodCallExpr:
        return n.MethodCallExpr(_span(c[0], c[-1]), c[0], _nodes(c[2:-1]))

    def list_expr(self, c: list[Any]) -> n.ListExpr:
        return n.ListExpr(_span(c[0], c[-1]), _nodes(c[1:-1]))

    # ------------------------------------------------------------ simple statements
    def pass_stmt(self, c: list[Any]) -> _Pass:
        return _Pass(_tok_loc(c[0]), _nl_pos(c[1]))

    pass_line = pass_stmt

    def expr_stmt(self, c: list[Any]) -> n.ExprStmt:
        stmt = n.ExprStmt(list(_extent(c[0])), c[0])
        stmt.sym_end = _nl_pos(c[1])
        return stmt

    def return_stmt(self, c: list[Any]) -> n.ReturnStmt:
        if len(c) == 3:
            stmt = n.ReturnStmt(_span(c[0], c[1]), c[1])
        else:
            stmt = n.ReturnStmt(_tok_loc(c[0]), None)
        stmt.sym_end = _nl_pos(c[-1])
        return stmt

    def assign_stmt(self, c: list[Any]) -> n.AssignStmt:
        targets = c[0:-3:2]
        stmt = n.AssignStmt(_span(c[0], c[-2]), targets, c[-2])
        stmt.sym_end = _nl_pos(c[-1])
        return stmt

    # ------------------------------------------------------------ compound statements
    def block(self, c: list[Any]) -> _Block:
        return _Block(c[2:-1], _dedent_pos(c[-1]))

    def if_stmt(self, c: list[Any]) -> n.IfStmt:
        block: _Block = c[3]
        rest = c[4] if len(c) > 4 else None
        else_body: list[Any] = []
        end = block.sym_end
        if isinstance(rest, _Block):
            else_body = _real(rest.stmts)
            end = rest.sym_end
        elif rest is not None:
            else_body = [rest]
            end = rest.sym_end
        stmt = n.IfStmt([c[0].line, c[0].column, *end], c[1], _real(block.stmts), else_body)
        stmt.sym_end = end
        stmt.header_end = _tok_loc(c[2])[2:]
        return stmt

    elif_stmt = if_stmt

    def else_block(self, c: list[Any]) -> _Block:
        return c[2]

    def while_stmt(self, c: list[Any]) -> n.WhileStmt:
        block: _Block = c[3]
        stmt = n.WhileStmt([c[0].line, c[0].column, *block.sym_end], c[1], _real(block.stmts))
        stmt.sym_end = block.sym_end
        stmt.header_end = _tok_loc(c[2])[2:]
        return stmt

    def for_stmt(self, c: list[Any]) -> n.ForStmt:
        block: _Block = c[5]
        stmt = n.ForStmt([c[0].line, c[0].column, *block.sym_end], c[1], c[3], _real(block.stmts))
        stmt.sym_end = block.sym_end
        stmt.header_end = _tok_loc(c[4])[2:]
        return stmt

    # ------------------------------------------------------------ declarations
    def var_def(self, c: list[Any]) -> n.VarDef:
        node = n.VarDef(_span(c[0], c[2]), c[0], c[2])
        node.sym_end = _nl_pos(c[3])
        return node

    def global_decl(self, c: list[Any]) -> n.GlobalDecl:
        node = n.GlobalDecl(_span(c[0], c[1]), n.Identifier(_tok_loc(c[1]), c[1].value))
        node.sym_end = _nl_pos(c[2])
        return node

    def nonlocal_decl(self, c: list[Any]) -> n.NonLocalDecl:
        node = n.NonLocalDecl(_span(c[0], c[1]), n.Identifier(_tok_loc(c[1]), c[1].value))
        node.sym_end = _nl_pos(c[2])
        return node

    def return_type(self, c: list[Any]) -> n.TypeAnnotation:
        return c[1]

    def func_def(self, c: list[Any]) -> n.FuncDef:
        name = n.Identifier(_tok_loc(c[1]), c[1].value)
        i = 3
        params: list[n.TypedVar] = []
        while not (isinstance(c[i], Token) and c[i].type == "RPAR"):
            if isinstance(c[i], n.TypedVar):
                params.append(c[i])
            i += 1
        i += 1
        if isinstance(c[i], n.TypeAnnotation):
            ret: n.TypeAnnotation = c[i]
            i += 1
            colon = c[i]
        else:
            colon = c[i]
            ret = n.ClassType(_tok_loc(colon), "<None>")
        body = c[i + 3 : -1]
        decls = [d for d in body if isinstance(d, n.Declaration)]
        stmts = [s for s in body if not isinstance(s, n.Declaration)]
        last = body[-1]
        end = last.sym_end
        node = n.FuncDef([c[0].line, c[0].column, *end], name, params, ret, decls, _real(stmts))
        node.sym_end = _dedent_pos(c[-1])
        node.header_end = _tok_loc(colon)[2:]
        return node

    def class_def(self, c: list[Any]) -> n.ClassDef:
        name = n.Identifier(_tok_loc(c[1]), c[1].value)
        # the superclass token is an ID or the `object` literal: an Identifier either way
        sup = n.Identifier(_tok_loc(c[3]), c[3].value)
        body = c[8:-1]
        end = body[-1].sym_end
        node = n.ClassDef([c[0].line, c[0].column, *end], name, sup, _real(body))
        node.sym_end = _dedent_pos(c[-1])
        node.header_end = _tok_loc(c[5])[2:]
        return node

    def program(self, c: list[Any]) -> n.Program:
        decls = [d for d in c if isinstance(d, n.Declaration)]
        stmts = [s for s in c if not isinstance(s, n.Declaration | Token)]
        items = [x for x in c if not isinstance(x, Token)]
        if items:
            loc = [*items[0].location[:2], *items[-1].sym_end]
        else:
            loc = [0, 0, 0, 0]
        return n.Program(loc, decls, _real(stmts), n.Errors([0, 0, 0, 0], []))

    def start(self, c: list[Any]) -> n.Program:
        return c[-1]


def _check_id(tok: Token) -> Token:
    if tok.value in RESERVED:
        raise ChocoPySyntaxError(f"Parse error near token: {tok.value}", *_tok_loc(tok))
    return tok


_INDENTER = ChocoPyIndenter()
_TO_AST = _ToAst()
_LEXER_CALLBACKS = {"ID": _check_id}


def _shared() -> grammars.SharedParser:
    # the LALR tables live in `grammars`, outside the mutated package, so that a mutant copy
    # of this module does not rebuild them; the callbacks passed to each parse are this copy's
    return grammars.shared_lalr(
        GRAMMAR_PATH,
        always_accept=tuple(_INDENTER.always_accept),
        callback_terminals=tuple(_LEXER_CALLBACKS),
        keep_all_tokens=True,
        maybe_placeholders=False,
    )


def get_lark() -> Lark:
    """Return the LALR parser of grammars/chocopy.lark (its tables are built once per process)."""
    return _shared().lark


def _token_kind(tok: Token) -> str:
    """The reference lexer's name for `tok`'s kind: a predefined class name is an ID there."""
    # lark's fallback lexer, used to name the offending token, reads `int` as the grammar's
    # literal wherever the literal exists; the reference has no such token kind
    if tok.value in PREDEFINED_CLASSES:
        return "ID"
    return tok.type


def _syntax_error(exc: LarkError) -> ChocoPySyntaxError:
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        if tok.type == "$END":
            return ChocoPySyntaxError("Parse error near token EOF", exc.line or 0, exc.column or 0)
        text = tok.value if tok.type not in ("_NEWLINE", "_INDENT", "_DEDENT") else tok.type.strip("_")
        return ChocoPySyntaxError(f"Parse error near token {_token_kind(tok)}: {text}", *_tok_loc(tok))
    if isinstance(exc, UnexpectedCharacters):
        where = (exc.line, exc.column, exc.line, exc.column)
        return ChocoPySyntaxError(f"Unrecognized character: {exc.char!r}", *where)
    if isinstance(exc, UnexpectedInput):
        return ChocoPySyntaxError(str(exc).splitlines()[0], exc.line, exc.column, exc.line, exc.column)
    if isinstance(exc, DedentError):
        return ChocoPySyntaxError(str(exc))
    return ChocoPySyntaxError(str(exc).splitlines()[0] if str(exc) else type(exc).__name__)


def parse(source: str, python_locations: bool = False) -> n.Program:
    """Parse ChocoPy source into a Program; raise ChocoPySyntaxError on a syntax error.

    With `python_locations`, compound statements, definitions and the program end where
    their last AST child ends (the convention of chocopy-python-compiler's parser tests)
    instead of at the reference compiler's NEWLINE/DEDENT positions.
    """
    if not source.endswith("\n"):
        source += "\n"
    _INDENTER.text_len = len(source)
    try:
        program: n.Program = _shared().parse(
            source, transformer=_TO_AST, postlex=_INDENTER, lexer_callbacks=_LEXER_CALLBACKS
        )
    except ChocoPySyntaxError:
        raise
    except LarkError as exc:
        inner = getattr(exc, "orig_exc", None)
        if isinstance(inner, ChocoPySyntaxError):
            raise inner from None
        raise _syntax_error(exc) from None
    if python_locations:
        relocate_python_style(program)
    return program


def _py_end(node: Any) -> list[int]:
    """End position of `node` under the python-style convention (recomputing children)."""
    if isinstance(node, n.IfStmt):
        body = node.else_body or node.then_body
        end = _py_end(body[-1]) if body else list(node.header_end)
    elif isinstance(node, n.WhileStmt | n.ForStmt):
        end = _py_end(node.body[-1]) if node.body else list(node.header_end)
    elif isinstance(node, n.FuncDef):
        for d in node.declarations + node.statements:
            _py_end(d)
        end = _py_end(node.statements[-1]) if node.statements else (
            _py_end(node.declarations[-1]) if node.declarations else list(node.header_end))
    elif isinstance(node, n.ClassDef):
        end = _py_end(node.declarations[-1]) if node.declarations else list(node.header_end)
        for d in node.declarations:
            _py_end(d)
    else:
        return node.location[2:]
    for child in _children_stmts(node):
        _py_end(child)
    node.location[2:] = end
    return end


def _children_stmts(node: Any) -> list[Any]:
    if isinstance(node, n.IfStmt):
        return node.then_body + node.else_body
    if isinstance(node, n.WhileStmt | n.ForStmt):
        return node.body
    return []


def relocate_python_style(program: n.Program) -> None:
    """Rewrite block-statement end locations to the python-compiler convention, in place."""
    for item in program.declarations + program.statements:
        _py_end(item)
    items = program.declarations + program.statements
    if items:
        program.location[:2] = items[0].location[:2]
        program.location[2:] = items[-1].location[2:]
