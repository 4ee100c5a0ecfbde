"""A second module, to show that an edit re-runs only the mutants of the edited module."""


def double(x):
    return x * 2

SCALE = 3  # read by no test: its mutants survive, and are proved so without a fresh interpreter


def scaled(x):
    return x * SCALE
