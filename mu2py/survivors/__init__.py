"""`mu2py kill`: a mutation score's survivors turned into pytest tests that kill them (score, seeds, aim, write,
verify, re-score)."""
