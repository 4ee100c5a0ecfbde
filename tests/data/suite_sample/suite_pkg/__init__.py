"""A package whose class is built from a spec only its own suite knows the shape of."""
