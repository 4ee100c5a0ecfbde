"""The Mu2 fuzzing loop and parallel campaigns of it."""
