"""A package whose only tests are unittest subtests (tests/mu2py/score/test_subtests.py)."""
