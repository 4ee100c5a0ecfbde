"""`mu2py props`: score and strengthen a project's Hypothesis `@given` tests under mutation guidance."""

import sys

from mu2py import JobPackage

sys.modules[__name__].__class__ = JobPackage  # `mu2py.props(...)` runs the job (mu2py.api.props), as the other jobs do
