"""An optional part the package imports if it can: a mutant that makes its body raise is caught by the importer."""

WIDTH = int("8")
