"""Functions whose mutants misbehave the ways a mutant can: hang in C, exit, segfault, exhaust memory, move cwd."""
