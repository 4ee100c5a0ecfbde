"""tinycss2 (a pure-Python CSS tokenizer and parser from PyPI) as a target."""
