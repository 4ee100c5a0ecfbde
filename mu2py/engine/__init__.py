"""The one mutant engine: applying mutants to importlib copies, running them under the oracle, and the supervised
host process that does it."""
