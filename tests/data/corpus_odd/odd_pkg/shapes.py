"""A class whose methods are the API: instance, class and static methods."""

from __future__ import annotations


class Rect:
    """A rectangle with non-negative integer sides."""

    def __init__(self, width: int, height: int = 1) -> None:
        if width < 0 or height < 0:
            raise ValueError("a side is negative")
        self.width = width
        self.height = height

    def area(self) -> int:
        """Width times height."""
        return self.width * self.height

    def scaled(self, factor: int) -> Rect:
        """A rectangle `factor` times as wide and as high."""
        return Rect(self.width * factor, self.height * factor)

    @classmethod
    def square(cls, side: int) -> Rect:
        """A square."""
        return cls(side, side)

    @staticmethod
    def fits(width: int, height: int, limit: int) -> bool:
        """Whether both sides are at most `limit`."""
        return width <= limit and height <= limit
