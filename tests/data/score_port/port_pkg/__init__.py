"""A package whose test binds a fixed port, as a server's test does (tests/mu2py/score/test_ports.py)."""
