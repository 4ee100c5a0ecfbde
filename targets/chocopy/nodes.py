"""ChocoPy AST node classes mirroring the reference compiler's node kinds and JSON form."""

from __future__ import annotations

from typing import Any

Location = list[int]


class Node:
    """Base AST node: a source location [line, col, end line, end col] and an optional error."""

    __slots__ = ("location", "error_msg", "sym_end", "header_end")
    kind = "Node"
    fields: tuple[str, ...] = ()

    def __init__(self, location: Location) -> None:
        self.location = location
        self.error_msg: str | None = None

    def to_json(self) -> dict[str, Any]:
        """Return the reference compiler's JSON form of this node as a dict."""
        out: dict[str, Any] = {"kind": self.kind, "location": list(self.location)}
        if self.error_msg is not None:
            out["errorMsg"] = self.error_msg
        self._extra_json(out)
        for name in self.fields:
            out[_json_key(name)] = _to_json(getattr(self, name))
        return out

    def _extra_json(self, out: dict[str, Any]) -> None:
        pass

    def __repr__(self) -> str:
        args = ", ".join(f"{f}={getattr(self, f)!r}" for f in self.fields)
        return f"{type(self).__name__}({args})"


_KEY_CACHE: dict[str, str] = {}


def _json_key(name: str) -> str:
    key = _KEY_CACHE.get(name)
    if key is None:
        head, *rest = name.split("_")
        key = head + "".join(part.capitalize() for part in rest)
        _KEY_CACHE[name] = key
    return key


def _to_json(value: Any) -> Any:
    if isinstance(value, Node):
        return value.to_json()
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    if hasattr(value, "to_json"):
        return value.to_json()
    return value


# ---------------------------------------------------------------- types in annotations


class TypeAnnotation(Node):
    """A type written in the source."""

    __slots__ = ()


class ClassType(TypeAnnotation):
    """A class-name annotation: `int` or `"Foo"`."""

    __slots__ = ("class_name",)
    kind = "ClassType"
    fields = ("class_name",)

    def __init__(self, location: Location, class_name: str) -> None:
        super().__init__(location)
        self.class_name = class_name


class ListType(TypeAnnotation):
    """A list annotation `[T]`."""

    __slots__ = ("element_type",)
    kind = "ListType"
    fields = ("element_type",)

    def __init__(self, location: Location, element_type: TypeAnnotation) -> None:
        super().__init__(location)
        self.element_type = element_type


# ---------------------------------------------------------------- expressions


class Expr(Node):
    """An expression; `inferred_type` is filled in by the type checker."""

    __slots__ = ("inferred_type", "paren")

    def __init__(self, location: Location) -> None:
        super().__init__(location)
        self.inferred_type: Any = None
        self.paren: Location | None = None  # extent including enclosing parentheses, if any

    def _extra_json(self, out: dict[str, Any]) -> None:
        if self.inferred_type is not None:
            out["inferredType"] = self.inferred_type.to_json()


class Identifier(Expr):
    """A name."""

    __slots__ = ("name",)
    kind = "Identifier"
    fields = ("name",)

    def __init__(self, location: Location, name: str) -> None:
        super().__init__(location)
        self.name = name


class Literal(Expr):
    """A literal constant."""

    __slots__ = ()


class IntegerLiteral(Literal):
    """An integer literal."""

    __slots__ = ("value",)
    kind = "IntegerLiteral"
    fields = ("value",)

    def __init__(self, location: Location, value: int) -> None:
        super().__init__(location)
        self.value = value


class StringLiteral(Literal):
    """A string literal (value unescaped)."""

    __slots__ = ("value",)
    kind = "StringLiteral"
    fields = ("value",)

    def __init__(self, location: Location, value: str) -> None:
        super().__init__(location)
        self.value = value


class BooleanLiteral(Literal):
    """`True` or `False`."""

    __slots__ = ("value",)
    kind = "BooleanLiteral"
    fields = ("value",)

    def __init__(self, location: Location, value: bool) -> None:
        super().__init__(location)
        self.value = value


class NoneLiteral(Literal):
    """`None`."""

    __slots__ = ()
    kind = "NoneLiteral"


class BinaryExpr(Expr):
    """`left operator right`."""

    __slots__ = ("left", "operator", "right")
    kind = "BinaryExpr"
    fields = ("left", "operator", "right")

    def __init__(self, location: Location, left: Expr, operator: str, right: Expr) -> None:
        super().__init__(location)
        self.left = left
        self.operator = operator
        self.right = right


class UnaryExpr(Expr):
    """`-operand` or `not operand`."""

    __slots__ = ("operator", "operand")
    kind = "UnaryExpr"
    fields = ("operator", "operand")

    def __init__(self, location: Location, operator: str, operand: Expr) -> None:
        super().__init__(location)
        self.operator = operator
        self.operand = operand


class IfExpr(Expr):
    """`then_expr if condition else else_expr`."""

    __slots__ = ("condition", "then_expr", "else_expr")
    kind = "IfExpr"
    fields = ("condition", "then_expr", "else_expr")

    def __init__(self, location: Location, condition: Expr, then_expr: Expr, else_expr: Expr) -> None:
        super().__init__(location)
        self.condition = condition
        self.then_expr = then_expr
        self.else_expr = else_expr


class ListExpr(Expr):
    """A list display `[e1, e2, ...]`."""

    __slots__ = ("elements",)
    kind = "ListExpr"
    fields = ("elements",)

    def __init__(self, location: Location, elements: list[Expr]) -> None:
        super().__init__(location)
        self.elements = elements


class CallExpr(Expr):
    """A call of a function or constructor `f(args)`."""

    __slots__ = ("function", "args")
    kind = "CallExpr"
    fields = ("function", "args")

    def __init__(self, location: Location, function: Identifier, args: list[Expr]) -> None:
        super().__init__(location)
        self.function = function
        self.args = args


class MemberExpr(Expr):
    """`object.member`."""

    __slots__ = ("object", "member")
    kind = "MemberExpr"
    fields = ("object", "member")

    def __init__(self, location: Location, obj: Expr, member: Identifier) -> None:
        super().__init__(location)
        self.object = obj
        self.member = member


class MethodCallExpr(Expr):
    """`object.method(args)`."""

    __slots__ = ("method", "args")
    kind = "MethodCallExpr"
    fields = ("method", "args")

    def __init__(self, location: Location, method: MemberExpr, args: list[Expr]) -> None:
        super().__init__(location)
        self.method = method
        self.args = args


class IndexExpr(Expr):
    """`list[index]`."""

    __slots__ = ("list", "index")
    kind = "IndexExpr"
    fields = ("list", "index")

    def __init__(self, location: Location, lst: Expr, index: Expr) -> None:
        super().__init__(location)
        self.list = lst
        self.index = index


# ---------------------------------------------------------------- statements


class Stmt(Node):
    """A statement."""

    __slots__ = ()


class ExprStmt(Stmt):
    """An expression evaluated for effect."""

    __slots__ = ("expr",)
    kind = "ExprStmt"
    fields = ("expr",)

    def __init__(self, location: Location, expr: Expr) -> None:
        super().__init__(location)
        self.expr = expr


class AssignStmt(Stmt):
    """`t1 = t2 = ... = value`."""

    __slots__ = ("targets", "value")
    kind = "AssignStmt"
    fields = ("targets", "value")

    def __init__(self, location: Location, targets: list[Expr], value: Expr) -> None:
        super().__init__(location)
        self.targets = targets
        self.value = value


class ReturnStmt(Stmt):
    """`return [value]`."""

    __slots__ = ("value",)
    kind = "ReturnStmt"
    fields = ("value",)

    def __init__(self, location: Location, value: Expr | None) -> None:
        super().__init__(location)
        self.value = value


class IfStmt(Stmt):
    """`if` with then and else bodies (`elif` nests an IfStmt in the else body)."""

    __slots__ = ("condition", "then_body", "else_body")
    kind = "IfStmt"
    fields = ("condition", "then_body", "else_body")

    def __init__(
        self, location: Location, condition: Expr, then_body: list[Stmt], else_body: list[Stmt]
    ) -> None:
        super().__init__(location)
        self.condition = condition
        self.then_body = then_body
        self.else_body = else_body


class WhileStmt(Stmt):
    """`while condition: body`."""

    __slots__ = ("condition", "body")
    kind = "WhileStmt"
    fields = ("condition", "body")

    def __init__(self, location: Location, condition: Expr, body: list[Stmt]) -> None:
        super().__init__(location)
        self.condition = condition
        self.body = body


class ForStmt(Stmt):
    """`for identifier in iterable: body`."""

    __slots__ = ("identifier", "iterable", "body")
    kind = "ForStmt"
    fields = ("identifier", "iterable", "body")

    def __init__(self, location: Location, identifier: Identifier, iterable: Expr, body: list[Stmt]) -> None:
        super().__init__(location)
        self.identifier = identifier
        self.iterable = iterable
        self.body = body


# ---------------------------------------------------------------- declarations


class Declaration(Node):
    """A declaration in a program, class or function body."""

    __slots__ = ()

    def get_identifier(self) -> Identifier:
        """Return the declared name's identifier node."""
        raise NotImplementedError


class TypedVar(Node):
    """`identifier: type`."""

    __slots__ = ("identifier", "type")
    kind = "TypedVar"
    fields = ("identifier", "type")

    def __init__(self, location: Location, identifier: Identifier, type_: TypeAnnotation) -> None:
        super().__init__(location)
        self.identifier = identifier
        self.type = type_


class VarDef(Declaration):
    """`var: type = literal`."""

    __slots__ = ("var", "value")
    kind = "VarDef"
    fields = ("var", "value")

    def __init__(self, location: Location, var: TypedVar, value: Literal) -> None:
        super().__init__(location)
        self.var = var
        self.value = value

    def get_identifier(self) -> Identifier:
        """Return the declared variable's identifier."""
        return self.var.identifier


class GlobalDecl(Declaration):
    """`global variable`."""

    __slots__ = ("variable",)
    kind = "GlobalDecl"
    fields = ("variable",)

    def __init__(self, location: Location, variable: Identifier) -> None:
        super().__init__(location)
        self.variable = variable

    def get_identifier(self) -> Identifier:
        """Return the declared variable's identifier."""
        return self.variable


class NonLocalDecl(GlobalDecl):
    """`nonlocal variable`."""

    __slots__ = ()
    kind = "NonLocalDecl"


class FuncDef(Declaration):
    """A function or method definition."""

    __slots__ = ("name", "params", "return_type", "declarations", "statements")
    kind = "FuncDef"
    fields = ("name", "params", "return_type", "declarations", "statements")

    def __init__(
        self,
        location: Location,
        name: Identifier,
        params: list[TypedVar],
        return_type: TypeAnnotation,
        declarations: list[Declaration],
        statements: list[Stmt],
    ) -> None:
        super().__init__(location)
        self.name = name
        self.params = params
        self.return_type = return_type
        self.declarations = declarations
        self.statements = statements

    def get_identifier(self) -> Identifier:
        """Return the function's name."""
        return self.name


class ClassDef(Declaration):
    """A class definition."""

    __slots__ = ("name", "super_class", "declarations")
    kind = "ClassDef"
    fields = ("name", "super_class", "declarations")

    def __init__(
        self, location: Location, name: Identifier, super_class: Identifier, declarations: list[Declaration]
    ) -> None:
        super().__init__(location)
        self.name = name
        self.super_class = super_class
        self.declarations = declarations

    def get_identifier(self) -> Identifier:
        """Return the class's name."""
        return self.name


# ---------------------------------------------------------------- program and errors


class CompilerError(Node):
    """A reported error: its location and message."""

    __slots__ = ("message", "syntax")
    kind = "CompilerError"
    fields = ("message",)

    def __init__(self, location: Location, message: str, syntax: bool = False) -> None:
        super().__init__(location)
        self.message = message
        self.syntax = syntax

    def _extra_json(self, out: dict[str, Any]) -> None:
        if self.syntax:
            out["syntax"] = True


class Errors(Node):
    """The list of errors of a program."""

    __slots__ = ("errors",)
    kind = "Errors"
    fields = ("errors",)

    def __init__(self, location: Location, errors: list[CompilerError]) -> None:
        super().__init__(location)
        self.errors = errors


class Program(Node):
    """A whole ChocoPy program."""

    __slots__ = ("declarations", "statements", "errors")
    kind = "Program"
    fields = ("declarations", "statements", "errors")

    def __init__(
        self, location: Location, declarations: list[Declaration], statements: list[Stmt], errors: Errors
    ) -> None:
        super().__init__(location)
        self.declarations = declarations
        self.statements = statements
        self.errors = errors
