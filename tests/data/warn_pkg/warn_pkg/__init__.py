"""A package whose function warns as a deprecated API does: mutants of the warning change nothing but the warning."""
