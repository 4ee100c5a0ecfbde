"""A package with the shapes `mu2py corpus` once failed on (see tests/mu2py/test_corpus_odd.py).

Like python-slugify, it re-exports a function under its own submodule's name, so that
`odd_pkg.words` is the function, not the module.
"""

from odd_pkg.words import words

__all__ = ["words"]
