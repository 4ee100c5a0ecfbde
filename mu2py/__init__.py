"""mu2py: mutation-analysis-guided fuzzing (Mu2) for Python."""

from mu2py.driver import Driver, driver
from mu2py.signatures import strategy_for

__all__ = ["Driver", "driver", "strategy_for"]
__version__ = "0.1.0"
