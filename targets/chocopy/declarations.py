"""ChocoPy declaration analysis: scopes, classes, signatures and their semantic errors."""

from __future__ import annotations

from targets.chocopy import nodes as n
from targets.chocopy.scopes import (
    ClassEntry,
    ClassInfo,
    ClassTable,
    FuncEntry,
    Scope,
    VarEntry,
)
from targets.chocopy.types import (
    BOOL,
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


class ErrorSink:
    """Collects semantic errors; a node carries at most one (the first) error."""

    def __init__(self) -> None:
        self.errors: list[n.CompilerError] = []

    def error(self, node: n.Node, message: str) -> None:
        """Report `message` at `node` unless the node already has an error."""
        if node.error_msg is None:
            node.error_msg = message
            self.errors.append(n.CompilerError(list(node.location), message))


class Declarations:
    """Result of declaration analysis: the class table, global scope and function scopes."""

    def __init__(self, sink: ErrorSink) -> None:
        self.sink = sink
        self.classes = ClassTable()
        self.globals = Scope(None)
        self.func_scopes: dict[int, Scope] = {}
        self.class_names: set[str] = set()
        for name, info in self.classes.classes.items():
            self.globals.names[name] = ClassEntry(info)
        self.globals.names["print"] = FuncEntry(FuncType([OBJECT], NONE))
        self.globals.names["len"] = FuncEntry(FuncType([OBJECT], INT))
        self.globals.names["input"] = FuncEntry(FuncType([], STR))

    # ------------------------------------------------------------ annotations
    def annotation(self, ann: n.TypeAnnotation) -> ValueType:
        """Resolve a type annotation, reporting unknown class names."""
        if isinstance(ann, n.ListType):
            return ListValueType(self.annotation(ann.element_type))
        assert isinstance(ann, n.ClassType)
        name = ann.class_name
        if name == "<None>":
            return NONE
        if name not in self.class_names:
            self.sink.error(ann, f"Invalid type annotation; there is no class named: {name}")
            return OBJECT
        return ClassValueType(name)

    def signature(self, fd: n.FuncDef) -> FuncType:
        """Resolve the parameter and return annotations of a function."""
        params = [self.annotation(p.type) for p in fd.params]
        return FuncType(params, self.annotation(fd.return_type))

    # ------------------------------------------------------------ program
    def analyze(self, program: n.Program) -> None:
        """Analyze all declarations of `program`."""
        self.class_names = set(self.classes.classes) | {
            d.name.name for d in program.declarations if isinstance(d, n.ClassDef)
        }
        scope = self.globals
        for decl in program.declarations:
            ident = decl.get_identifier()
            name = ident.name
            if isinstance(decl, n.VarDef):
                vtype = self.annotation(decl.var.type)
                if name in scope.names:
                    self._duplicate(ident)
                else:
                    scope.names[name] = VarEntry(vtype)
            elif isinstance(decl, n.FuncDef):
                entry = FuncEntry(self.signature(decl))
                if name in scope.names:
                    self._duplicate(ident)
                else:
                    scope.names[name] = entry
            elif isinstance(decl, n.ClassDef):
                duplicate = name in scope.names
                if duplicate:
                    self._duplicate(ident)
                info = self._class(decl)
                if not duplicate:
                    scope.names[name] = ClassEntry(info)
                    self.classes.classes[name] = info
        for decl in program.declarations:
            if isinstance(decl, n.FuncDef):
                self._function_body(decl, scope)
            elif isinstance(decl, n.ClassDef):
                for member in decl.declarations:
                    if isinstance(member, n.FuncDef):
                        self._function_body(member, scope)

    def _duplicate(self, ident: n.Identifier) -> None:
        self.sink.error(ident, f"Duplicate declaration of identifier in same scope: {ident.name}")

    # ------------------------------------------------------------ classes
    def _class(self, cd: n.ClassDef) -> ClassInfo:
        sup_name = cd.super_class.name
        sup_entry = self.globals.names.get(sup_name)
        super_info = self.classes.classes["object"]
        if sup_entry is None:
            self.sink.error(cd.super_class, f"Super-class not defined: {sup_name}")
        elif not isinstance(sup_entry, ClassEntry):
            self.sink.error(cd.super_class, f"Super-class must be a class: {sup_name}")
        elif ClassValueType(sup_name) in SPECIAL:
            self.sink.error(cd.super_class, f"Cannot extend special class: {sup_name}")
        else:
            super_info = sup_entry.info
        info = ClassInfo(cd.name.name, super_info)
        seen: set[str] = set()
        for member in cd.declarations:
            ident = member.get_identifier()
            name = ident.name
            if isinstance(member, n.VarDef):
                vtype = self.annotation(member.var.type)
                if name in seen:
                    self._duplicate(ident)
                elif name in info.attrs or name in info.methods:
                    self.sink.error(ident, f"Cannot re-define attribute: {name}")
                else:
                    info.attrs[name] = vtype
                seen.add(name)
            elif isinstance(member, n.FuncDef):
                ftype = self.signature(member)
                params = member.params
                if not params or not (
                    isinstance(params[0].type, n.ClassType) and params[0].type.class_name == info.name
                ):
                    msg = "First parameter of the following method must be of the enclosing class"
                    self.sink.error(ident, f"{msg}: {name}")
                if name in seen:
                    self._duplicate(ident)
                elif name in info.attrs:
                    self.sink.error(ident, f"Cannot re-define attribute: {name}")
                else:
                    old = info.methods.get(name)
                    if old is not None and not _same_override(old, ftype):
                        self.sink.error(ident, f"Method overridden with different type signature: {name}")
                    info.methods[name] = ftype
                seen.add(name)
        return info

    # ------------------------------------------------------------ functions
    def _function_body(self, fd: n.FuncDef, outer: Scope) -> None:
        scope = Scope(outer)
        self.func_scopes[id(fd)] = scope
        for param in fd.params:
            self._local(param.identifier, VarEntry(self.annotation_quiet(param.type)), scope)
        nested: list[n.FuncDef] = []
        for decl in fd.declarations:
            ident = decl.get_identifier()
            name = ident.name
            if isinstance(decl, n.VarDef):
                self._local(ident, VarEntry(self.annotation(decl.var.type)), scope)
            elif isinstance(decl, n.NonLocalDecl):
                entry = self._find_nonlocal(name, outer)
                if name in scope.names:
                    self._duplicate(ident)
                elif entry is None:
                    self.sink.error(ident, f"Not a nonlocal variable: {name}")
                else:
                    scope.names[name] = entry
            elif isinstance(decl, n.GlobalDecl):
                entry = self.globals.names.get(name)
                if name in scope.names:
                    self._duplicate(ident)
                elif not isinstance(entry, VarEntry):
                    self.sink.error(ident, f"Not a global variable: {name}")
                else:
                    scope.names[name] = entry
            elif isinstance(decl, n.FuncDef):
                self._local(ident, FuncEntry(self.signature(decl)), scope)
                nested.append(decl)
        for decl in nested:
            self._function_body(decl, scope)

    def annotation_quiet(self, ann: n.TypeAnnotation) -> ValueType:
        """Resolve an annotation already checked (parameter types are checked with the signature)."""
        if isinstance(ann, n.ListType):
            return ListValueType(self.annotation_quiet(ann.element_type))
        assert isinstance(ann, n.ClassType)
        if ann.class_name == "<None>":
            return NONE
        if ann.class_name not in self.class_names:
            return OBJECT
        return ClassValueType(ann.class_name)

    def _local(self, ident: n.Identifier, entry: VarEntry | FuncEntry, scope: Scope) -> None:
        name = ident.name
        if name in self.class_names:
            self.sink.error(ident, f"Cannot shadow class name: {name}")
        elif name in scope.names:
            self._duplicate(ident)
        else:
            scope.names[name] = entry

    @staticmethod
    def _find_nonlocal(name: str, outer: Scope) -> VarEntry | None:
        scope: Scope | None = outer
        while scope is not None and not scope.is_global:
            entry = scope.names.get(name)
            if entry is not None:
                return entry if isinstance(entry, VarEntry) else None
            scope = scope.parent
        return None


def _same_override(old: FuncType, new: FuncType) -> bool:
    return (
        len(old.parameters) == len(new.parameters)
        and old.parameters[1:] == new.parameters[1:]
        and old.return_type == new.return_type
    )


__all__ = ["BOOL", "Declarations", "ErrorSink"]
