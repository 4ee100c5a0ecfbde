"""Insertion sort, the running example of the Mu2 paper."""
