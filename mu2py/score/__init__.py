"""`mu2py score`: the mutation score of an existing pytest suite, with execution and infection pruning."""

import sys

from mu2py import JobPackage

sys.modules[__name__].__class__ = JobPackage  # `mu2py.score(...)` runs the job (mu2py.api.score), as the other jobs do
