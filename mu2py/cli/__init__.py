"""The `mu2py` command line: one parser, exit codes, progress, a module per command."""
