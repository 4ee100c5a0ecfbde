"""ChocoPy front end: parser (grammars/chocopy.lark) and semantic analysis / type checker."""
