"""What is kept on disk: atomic writes and the corpus."""
