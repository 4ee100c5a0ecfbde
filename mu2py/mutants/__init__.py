"""Mutants of Python modules: discovery (operators), in-process loading (loader) and probes."""
