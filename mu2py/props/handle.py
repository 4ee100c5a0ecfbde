"""One collected `@given` test driven by byte buffers: runs, observations, database key and `@example` lines.

Everything goes through Hypothesis's `fuzz_one_input` (public) and its observability
callbacks (public: the targets and events of a run, and the call's representation).  Two
private attributes are touched, each because no public one exists: the test's settings
(`_hypothesis_internal_use_settings`), replaced while a fuzz target is built so that the
target writes to a database of our choosing (none while fuzzing; a capturing one when a
killing input is to be saved), and `HypothesisHandle._get_fuzz_target`, which builds a
fresh target (the cached one remembers failures by origin and would not save a second one).

Invariant: fuzzing never writes to the project's example database; only `save` does, under
the key Hypothesis itself used for the failure (its `.secondary` suffix removed: the key
plain `pytest` replays first).
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import settings as Settings
from hypothesis.database import ExampleDatabase
from hypothesis.internal.observability import add_observability_callback, remove_observability_callback

from mu2py.engine.runs import RunResult, run

SECONDARY = b".secondary"


class CaptureDatabase(ExampleDatabase):
    """An example database that only remembers what was saved to it (key, value pairs)."""

    def __init__(self) -> None:
        super().__init__()
        self.saved: list[tuple[bytes, bytes]] = []

    def save(self, key: bytes, value: bytes) -> None:
        """Remember one saved value."""
        self.saved.append((key, value))

    def fetch(self, key: bytes) -> Any:
        """Nothing is ever replayed from here."""
        return iter(())

    def delete(self, key: bytes, value: bytes) -> None:
        """Nothing to delete."""

    def move(self, src: bytes, dest: bytes, value: bytes) -> None:
        """Nothing to move."""


@dataclass
class Observation:
    """What one run showed beyond pass or fail: target scores, event labels, the call's representation."""

    targets: dict[str, float] = field(default_factory=dict)
    events: set[str] = field(default_factory=set)
    representation: str = ""


def why_not_fuzzable(obj: Any) -> str | None:
    """None when `obj` (a collected test's function) can be driven by `fuzz_one_input`; else why not."""
    handle = getattr(obj, "hypothesis", None)
    # looked up on the class: reading the attribute would build (and cache) a fuzz target on the real database
    if handle is None or not hasattr(type(handle), "fuzz_one_input"):
        return "not a @given test"
    if inspect.ismethod(obj):
        return "a method (fuzz_one_input calls the test without its instance)"
    if getattr(obj, "_hypothesis_internal_use_settings", None) is None:
        return "no Hypothesis settings"
    params = [p for p in inspect.signature(obj).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if params:
        return f"needs pytest fixtures ({', '.join(p.name for p in params)})"
    return None


class PropertyHandle:
    """A collected `@given` test (see the module docstring); `item` is its pytest item."""

    def __init__(self, item: Any) -> None:
        self.item = item
        self.fn = item.obj
        self.settings = self.fn._hypothesis_internal_use_settings
        if getattr(item, "callspec", None) is not None:
            # as Hypothesis's pytest plugin does: each parametrized case has a database key of its own
            self.fn.hypothesis.inner_test._hypothesis_internal_add_digest = item.nodeid.encode()
        self.target = self._fuzz_target(None)
        self.observation = Observation()

    def _fuzz_target(self, database: ExampleDatabase | None) -> Callable[[bytes], bytes | None]:
        fn = self.fn
        saved = fn._hypothesis_internal_use_settings
        fn._hypothesis_internal_use_settings = Settings(parent=saved, database=database)
        try:
            return fn.hypothesis._get_fuzz_target()  # type: ignore[no-any-return]
        finally:
            fn._hypothesis_internal_use_settings = saved

    @property
    def database(self) -> ExampleDatabase | None:
        """The project's example database for this test (None when the test turns it off)."""
        return self.settings.database  # type: ignore[no-any-return]

    def _observe(self, observation: Any) -> None:
        if getattr(observation, "type", None) != "test_case":
            return
        obs = self.observation
        obs.representation = observation.representation
        for key, value in observation.features.items():
            if key.startswith("target:") or key == "target":
                if isinstance(value, (int, float)):
                    obs.targets[key] = float(value)
            elif key != "invalid because":
                obs.events.add(f"{key}:{value}" if value else key)

    def run(self, buffer: bytes, timeout: float | None, observe: bool = False) -> RunResult:
        """The test on `buffer`: OK with the buffer it used (None: invalid input), EXCEPTION, or TIMEOUT."""
        if not observe:
            return run(self.target, buffer, timeout)
        self.observation = Observation()
        add_observability_callback(self._observe)
        try:
            return run(self.target, buffer, timeout)
        finally:
            remove_observability_callback(self._observe)

    def failing_choices(self, buffer: bytes, timeout: float | None) -> tuple[bytes, bytes] | None:
        """(database key, serialized choices) Hypothesis saves for `buffer` on the code now live, if it fails."""
        capture = CaptureDatabase()
        target = self._fuzz_target(capture)
        result = run(target, buffer, timeout)
        if result.status == 0 or not capture.saved:
            return None
        key, value = capture.saved[-1]
        return (key[: -len(SECONDARY)] if key.endswith(SECONDARY) else key), value

    def example_line(self, representation: str) -> str | None:
        """`@example(...)` for a call's representation, when every argument evaluates back in the test's module."""
        text = representation.strip()
        try:
            call = ast.parse(text, mode="eval").body
        except SyntaxError:
            return None
        if not isinstance(call, ast.Call) or call.args:
            return None
        namespace = dict(vars(inspect.getmodule(self.fn) or object()))
        parts = []
        for keyword in call.keywords:
            # Hypothesis's own text of the argument (underscores in numbers kept) when it fits on one line
            arg = ast.get_source_segment(text, keyword.value) or ""
            if not arg or "\n" in arg:
                arg = ast.unparse(keyword.value)
            try:
                eval(compile(arg, "<example>", "eval"), dict(namespace))  # noqa: S307 - a repr Hypothesis printed
            except Exception:  # noqa: BLE001 - any failure means the repr does not evaluate back
                return None
            parts.append(f"{keyword.arg}={arg}")
        return f"@example({', '.join(parts)})"
