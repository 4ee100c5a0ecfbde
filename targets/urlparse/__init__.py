"""urllib.parse as a fuzzing target."""
