"""Classes whose attributes only the standard library reads (tests/mu2py/score/test_foreign_readers.py)."""
