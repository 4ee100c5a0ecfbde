"""mu2py: mutation-analysis-guided fuzzing (Mu2) for Python."""

from mu2py.driver import Driver, driver

__all__ = ["Driver", "driver"]
__version__ = "0.1.0"
