"""`mu2py score`: the mutation score of an existing pytest suite, with execution and infection pruning."""
