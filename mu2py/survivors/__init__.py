"""`mu2py kill`: a mutation score's survivors turned into pytest tests that kill them (score, seeds, aim, write,
verify, re-score)."""

# here, not in `kill`, so that the command line states it without importing the workflow (libcst, pytest)
DEFAULT_TIME = "60s"
