"""A small package with a pytest suite, for scoring tests."""
