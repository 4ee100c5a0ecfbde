"""mu2py: mutation-analysis-guided fuzzing (Mu2) for Python."""

from __future__ import annotations

from typing import Any

from mu2py.target.driver import Driver, driver

__all__ = ["Driver", "driver", "strategy_for"]
__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    """`strategy_for` on first use: it imports Hypothesis, which `score` workers (every process) need not pay for."""
    if name == "strategy_for":
        from mu2py.testgen.overrides import strategy_for

        return strategy_for
    raise AttributeError(f"module 'mu2py' has no attribute {name!r}")
