"""jmespath (a pure-Python JSON query language from PyPI: lexer, parser, interpreter) as a target."""
