"""`mu2py props`: score and strengthen a project's Hypothesis `@given` tests under mutation guidance."""
