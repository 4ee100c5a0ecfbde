"""Argument values a package's own suite passes, and the instances it builds: recorded once, used as fuzzing seeds.

`mu2py kill` records them for the functions it aims at, `mu2py corpus` for every function it fuzzes
(`corpus_suite` finds the suite there when none is given). The suite runs once in a fresh interpreter
(`python -c BOOTSTRAP pytest-args`) with a profile hook on while each test sets up and runs:

* on each call of an aimed function it pickles the arguments it was called with (before the function can
  change them);
* on each `__init__` call building an instance of the class of an aimed method (exactly that class: a
  subclass's instance, or a base's `__init__` run by `super()`, is not one), the whole call, the constructor's
  arguments by name: how the suite builds its instances, kept together so that arguments that only make sense
  together stay together. An argument that is its parameter's default object is left out of the call (the
  default then applies: a sentinel default stays the sentinel).

Per parameter, at most PER_PARAM distinct values (by their pickle) of at most MAX_BYTES each are kept, and per
class at most PER_CLASS distinct calls of at most MAX_CALL_BYTES, in the order the suite first made them, so the
same suite gives the same seeds. A value that does not pickle or unpickle here (a class defined in a test module)
is left out; so is a call holding one.

Seeds enter inference through `infer_seeded`: per parameter a `signatures.Seeded` (the recorded values, then
`variants` of them: the same structure, the same dict keys, each leaf kept or changed; for a parameter with no
hint also any value of their shape, `shape_strategy`), and per class a `signatures.Built` (a receiver built by
one of the suite's constructor calls, or a variant of one), its per-parameter values seeding the constructor's
parameters too.
"""

from __future__ import annotations

import inspect
import json
import os
import pickle
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from mu2py.errors import UserError
from mu2py.processes.supervisor import run_swept
from mu2py.testgen.render import CORPUS_MARK, KILL_MARK
from mu2py.testgen.signatures import Built, FunctionSpec, Seeded

PER_PARAM = 30
MAX_BYTES = 4096
PER_CLASS = 30
MAX_CALL_BYTES = 4 * MAX_BYTES
# a suite that runs this long under the profile hook is stopped: seeds are an aid, never a wait
RECORD_TIMEOUT = 600.0
# how deep `variants` follows containers; deeper, a recorded part is kept as it is
VARIANT_DEPTH = 4
# containers of more items than this are kept as recorded (their variants would cost a strategy per item)
VARIANT_ITEMS = 16
# an int leaf of a recorded value varies within this distance of it, besides any int
NEAR = 4
# distinct leaves of one type a parameter's variants swap in (the first met)
POOL = 32

# runs in the fresh interpreter: the recorder is a pytest plugin, the profile hook is on while tests set up and run
BOOTSTRAP = r'''
import inspect, json, os, pickle, sys, pytest
spec = json.load(open(os.environ["MU2PY_SEEDS_SPEC"]))
found = {}
built = {}
codes = {}
inits = {}
out = {"functions": found, "instances": built, "args": None}
VAR = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
def save():
    with open(spec["out"], "wb") as handle:
        pickle.dump(out, handle)
class Recorder:
    @pytest.hookimpl(tryfirst=True)
    def pytest_cmdline_main(self, config):
        # with no test paths given, pytest finds the suite as a plain `pytest` there would: its config's testpaths,
        # else the working directory (the args it chose say which)
        out["args"] = [str(a) for a in config.args]
    @pytest.hookimpl(tryfirst=True)
    def pytest_ignore_collect(self, collection_path, config):
        # found as pytest finds it, the suite is still the package's own: never the tests mu2py wrote earlier
        # (another corpus's --out under the project), whose values would change what this run draws
        if spec["auto"] and collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
            try:
                with open(collection_path, encoding="utf-8") as handle:
                    first = handle.readline()
            except (OSError, UnicodeDecodeError):
                return None
            if any(mark in first for mark in spec["marks"]):
                return True
        return None
    def pytest_collection_finish(self, session):
        import importlib
        for module, function in spec["functions"]:
            try:
                owner = importlib.import_module(module)
                *classes, attr = function.split(".")
                for part in classes:
                    owner = getattr(owner, part)
                raw = inspect.getattr_static(owner, attr)
                code = inspect.unwrap(getattr(raw, "__func__", raw)).__code__
            except Exception:
                continue
            skip = 1 if classes and not isinstance(raw, staticmethod) else 0  # self or cls: not a seed
            names = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount][skip:]
            codes[code] = (f"{module}.{function}", names)
            if not classes or isinstance(raw, (staticmethod, classmethod)):
                continue
            try:
                init = inspect.unwrap(owner.__init__)
                params = list(inspect.signature(init).parameters.values())[1:]
                init_code = init.__code__
            except Exception:
                continue  # object.__init__ (no arguments to record), or no signature
            named = [(p.name, p.default, p.kind == p.POSITIONAL_ONLY) for p in params if p.kind not in VAR]
            inits.setdefault(init_code, {})[owner] = (f"{module}.{'.'.join(classes)}", named)
    def _profiled(self, item):
        sys.setprofile(hook)
        try:
            yield
        finally:
            sys.setprofile(None)
    # the test's call, and its setup: fixtures build instances too
    pytest_runtest_setup = pytest.hookimpl(hookwrapper=True)(_profiled)
    pytest_runtest_call = pytest.hookimpl(hookwrapper=True)(_profiled)
def hook(frame, event, arg):
    if event != "call":
        return
    code = frame.f_code
    entry = codes.get(code)
    if entry is not None:
        arguments(frame, *entry)
    classes = inits.get(code)
    if classes is not None and code.co_argcount:
        local = frame.f_locals
        target = classes.get(type(local.get(code.co_varnames[0])))
        if target is not None:
            construction(local, *target)
def arguments(frame, qualname, names):
    params = found.setdefault(qualname, {})
    for name in names:
        values = params.setdefault(name, [])
        if len(values) >= spec["per_param"] or name not in frame.f_locals:
            continue
        try:
            data = pickle.dumps(frame.f_locals[name], protocol=4)
        except Exception:
            continue
        if len(data) <= spec["max_bytes"] and data not in values:
            values.append(data)
def construction(local, key, named):
    calls = built.setdefault(key, [])
    if len(calls) >= spec["per_class"]:
        return
    call = {}
    for name, default, positional in named:
        if name not in local:
            return
        if local[name] is default and not positional:
            continue
        call[name] = local[name]
    try:
        data = pickle.dumps(call, protocol=4)
    except Exception:
        return
    if len(data) <= spec["max_call_bytes"] and data not in calls:
        calls.append(data)
code = pytest.main(sys.argv[1:], plugins=[Recorder()])
save()
sys.exit(int(code))
'''


@dataclass(frozen=True)
class SuiteValues:
    """What the suite passed: per `module.function` per parameter its values, per `module.Class` its constructor
    calls (argument dicts), each in the order the suite first made them; `args` the test paths pytest ran (None
    when it ran none).

    Invariant: every list is non-empty and every value unpickled here; the same suite gives equal SuiteValues.
    """

    functions: dict[str, dict[str, list[Any]]] = field(default_factory=dict)
    instances: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    args: list[str] | None = None
    timed_out: bool = False  # the suite ran past the recording's timeout: nothing recorded

    def only(self, module: str, name: str) -> SuiteValues:
        """The values `infer_seeded` reads for `module.name` alone (what a worker is sent)."""
        owner = name.rpartition(".")[0]
        functions = {k: v for k, v in self.functions.items() if k == f"{module}.{name}"}
        instances = {k: v for k, v in self.instances.items() if owner and k == f"{module}.{owner}"}
        return SuiteValues(functions, instances, self.args, self.timed_out)

    def has(self, module: str, name: str) -> bool:
        """Whether the suite gave any value `infer_seeded` would use for `module.name`."""
        only = self.only(module, name)
        return bool(only.functions or only.instances)


def record_seeds(root: str, pytest_args: Sequence[str], functions: Sequence[tuple[str, str]],
                 sys_path: Sequence[str], *, auto: bool = False, timeout: float = RECORD_TIMEOUT) -> SuiteValues:
    """The values the suite passes to `functions` ((module, `function` or `Class.method`)) and the constructor
    calls of their methods' classes (see the module docstring), running pytest in `root` on `pytest_args`.

    With `auto`, pytest runs its config's `testpaths` when it has some (and `root` is its rootdir), else what it
    collects from `root`, as a plain `pytest` there does. Raises UserError when the suite cannot run at all; a
    suite that fails some tests still gives the values of the calls it made, one that runs past `timeout` seconds
    none (`timed_out`).
    """
    with tempfile.TemporaryDirectory(prefix="mu2py-seeds-") as tmp:
        out = Path(tmp) / "seeds.pickle"
        spec = Path(tmp) / "spec.json"
        spec.write_text(json.dumps({"functions": [list(f) for f in functions], "out": str(out), "auto": auto,
                                    "per_param": PER_PARAM, "max_bytes": MAX_BYTES, "per_class": PER_CLASS,
                                    "max_call_bytes": MAX_CALL_BYTES, "marks": [CORPUS_MARK, KILL_MARK]}))
        env = dict(os.environ, MU2PY_SEEDS_SPEC=str(spec),
                   PYTHONPATH=os.pathsep.join([*sys_path, os.environ.get("PYTHONPATH", "")]))
        cmd = [sys.executable, "-c", BOOTSTRAP, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *pytest_args]
        proc = run_swept(cmd, timeout=timeout, cwd=root, env=env)
        if proc.code is None:
            return SuiteValues(timed_out=True)
        if not out.is_file():
            raise UserError(f"the suite did not run to record seeds: {(proc.stdout + proc.stderr).strip()[-300:]}")
        raw: dict[str, Any] = pickle.loads(out.read_bytes())
    values: dict[str, dict[str, list[Any]]] = {}
    for qualname, params in raw["functions"].items():
        for name, blobs in params.items():
            kept = _loads(blobs)
            if kept:
                values.setdefault(qualname, {})[name] = kept
    instances = {key: calls for key, blobs in raw["instances"].items() if (calls := _loads(blobs))}
    return SuiteValues(values, instances, raw["args"])


def _loads(blobs: list[bytes]) -> list[Any]:
    """The values of `blobs` that unpickle here, in order."""
    values = []
    for blob in blobs:
        try:
            values.append(pickle.loads(blob))
        except Exception:  # noqa: BLE001 - a class only the test module defines: not a seed here
            continue
    return values


def corpus_suite(root: Path, suite: Sequence[str] | None,
                 out: Path | None = None) -> tuple[list[str], bool, str]:
    """The pytest arguments `mu2py corpus` records the suite's values with, whether pytest is to find the suite
    itself (`record_seeds`'s `auto`), and how the suite was found (for a progress line).

    `suite` (`--suite`) first, then `[tool.mu2py] tests` in `root`'s pyproject (with its `pytest_args`, as `mu2py
    kill` runs it), else the tests a plain `pytest` in `root` finds (its config's `testpaths`, else `root` itself),
    but those in `out` (the tests an earlier `corpus` wrote there are not the package's suite).
    """
    from mu2py.target.project import load_config

    config = load_config(root)
    extra = list(config.get("pytest_args", []))
    if suite:
        return [*suite, *extra], False, f"--suite {' '.join(suite)}"
    if config.get("tests"):
        return [*config["tests"], *extra], False, f"[tool.mu2py] tests ({', '.join(config['tests'])})"
    if out is not None and out.resolve().is_relative_to(root.resolve()):
        extra.append(f"--ignore={out.resolve()}")
    return extra, True, "found as pytest finds it"


def infer_seeded(values: SuiteValues | None, module: str, name: str, *, constants: bool = True) -> FunctionSpec:
    """`signatures.infer_named` for `module.name` with the suite's values (none when `values` is None): its
    parameters' values, and for an instance method its class's constructor calls (those that fit the
    constructor's signature: every required parameter, no unknown one) as the receiver's."""
    from mu2py.target.driver import import_module
    from mu2py.testgen.signatures import infer_named

    if values is None:
        return infer_named(module, name, constants=constants)
    seeds = {param: seeded(v) for param, v in values.functions.get(f"{module}.{name}", {}).items()}
    owner = name.rpartition(".")[0]
    calls = values.instances.get(f"{module}.{owner}", []) if owner else []
    receiver = None
    if calls:
        fitting = _fitting(getattr(import_module(module), owner, None), calls)
        receiver = built(fitting) if fitting else None
    return infer_named(module, name, constants=constants, seeds=seeds, built=receiver)


def _fitting(cls: Any, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls `cls(**call)` can take (its positional-only parameters given too): each required parameter
    present, none it lacks."""
    try:
        params = [p for p in inspect.signature(cls).parameters.values()
                  if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)]
    except (TypeError, ValueError):
        return []
    names = {p.name for p in params}
    required = {p.name for p in params if p.default is inspect.Parameter.empty
                or p.kind is inspect.Parameter.POSITIONAL_ONLY}
    return [c for c in calls if required <= set(c) <= names]


_SCALARS: dict[type, SearchStrategy[Any]] = {
    bool: st.booleans(), int: st.integers(), float: st.floats(), str: st.text(), bytes: st.binary(),
    type(None): st.none(),
}


def _shape(value: Any, depth: int = 0) -> tuple[str, SearchStrategy[Any]] | None:
    """(a key naming the value's shape, a strategy drawing values of that shape), or None past plain data."""
    kind = type(value)
    if kind in _SCALARS:
        return kind.__name__, _SCALARS[kind]
    if depth > 3:
        return None
    if kind in (list, tuple, set, frozenset):
        items = _union([_shape(v, depth + 1) for v in value])
        if items is None:
            return None if value else (f"{kind.__name__}[]", st.just(kind()))
        key, strategy = items
        if kind in (set, frozenset):
            return f"{kind.__name__}[{key}]", st.sets(strategy, max_size=8).map(kind)
        lists = st.lists(strategy, max_size=8)
        return f"{kind.__name__}[{key}]", lists if kind is list else lists.map(tuple)
    if kind is dict:
        keys = _union([_shape(k, depth + 1) for k in value])
        values = _union([_shape(v, depth + 1) for v in value.values()])
        if keys is None or values is None:
            return None if value else ("dict[]", st.just({}))
        return f"dict[{keys[0]}:{values[0]}]", st.dictionaries(keys[1], values[1], max_size=5)
    return None


def _union(shapes: list[tuple[str, SearchStrategy[Any]] | None]) -> tuple[str, SearchStrategy[Any]] | None:
    """One strategy over distinct shapes (sorted by key, for the same strategy every time); None if any is None."""
    if not shapes or any(s is None for s in shapes):
        return None
    distinct = dict(sorted((s for s in shapes if s is not None), key=lambda s: s[0]))  # equal keys: the same shape
    key = "|".join(distinct)
    return key, st.one_of(*distinct.values())


def shape_strategy(values: Sequence[Any]) -> SearchStrategy[Any] | None:
    """Values of the shapes of `values` (plain data only), or None when one of them is not plain data."""
    union = _union([_shape(v) for v in values])
    return union[1] if union is not None else None


def _leaves(value: Any, pool: dict[type, dict[str, Any]], depth: int = 0) -> None:
    """Add the scalar leaves of `value` (dict keys left out) to `pool`, by exact type and repr (`==` would take
    True for 1), each once, in the order met, at most POOL per type."""
    kind = type(value)
    if kind in _SCALARS and kind is not type(None):
        known = pool.setdefault(kind, {})
        if len(known) < POOL:
            known.setdefault(repr(value), value)
    elif depth < VARIANT_DEPTH and kind in (list, tuple, dict):
        for item in (value.values() if kind is dict else value):
            _leaves(item, pool, depth + 1)


def variants(value: Any, pool: dict[type, dict[str, Any]] | None = None, depth: int = 0) -> SearchStrategy[Any]:
    """Values with the structure of `value`: the same dict keys, the same tuple length, list items like its
    items; each scalar leaf kept, or another leaf of its type from `pool` (the leaves of every value the suite
    passed this parameter: see `_leaves`), or an int near it, or any value of its type. Anything else, and a
    container deeper than VARIANT_DEPTH or of more than VARIANT_ITEMS items, is kept as it is.

    The first branch of each choice keeps the recorded part, so the simplest draw is `value` itself.
    """
    pool = pool if pool is not None else {}
    kind = type(value)
    if kind in _SCALARS:
        if kind is type(None):
            return st.none()
        others = [v for text, v in pool.get(kind, {}).items() if text != repr(value)]
        branches = [st.just(value), *([st.sampled_from(others)] if others else [])]
        if kind is int:
            branches.append(st.integers(value - NEAR, value + NEAR))
        return st.one_of(*branches, _SCALARS[kind])
    if depth >= VARIANT_DEPTH or kind not in (dict, tuple, list) or len(value) > VARIANT_ITEMS:
        return st.just(value)
    if kind is dict:
        keys = list(value)
        # in the recorded key order (fixed_dictionaries may give another): a written test shows it as recorded
        return st.fixed_dictionaries({k: variants(v, pool, depth + 1) for k, v in value.items()}).map(
            lambda d: {k: d[k] for k in keys})
    items = [variants(v, pool, depth + 1) for v in value]
    if kind is tuple:
        return st.tuples(*items)
    same_length = st.tuples(*items).map(list)
    return st.one_of(same_length, st.lists(st.one_of(*items), max_size=len(value) + 2)) if items else st.just([])


def _examples(values: Sequence[Any]) -> tuple[SearchStrategy[Any], SearchStrategy[Any]]:
    """The values themselves, and variants of any of them (see `variants`), leaves pooled over all of them."""
    pool: dict[type, dict[str, Any]] = {}
    for value in values:
        _leaves(value, pool)
    # the values' copies: a driver may change the argument it is given, and `just` hands out the same object
    return st.sampled_from(list(values)).map(_copy), st.one_of(*(variants(v, pool) for v in values)).map(_copy)


def _copy(value: Any) -> Any:
    """A deep copy of `value`, or `value` itself when it does not copy."""
    import copy

    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - an object refusing deepcopy is handed out as recorded
        return value


def seeded(values: Sequence[Any]) -> Seeded:
    """The `Seeded` of one parameter: its recorded values and variants of them, or (with no hint) also values of
    their shape."""
    examples, changed = _examples(values)
    shape = shape_strategy(values)
    n = len(values)
    how = f"one of {n} value{'' if n == 1 else 's'} the suite passes or variants of them"
    strategy = st.one_of(examples, changed)
    alone = st.one_of(strategy, shape) if shape is not None else strategy
    return Seeded(strategy=strategy, how=how, alone=alone,
                  alone_how=how + (", or values of their shape" if shape is not None else ""))


def built(calls: Sequence[dict[str, Any]]) -> Built:
    """The `Built` of one class: the suite's constructor calls (argument dicts), variants of them, and per
    constructor parameter the values the calls pass (`seeded`)."""
    examples, changed = _examples(calls)
    by_param: dict[str, list[Any]] = {}
    for call in calls:
        for name, value in call.items():
            known = by_param.setdefault(name, [])
            if not any(_same(value, v) for v in known):
                known.append(value)
    n = len(calls)
    return Built(strategy=st.one_of(examples, changed),
                 how=f"built as the suite builds {n} instance{'' if n == 1 else 's'}, or variants of that",
                 params={name: seeded(v) for name, v in by_param.items()})


def _same(a: Any, b: Any) -> bool:
    """Whether two recorded values are the same value (by their pickle: equal values may differ in type)."""
    try:
        return pickle.dumps(a, protocol=4) == pickle.dumps(b, protocol=4)
    except Exception:  # noqa: BLE001 - they unpickled from a pickle: they pickle again, but be safe
        return a is b

