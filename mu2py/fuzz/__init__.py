"""The Mu2 fuzzing loop and parallel campaigns of it."""

import sys

from mu2py import JobPackage

sys.modules[__name__].__class__ = JobPackage  # `mu2py.fuzz(...)` runs the job (mu2py.api.fuzz), as the other jobs do
