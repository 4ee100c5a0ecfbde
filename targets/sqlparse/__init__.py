"""sqlparse (a pure-Python SQL parser from PyPI, `pip install '.[bench]'`) as a target."""
