"""Shapes built from a spec dict: random dicts almost never have the keys that make `area` do anything."""


class Shape:
    """A shape from its spec, a dict such as {"kind": "rect", "w": 2, "h": 3}; `scale` multiplies its area."""

    def __init__(self, spec=None, scale=1):
        self.spec = spec or {}
        self.scale = scale

    def area(self):
        kind = self.spec.get("kind")
        if kind == "rect":
            return self.spec["w"] * self.spec["h"] * self.scale
        if kind == "circle":
            r = self.spec["r"]
            if r < 0:
                raise ValueError("negative radius")
            return 3 * r * r * self.scale
        return 0
