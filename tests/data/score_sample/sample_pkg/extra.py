"""A second module, to show that an edit re-runs only the mutants of the edited module."""


def double(x):
    return x * 2
