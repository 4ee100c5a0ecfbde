"""A package whose suite, like humanize's, cannot run each test twice in one process."""

from rerun_pkg.words import activate, deactivate, describe, join_words

__all__ = ["activate", "deactivate", "describe", "join_words"]
