"""ChocoPy value types (ClassValueType, ListValueType, FuncType) and their JSON form."""

from __future__ import annotations

from typing import Any


class ValueType:
    """A type of a value."""

    __slots__ = ()

    def is_list(self) -> bool:
        """True for list types."""
        return False

    def to_json(self) -> dict[str, Any]:
        """Return the reference compiler's JSON form."""
        raise NotImplementedError


class ClassValueType(ValueType):
    """A class type, including the special `<None>` and `<Empty>` types."""

    __slots__ = ("class_name", "_json")

    def __init__(self, class_name: str) -> None:
        self.class_name = class_name
        self._json = {"kind": "ClassValueType", "className": class_name}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ClassValueType) and other.class_name == self.class_name

    def __hash__(self) -> int:
        return hash(self.class_name)

    def __str__(self) -> str:
        return self.class_name

    __repr__ = __str__

    def to_json(self) -> dict[str, Any]:
        """Return the reference compiler's JSON form."""
        return dict(self._json)


class ListValueType(ValueType):
    """A list type `[T]`."""

    __slots__ = ("element_type",)

    def __init__(self, element_type: ValueType) -> None:
        self.element_type = element_type

    def is_list(self) -> bool:
        """True for list types."""
        return True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ListValueType) and other.element_type == self.element_type

    def __hash__(self) -> int:
        return hash(("list", self.element_type))

    def __str__(self) -> str:
        return f"[{self.element_type}]"

    __repr__ = __str__

    def to_json(self) -> dict[str, Any]:
        """Return the reference compiler's JSON form."""
        return {"kind": "ListValueType", "elementType": self.element_type.to_json()}


class FuncType:
    """A function or method signature."""

    __slots__ = ("parameters", "return_type")

    def __init__(self, parameters: list[ValueType], return_type: ValueType) -> None:
        self.parameters = parameters
        self.return_type = return_type

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, FuncType)
            and other.parameters == self.parameters
            and other.return_type == self.return_type
        )

    def __hash__(self) -> int:
        return hash((tuple(self.parameters), self.return_type))

    def __str__(self) -> str:
        return f"({', '.join(map(str, self.parameters))}) -> {self.return_type}"

    def to_json(self) -> dict[str, Any]:
        """Return the reference compiler's JSON form."""
        return {
            "kind": "FuncType",
            "parameters": [p.to_json() for p in self.parameters],
            "returnType": self.return_type.to_json(),
        }


OBJECT = ClassValueType("object")
INT = ClassValueType("int")
BOOL = ClassValueType("bool")
STR = ClassValueType("str")
NONE = ClassValueType("<None>")
EMPTY = ClassValueType("<Empty>")
SPECIAL = (INT, BOOL, STR)
