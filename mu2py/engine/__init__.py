"""The one mutant engine: applying mutants to importlib copies, running them, and supervising the process that does."""
