"""State hazards for `score`, and an optional part imported if it can be."""

try:
    from statepkg import optional
except ValueError:  # pragma: no mutate
    optional = None  # pragma: no mutate
