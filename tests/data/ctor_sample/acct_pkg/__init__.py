"""A sample package whose class constructor holds most of its mutants (see test_constructor.py)."""
