"""ChocoPy type checker (v2.2 typing rules): annotates expressions with inferred types and errors."""

from __future__ import annotations

from targets.chocopy import nodes as n
from targets.chocopy.declarations import Declarations, ErrorSink
from targets.chocopy.scopes import ClassEntry, FuncEntry, Scope, VarEntry
from targets.chocopy.types import (
    BOOL,
    EMPTY,
    INT,
    NONE,
    OBJECT,
    SPECIAL,
    STR,
    ClassValueType,
    FuncType,
    ListValueType,
    ValueType,
)

_ARITH = frozenset({"-", "*", "//", "%"})
_ORDER = frozenset({"<", "<=", ">", ">="})
_EQUALITY = frozenset({"==", "!="})


def check_program(program: n.Program) -> list[n.CompilerError]:
    """Run declaration analysis and (if it succeeds) type checking; record errors on `program`."""
    sink = ErrorSink()
    decls = Declarations(sink)
    decls.analyze(program)
    if not sink.errors:
        TypeChecker(decls, sink).program(program)
    program.errors.errors = sink.errors
    return sink.errors


class TypeChecker:
    """Infers expression types statement by statement, in source order."""

    def __init__(self, decls: Declarations, sink: ErrorSink) -> None:
        self.decls = decls
        self.classes = decls.classes
        self.sink = sink
        self.scope: Scope = decls.globals
        self.return_type: ValueType | None = None

    def err(self, node: n.Node, message: str) -> None:
        """Report an error at `node`."""
        self.sink.error(node, message)

    # ------------------------------------------------------------ declarations
    def program(self, program: n.Program) -> None:
        """Type-check a whole program."""
        for decl in program.declarations:
            self.declaration(decl)
        for stmt in program.statements:
            self.stmt(stmt)

    def declaration(self, decl: n.Declaration) -> None:
        """Type-check a declaration (variable initialisers and bodies)."""
        if isinstance(decl, n.VarDef):
            vtype = self.decls.annotation_quiet(decl.var.type)
            value_type = self.expr(decl.value)
            if not self.classes.is_assignable(value_type, vtype):
                self.err(decl, f"Expected type `{vtype}`; got type `{value_type}`")
        elif isinstance(decl, n.ClassDef):
            for member in decl.declarations:
                self.declaration(member)
        elif isinstance(decl, n.FuncDef):
            self.function(decl)

    def function(self, fd: n.FuncDef) -> None:
        """Type-check a function body in its own scope."""
        saved = self.scope, self.return_type
        self.scope = self.decls.func_scopes[id(fd)]
        self.return_type = self.decls.annotation_quiet(fd.return_type)
        for decl in fd.declarations:
            self.declaration(decl)
        for stmt in fd.statements:
            self.stmt(stmt)
        if self.return_type in SPECIAL and not _returns(fd.statements):
            msg = "All paths in this function/method must return a non-None value"
            self.err(fd.name, f"{msg}: {fd.name.name}")
        self.scope, self.return_type = saved

    # ------------------------------------------------------------ statements
    def stmt(self, stmt: n.Stmt) -> None:
        """Type-check a statement."""
        if isinstance(stmt, n.ExprStmt):
            self.expr(stmt.expr)
        elif isinstance(stmt, n.AssignStmt):
            self.assign(stmt)
        elif isinstance(stmt, n.IfStmt):
            self.condition(stmt.condition)
            for s in stmt.then_body:
                self.stmt(s)
            for s in stmt.else_body:
                self.stmt(s)
        elif isinstance(stmt, n.WhileStmt):
            self.condition(stmt.condition)
            for s in stmt.body:
                self.stmt(s)
        elif isinstance(stmt, n.ForStmt):
            self.for_stmt(stmt)
        elif isinstance(stmt, n.ReturnStmt):
            self.return_stmt(stmt)

    def condition(self, cond: n.Expr) -> None:
        """Type-check a condition, which must be a `bool`."""
        ctype = self.expr(cond)
        if ctype != BOOL:
            self.err(cond, f"Condition expression cannot be of type `{ctype}`")

    def assign(self, stmt: n.AssignStmt) -> None:
        """Type-check `t1 = ... = value`."""
        vtype = self.expr(stmt.value)
        if len(stmt.targets) > 1 and vtype == ListValueType(NONE):
            self.err(stmt, "Right-hand side of multiple assignment may not be [<None>]")
        for target in stmt.targets:
            ttype = self.target(target)
            if ttype is not None and not self.classes.is_assignable(vtype, ttype):
                self.err(stmt, f"Expected type `{ttype}`; got type `{vtype}`")

    def target(self, target: n.Expr) -> ValueType | None:
        """Type-check an assignment target; return its type (None if not assignable)."""
        if isinstance(target, n.Identifier):
            entry = self.scope.names.get(target.name)
            if isinstance(entry, VarEntry):
                target.inferred_type = entry.type
                return entry.type
            outer = self.scope.lookup(target.name)
            if isinstance(outer, VarEntry):
                target.inferred_type = outer.type
                self.err(
                    target,
                    f"Cannot assign to variable that is not explicitly declared in this scope: {target.name}",
                )
                return None
            target.inferred_type = OBJECT
            self.err(target, f"Not a variable: {target.name}")
            return None
        if isinstance(target, n.IndexExpr):
            ttype = self.expr(target)
            if self._type_of(target.list) == STR:
                self.err(target, "`str` is not a list type")
                return None
            return ttype
        return self.expr(target)

    @staticmethod
    def _type_of(expr: n.Expr) -> ValueType | None:
        return expr.inferred_type

    def for_stmt(self, stmt: n.ForStmt) -> None:
        """Type-check a `for` loop over a list or a string."""
        itype = self.expr(stmt.iterable)
        ttype = self.target(stmt.identifier)
        if itype == STR:
            elem: ValueType = STR
        elif isinstance(itype, ListValueType):
            elem = itype.element_type
        else:
            self.err(stmt.iterable, f"Cannot iterate over value of type `{itype}`")
            elem = OBJECT
        if ttype is not None and elem is not OBJECT and not self.classes.is_assignable(elem, ttype):
            self.err(stmt, f"Expected type `{ttype}`; got type `{elem}`")
        for s in stmt.body:
            self.stmt(s)

    def return_stmt(self, stmt: n.ReturnStmt) -> None:
        """Type-check `return [value]` against the enclosing function's return type."""
        if self.return_type is None:
            self.err(stmt, "Return statement cannot appear at the top level")
            return
        if stmt.value is None:
            if not self.classes.is_assignable(NONE, self.return_type):
                self.err(stmt, f"Expected type `{self.return_type}`; got `None`")
            return
        vtype = self.expr(stmt.value)
        if not self.classes.is_assignable(vtype, self.return_type):
            self.err(stmt, f"Expected type `{self.return_type}`; got type `{vtype}`")

    # ------------------------------------------------------------ expressions
    def expr(self, expr: n.Expr) -> ValueType:
        """Infer, record and return the type of `expr`."""
        etype = self._infer(expr)
        expr.inferred_type = etype
        return etype

    def _infer(self, e: n.Expr) -> ValueType:
        kind = type(e)
        if kind is n.IntegerLiteral:
            return INT
        if kind is n.BooleanLiteral:
            return BOOL
        if kind is n.StringLiteral:
            return STR
        if kind is n.NoneLiteral:
            return NONE
        if kind is n.Identifier:
            return self.identifier(e)
        if kind is n.BinaryExpr:
            return self.binary(e)
        if kind is n.UnaryExpr:
            return self.unary(e)
        if kind is n.IfExpr:
            self.condition(e.condition)
            return self.classes.join(self.expr(e.then_expr), self.expr(e.else_expr))
        if kind is n.ListExpr:
            return self.list_display(e)
        if kind is n.IndexExpr:
            return self.index(e)
        if kind is n.MemberExpr:
            return self.member(e)
        if kind is n.CallExpr:
            return self.call(e)
        if kind is n.MethodCallExpr:
            return self.method_call(e)
        raise TypeError(f"unknown expression {e!r}")

    def identifier(self, e: n.Identifier) -> ValueType:
        """The type of a variable reference."""
        entry = self.scope.lookup(e.name)
        if isinstance(entry, VarEntry):
            return entry.type
        self.err(e, f"Not a variable: {e.name}")
        return OBJECT

    def binary(self, e: n.BinaryExpr) -> ValueType:
        """Type a binary operation."""
        op = e.operator
        lt = self.expr(e.left)
        rt = self.expr(e.right)
        if op in ("and", "or"):
            if lt != BOOL or rt != BOOL:
                self._bad_binary(e, lt, rt)
            return BOOL
        if op == "+":
            if lt == INT and rt == INT:
                return INT
            if lt == STR and rt == STR:
                return STR
            if isinstance(lt, ListValueType) and isinstance(rt, ListValueType):
                return ListValueType(self.classes.join(lt.element_type, rt.element_type))
            self._bad_binary(e, lt, rt)
            if lt == INT or (lt == STR and rt == INT):
                return INT
            return OBJECT
        if op in _ARITH:
            if lt != INT or rt != INT:
                self._bad_binary(e, lt, rt)
            return INT
        if op in _ORDER:
            if lt != INT or rt != INT:
                self._bad_binary(e, lt, rt)
            return BOOL
        if op in _EQUALITY:
            if lt != rt or lt not in SPECIAL:
                self._bad_binary(e, lt, rt)
            return BOOL
        # `is`: both operands of non-primitive types
        if lt in SPECIAL or rt in SPECIAL:
            self._bad_binary(e, lt, rt)
        return BOOL

    def _bad_binary(self, e: n.BinaryExpr, lt: ValueType, rt: ValueType) -> None:
        self.err(e, f"Cannot apply operator `{e.operator}` on types `{lt}` and `{rt}`")

    def unary(self, e: n.UnaryExpr) -> ValueType:
        """Type `-x` or `not x`."""
        t = self.expr(e.operand)
        if e.operator == "-":
            if t != INT:
                self.err(e, f"Cannot apply operator `-` on type `{t}`")
            return INT
        if t != BOOL:
            self.err(e, f"Cannot apply operator `not` on type `{t}`")
        return BOOL

    def list_display(self, e: n.ListExpr) -> ValueType:
        """Type a list display: the join of its element types, or `<Empty>`."""
        if not e.elements:
            return EMPTY
        elem = self.expr(e.elements[0])
        for el in e.elements[1:]:
            elem = self.classes.join(elem, self.expr(el))
        return ListValueType(elem)

    def index(self, e: n.IndexExpr) -> ValueType:
        """Type `list[index]` or `str[index]`."""
        lt = self.expr(e.list)
        it = self.expr(e.index)
        if isinstance(lt, ListValueType):
            result = lt.element_type
        elif lt == STR:
            result = STR
        else:
            self.err(e, f"Cannot index into type `{lt}`")
            return OBJECT
        if it != INT:
            self.err(e, f"Index is of non-integer type `{it}`")
        return result

    def member(self, e: n.MemberExpr) -> ValueType:
        """Type an attribute access."""
        ot = self.expr(e.object)
        info = self.classes.classes.get(ot.class_name) if isinstance(ot, ClassValueType) else None
        if info is not None:
            atype = info.attrs.get(e.member.name)
            if atype is not None:
                return atype
        self.err(e, f"There is no attribute named `{e.member.name}` in class `{ot}`")
        return OBJECT

    def _args(self, node: n.Expr, params: list[ValueType], args: list[n.Expr], first: int) -> None:
        arg_types = [self.expr(a) for a in args]
        if len(params) != len(arg_types):
            self.err(node, f"Expected {len(params)} arguments; got {len(arg_types)}")
            return
        for i, (p, a) in enumerate(zip(params, arg_types, strict=True)):
            if not self.classes.is_assignable(a, p):
                self.err(node, f"Expected type `{p}`; got type `{a}` in parameter {i + first}")
                return

    def call(self, e: n.CallExpr) -> ValueType:
        """Type a function call or an object construction."""
        name = e.function.name
        entry = self.scope.lookup(name)
        if isinstance(entry, ClassEntry):
            init = entry.info.methods["__init__"]
            self._args(e, init.parameters[1:], e.args, 1)
            return entry.info.type
        if isinstance(entry, FuncEntry):
            e.function.inferred_type = entry.type
            self._args(e, entry.type.parameters, e.args, 0)
            return entry.type.return_type
        for a in e.args:
            self.expr(a)
        self.err(e, f"Not a function or class: {name}")
        return OBJECT

    def method_call(self, e: n.MethodCallExpr) -> ValueType:
        """Type a method call `obj.m(args)`."""
        member = e.method
        ot = self.expr(member.object)
        info = self.classes.classes.get(ot.class_name) if isinstance(ot, ClassValueType) else None
        mtype: FuncType | None = info.methods.get(member.member.name) if info is not None else None
        if mtype is None:
            for a in e.args:
                self.expr(a)
            self.err(e, f"There is no method named `{member.member.name}` in class `{ot}`")
            return OBJECT
        member.inferred_type = mtype
        self._args(e, mtype.parameters[1:], e.args, 1)
        return mtype.return_type


def _returns(stmts: list[n.Stmt]) -> bool:
    for s in stmts:
        if isinstance(s, n.ReturnStmt):
            return True
        if isinstance(s, n.IfStmt) and _returns(s.then_body) and _returns(s.else_body):
            return True
    return False
