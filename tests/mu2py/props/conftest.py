"""The props tests run as on a developer's machine, even under CI.

Hypothesis loads its "ci" profile (no example database, derandomized) when a CI variable such
as `CI` is set; `props` would then rightly save nothing, and the replay tests need the
database.  The CI variables are removed for these tests (workers are spawned and read the
environment afresh) and the default profile is loaded here, then both are put back.
"""

from collections.abc import Iterator

import pytest
from hypothesis import settings
from hypothesis._settings import _CI_VARS


@pytest.fixture(scope="module", autouse=True)
def not_in_ci() -> Iterator[None]:
    """No CI variable in the environment and Hypothesis's default profile, for one test module."""
    profile = settings._current_profile
    with pytest.MonkeyPatch.context() as patch:
        for name in _CI_VARS:
            patch.delenv(name, raising=False)
        settings.load_profile("default")
        try:
            yield
        finally:
            settings.load_profile(profile or "default")
