"""What runs tell the fuzzing loop: coverage reached, mutants killed, and how to share time between them."""
