"""The standard library's pure-Python tokenizer (`tokenize`) on the indentation language of grammars/indent.lark."""
