"""Code whose tests and mutants start processes and leave them running (`tests/mu2py/score/test_strays.py`)."""
