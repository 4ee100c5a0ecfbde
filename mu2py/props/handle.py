"""One collected `@given` test driven by fuzzed inputs: runs, observations, database key and `@example` lines.

An input is a Hypothesis choice sequence (ints, floats, strings, bytes, booleans) when the
test's fuzz target exposes the state it runs (`choices` mode), else a `fuzz_one_input`
byte buffer (`bytes` mode, public interfaces only).

- `choices`: the prefix is replayed and Hypothesis's own provider (seeded, as `mu2py fuzz`
  decodes) draws past it, through the execution state `fuzz_one_input` closes over.  Fresh
  inputs are then exactly Hypothesis's own generation (small integers, boundary values, its
  constants) and havoc edits typed choices.  `fuzz_one_input` maps bytes to choices uniformly
  instead (an unbounded integer is 128 random bits): on dateutil's `test_timespec_auto`, 20 s
  of fuzzing alone killed 300 mutants on bytes and 314 on choices.
- `bytes`: Hypothesis's `fuzz_one_input` (public) and its observability callbacks (the
  targets and events of a run, and the call's representation).

Two private attributes are touched, each because no public one exists: the test's settings
(`_hypothesis_internal_use_settings`), replaced while a fuzz target is built so that the
target writes to a database of our choosing (none while fuzzing; a capturing one when a
killing input is to be saved), and `HypothesisHandle._get_fuzz_target`, which builds a
fresh target (the cached one remembers failures by origin and would not save a second one).
`choices` mode also reads the target's closure (`state`, `database_key`); when Hypothesis
names them otherwise, the handle falls back to `bytes` mode.  A test method's `self` and a
parametrized test's arguments are given to Hypothesis as defaults while the target is built
(it binds no argument) and added to each run's arguments (`choices` mode only).

Invariant: fuzzing never writes to the project's example database; only `save` does, under
the key Hypothesis itself used for the failure (its `.secondary` suffix removed: the key
plain `pytest` replays first).
"""

from __future__ import annotations

import ast
import copy
import inspect
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hypothesis import settings as Settings
from hypothesis.database import ExampleDatabase, choices_to_bytes
from hypothesis.errors import UnsatisfiedAssumption
from hypothesis.internal.conjecture.data import ConjectureData, Status, StopTest
from hypothesis.internal.observability import add_observability_callback, remove_observability_callback

from mu2py.engine.runs import RunResult, run
from mu2py.inputs.choices import mutate_choice
from mu2py.inputs.generators import SeededProvider
from mu2py.inputs.mutator import havoc
from mu2py.props.buffers import child, random_buffer

SECONDARY = b".secondary"
MAX_CHOICES = 10_000  # as `mu2py fuzz` decodes strategies: a bound on one input's size

Input = bytes | tuple[Any, ...]  # a byte buffer (`bytes` mode) or a choice sequence (`choices` mode)


@dataclass
class GivenState:
    """What `fuzz_one_input` closes over: the state that runs the test once, and the database key."""

    state: Any
    key: bytes  # the primary key (`.secondary` removed): the one plain `pytest` replays first


def given_state(target: Callable[..., Any]) -> GivenState | None:
    """The execution state and database key of a fuzz target (None when Hypothesis names them otherwise)."""
    code, closure = getattr(target, "__code__", None), getattr(target, "__closure__", None)
    if code is None or not closure:
        return None
    try:
        cells = {name: cell.cell_contents for name, cell in zip(code.co_freevars, closure, strict=True)}
    except ValueError:  # an empty cell
        return None
    state, key = cells.get("state"), cells.get("database_key")
    if not callable(getattr(state, "execute_once", None)) or not isinstance(key, bytes):
        return None
    return GivenState(state, key.removesuffix(SECONDARY))


class _TypedChoices:
    """The per-choice step `mu2py.inputs.mutator.havoc` needs, for Hypothesis choices (as `mu2py fuzz` edits them)."""

    mutate_choice = staticmethod(mutate_choice)


_TYPED = _TypedChoices()


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


def direct_params(item: Any) -> dict[str, Any]:
    """The values `@pytest.mark.parametrize` gives the test's own arguments (not those routed to fixtures)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return {}
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    params = {}
    for name, value in callspec.params.items():
        defs = definitions.get(name)
        # pytest serves a direct parameter through a pseudo fixture of its own; an indirect one feeds a real one
        if not defs or getattr(defs[-1].func, "__name__", "") == "get_direct_param_fixture_func":
            params[name] = value
    return params


def why_not_fuzzable(item: Any) -> str | None:
    """None when a collected test can be fuzzed (a `@given` function or method, its other arguments
    given by `parametrize`); else why not."""
    obj = item.obj
    handle = getattr(obj, "hypothesis", None)
    # looked up on the class: reading the attribute would build (and cache) a fuzz target on the real database
    if handle is None or not hasattr(type(handle), "fuzz_one_input"):
        return "not a @given test"
    if getattr(obj, "_hypothesis_internal_use_settings", None) is None:
        return "no Hypothesis settings"
    given = direct_params(item)
    params = [p for p in inspect.signature(obj).parameters.values()
              if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in given]
    if params:
        return f"needs pytest fixtures ({', '.join(p.name for p in params)})"
    return None


class PropertyHandle:
    """A collected `@given` test (see the module docstring); `item` is its pytest item."""

    def __init__(self, item: Any) -> None:
        self.item = item
        # a test method: the function carries Hypothesis's attributes (a bound method takes no assignment),
        # and its instance is passed as `self`
        self.fn = getattr(item.obj, "__func__", item.obj)
        instance = getattr(item.obj, "__self__", None)
        self.params = {**({"self": instance} if instance is not None else {}), **direct_params(item)}
        self.settings = self.fn._hypothesis_internal_use_settings
        if getattr(item, "callspec", None) is not None:
            # as Hypothesis's pytest plugin does: each parametrized case has a database key of its own
            self.fn.hypothesis.inner_test._hypothesis_internal_add_digest = item.nodeid.encode()
        self.target = self._fuzz_target(None)
        self.given = given_state(self.target)
        self.mode = "choices" if self.given is not None else "bytes"
        if self.params:
            if self.given is None:
                raise RuntimeError("this Hypothesis's fuzz target hides its state: a test method or a "
                                   "parametrized test cannot be fuzzed (fuzz_one_input passes no other argument)")
            self.given = self._bound(self.given)
        self.observation = Observation()
        self._data: ConjectureData | None = None  # the latest choices-mode run's data (for its observation)

    def _bound(self, given: GivenState) -> GivenState:
        """The state with `self` and the `parametrize` values among the arguments Hypothesis adds its draws to."""
        state = copy.copy(given.state)
        stuff = copy.copy(state.stuff)
        stuff.kwargs = {**stuff.kwargs, **self.params}
        state.stuff = stuff
        return GivenState(state, given.key)

    def fresh_input(self, rng: random.Random) -> Input:
        """A new input: an empty prefix (Hypothesis's own generation from the run's seed), or random bytes."""
        return () if self.mode == "choices" else random_buffer(rng)

    def child(self, parent: Input, rng: random.Random, donor: Input | None = None) -> Input:
        """A havoc child of `parent` (spliced with `donor` when given); past its end the input is drawn anew."""
        if self.mode == "bytes":
            assert isinstance(parent, bytes) and (donor is None or isinstance(donor, bytes))
            return child(parent, rng, donor)
        return tuple(havoc(list(parent), _TYPED, rng, list(donor) if donor is not None else None))  # type: ignore[arg-type]  # havoc uses only what InputSource this source has

    def _execute(self, seed: int) -> Callable[[tuple[Any, ...]], tuple[Any, ...] | None]:
        assert self.given is not None
        state = self.given.state

        def once(prefix: tuple[Any, ...]) -> tuple[Any, ...] | None:
            data = ConjectureData(prefix=prefix, random=random.Random(seed), max_choices=MAX_CHOICES,
                                  provider=SeededProvider)
            self._data = data
            try:
                state.execute_once(data)
            except (StopTest, UnsatisfiedAssumption):
                return None
            # execute_once may also mark the data invalid and swallow the control exception
            return tuple(data.choices) if data.status == Status.VALID else None

        return once

    def _observe_data(self) -> None:
        # what fuzz_one_input's observation would carry: targets and events (the call's text: `describe`)
        data, obs = self._data, self.observation
        if data is None:
            return
        for key, value in data.target_observations.items():
            obs.targets[f"target:{key}".strip(":")] = float(value)
        for key, event in data.events.items():
            if key not in ("invalid because", "gave up because"):
                obs.events.add(f"{key}:{event}" if event else key)

    def _fuzz_target(self, database: ExampleDatabase | None) -> Callable[[bytes], bytes | None]:
        fn = self.fn
        saved = fn._hypothesis_internal_use_settings
        fn._hypothesis_internal_use_settings = Settings(parent=saved, database=database)
        signature = fn.__dict__.get("__signature__")
        if self.params:
            # Hypothesis binds no argument when it builds a fuzz target: `self` and the parametrized
            # arguments get their values as defaults meanwhile (`_bound` passes them to each run)
            sig = inspect.signature(fn, follow_wrapped=False)
            params = [p.replace(default=self.params[p.name]) if p.name in self.params else p
                      for p in sig.parameters.values()]
            fn.__signature__ = sig.replace(parameters=params)
        try:
            return fn.hypothesis._get_fuzz_target()
        finally:
            fn._hypothesis_internal_use_settings = saved
            if self.params:
                if signature is None:
                    del fn.__signature__
                else:
                    fn.__signature__ = signature

    @property
    def database(self) -> ExampleDatabase | None:
        """The project's example database for this test (None when the test turns it off)."""
        return self.settings.database

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

    def run(self, inp: Input, timeout: float | None, observe: bool = False, seed: int = 0) -> RunResult:
        """The test on `inp`: OK with the input it used (None: invalid input), EXCEPTION, or TIMEOUT.

        In `choices` mode, `seed` seeds what is drawn past the prefix (the used input is complete,
        so replaying it draws nothing more).  With `observe`, `observation` holds the run's targets
        and events (in `choices` mode read from its data, without the cost of observability; the
        call's text then comes from `describe`).
        """
        if self.mode == "choices":
            self.observation = Observation()
            self._data = None
            result = run(self._execute(seed), inp, timeout)
            if observe:
                self._observe_data()
            return result
        if not observe:
            return run(self.target, inp, timeout)
        self.observation = Observation()
        # a callback turns observability on: then Hypothesis builds the call's representation
        add_observability_callback(self._observe)
        try:
            return run(self.target, inp, timeout)
        finally:
            remove_observability_callback(self._observe)

    def describe(self, inp: Input, timeout: float | None) -> str:
        """The call's text for `inp` (as Hypothesis prints a falsifying example): in `choices` mode the
        test runs once more with observability on; in `bytes` mode the latest observed run's text."""
        if self.mode == "bytes":
            return self.observation.representation
        assert self.given is not None
        add_observability_callback(self._observe)
        try:
            run(self._execute(0), inp, timeout)
        finally:
            remove_observability_callback(self._observe)
        return str(getattr(self.given.state, "_string_repr", ""))

    def last_input(self, inp: Input) -> Input:
        """The input the latest run used: in `choices` mode its choices as far as it got (with what it drew
        past the prefix, so that a replay without its seed runs the same), else `inp` itself."""
        if self.mode == "choices" and self._data is not None:
            return tuple(self._data.choices)
        return inp

    def failing_choices(self, inp: Input, timeout: float | None) -> tuple[bytes, bytes] | None:
        """(database key, serialized choices) Hypothesis saves for `inp` on the code now live, if it fails."""
        if self.given is not None and isinstance(inp, tuple):
            result = run(self._execute(0), inp, timeout)
            if result.status == 0 or self._data is None:
                return None
            return self.given.key, choices_to_bytes(tuple(self._data.choices))
        assert isinstance(inp, bytes)
        capture = CaptureDatabase()
        target = self._fuzz_target(capture)
        result = run(target, inp, timeout)
        if result.status == 0 or not capture.saved:
            return None
        key, value = capture.saved[-1]
        return (key[: -len(SECONDARY)] if key.endswith(SECONDARY) else key), value

    def shrink(self, key: bytes, value: bytes, settings: Any, timeout: float) -> tuple[bytes, str] | None:
        """Hypothesis's own shrink of a failing input on the code now live: (its choices, the call's text).

        The test runs as pytest would run it, with `settings` (the test's own, shrinking on) over a
        scratch database holding `value` (secondary key), and only the reuse and shrink phases: the
        saved input is replayed, shrunk, and its minimal form left under `key`.  None
        when it no longer fails or the shrink runs past `timeout`.
        """
        from hypothesis import Phase
        from hypothesis.database import InMemoryExampleDatabase

        scratch = InMemoryExampleDatabase()
        # under the secondary key: Hypothesis does not shrink again what it replays from the primary one
        scratch.save(key + SECONDARY, value)
        notes: list[str]
        fn, notes = self.fn, []
        args = {name: v for name, v in self.params.items() if name != "self"}  # a method is bound already

        def call(_: Any) -> None:
            try:
                self.item.obj(**args)
            except Exception as exc:
                notes.extend(getattr(exc, "__notes__", ()))
                raise

        import hypothesis.core

        current = fn._hypothesis_internal_use_settings
        fn._hypothesis_internal_use_settings = Settings(
            parent=settings, database=scratch, phases=(Phase.reuse, Phase.shrink), deadline=None,
            report_multiple_bugs=False)
        # a forced seed (`--hypothesis-seed`, which props passes for reproducible default runs) turns the
        # database off, and with it the replay
        forced, hypothesis.core.global_force_seed = hypothesis.core.global_force_seed, None
        try:
            result = run(call, None, timeout)
        finally:
            fn._hypothesis_internal_use_settings = current
            hypothesis.core.global_force_seed = forced
        # Hypothesis notes the failure as "Falsifying example: test(...)" ("Failing test case" from 6.170)
        text = next((n.split(":", 1)[1].strip() for n in notes
                     if n.startswith(("Falsifying example:", "Failing test case:"))), None)
        if result.status != 1 or text is None:
            return None
        shrunk = min(scratch.fetch(key), key=lambda v: (len(v), v), default=value)
        return shrunk, text

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
            if keyword.arg in self.params:  # `self` and parametrized arguments: pytest gives them, not @example
                continue
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
