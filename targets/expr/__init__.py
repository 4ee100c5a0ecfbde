"""The standard library's `fractions` (exact arithmetic) and `tokenize` evaluating grammars/expr.lark programs."""
