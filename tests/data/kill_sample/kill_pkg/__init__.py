"""A small package whose suite runs its functions without checking much (for `mu2py kill`)."""
