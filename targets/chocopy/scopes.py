"""Symbol tables for ChocoPy semantic analysis: class infos, scopes and the type relations."""

from __future__ import annotations

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


class ClassInfo:
    """A class: its super class, attributes and methods (inherited ones included)."""

    __slots__ = ("name", "super_class", "attrs", "methods", "type")

    def __init__(self, name: str, super_class: ClassInfo | None) -> None:
        self.name = name
        self.super_class = super_class
        self.type = ClassValueType(name)
        self.attrs: dict[str, ValueType] = dict(super_class.attrs) if super_class else {}
        self.methods: dict[str, FuncType] = dict(super_class.methods) if super_class else {}


class VarEntry:
    """A variable binding."""

    __slots__ = ("type",)

    def __init__(self, type_: ValueType) -> None:
        self.type = type_


class FuncEntry:
    """A function binding."""

    __slots__ = ("type", "scope")

    def __init__(self, type_: FuncType) -> None:
        self.type = type_
        self.scope: Scope | None = None


class ClassEntry:
    """A class binding."""

    __slots__ = ("info",)

    def __init__(self, info: ClassInfo) -> None:
        self.info = info


Entry = VarEntry | FuncEntry | ClassEntry


class Scope:
    """A global or function scope; global/nonlocal declarations bind to the outer entries."""

    __slots__ = ("parent", "names", "is_global")

    def __init__(self, parent: Scope | None) -> None:
        self.parent = parent
        self.names: dict[str, Entry] = {}
        self.is_global = parent is None

    def lookup(self, name: str) -> Entry | None:
        """Find `name` here or in an enclosing scope."""
        scope: Scope | None = self
        while scope is not None:
            entry = scope.names.get(name)
            if entry is not None:
                return entry
            scope = scope.parent
        return None

    def global_scope(self) -> Scope:
        """The outermost scope."""
        scope = self
        while scope.parent is not None:
            scope = scope.parent
        return scope


class ClassTable:
    """All classes of a program, with subtyping, assignability and join."""

    def __init__(self) -> None:
        obj = ClassInfo("object", None)
        obj.methods["__init__"] = FuncType([OBJECT], NONE)
        self.classes: dict[str, ClassInfo] = {"object": obj}
        for special in SPECIAL:
            info = ClassInfo(special.class_name, obj)
            self.classes[special.class_name] = info

    def is_subclass(self, sub: str, sup: str) -> bool:
        """True if class `sub` is `sup` or inherits from it."""
        info = self.classes.get(sub)
        while info is not None:
            if info.name == sup:
                return True
            info = info.super_class
        return False

    def is_subtype(self, a: ValueType, b: ValueType) -> bool:
        """Subtyping: the class hierarchy, with every type below `object`."""
        if a == b or b == OBJECT:
            return True
        if isinstance(a, ClassValueType) and isinstance(b, ClassValueType):
            return self.is_subclass(a.class_name, b.class_name)
        return False

    def is_assignable(self, a: ValueType, b: ValueType) -> bool:
        """Assignment compatibility a <=_a b of the ChocoPy typing rules."""
        if self.is_subtype(a, b):
            return True
        if a == NONE:
            return b not in SPECIAL
        if isinstance(b, ListValueType):
            if a == EMPTY:
                return True
            if isinstance(a, ListValueType) and a.element_type == NONE:
                return self.is_assignable(NONE, b.element_type)
        return False

    def join(self, a: ValueType, b: ValueType) -> ValueType:
        """Least upper bound of two types."""
        if self.is_assignable(a, b):
            return b
        if self.is_assignable(b, a):
            return a
        if isinstance(a, ClassValueType) and isinstance(b, ClassValueType):
            ancestors = []
            info = self.classes.get(a.class_name)
            while info is not None:
                ancestors.append(info.name)
                info = info.super_class
            info = self.classes.get(b.class_name)
            while info is not None:
                if info.name in ancestors:
                    return info.type
                info = info.super_class
        return OBJECT


__all__ = [
    "BOOL",
    "EMPTY",
    "INT",
    "NONE",
    "OBJECT",
    "STR",
    "ClassEntry",
    "ClassInfo",
    "ClassTable",
    "Entry",
    "FuncEntry",
    "Scope",
    "VarEntry",
]
