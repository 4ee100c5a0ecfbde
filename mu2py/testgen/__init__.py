"""Tests for a package's functions: signatures, drivers for functions, pytest files written and checked."""
