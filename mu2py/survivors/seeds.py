"""Argument values the suite already passes to the functions under aim: recorded once, used as fuzzing seeds.

The suite runs once in a fresh interpreter (`python -c BOOTSTRAP pytest-args`) with a profile
hook that, on each call of an aimed function, pickles the arguments it was called with (before
the function can change them). Per parameter, at most PER_PARAM distinct values (by their
pickle) of at most MAX_BYTES each are kept, in the order the suite first passed them, so
the same suite gives the same seeds. A value that does not pickle or unpickle here (a class
defined in a test module) is left out.

Seeds enter inference as `signatures.Seeded`: the recorded values are drawn from next to
what the type hints give, and for a parameter without a hint they are its driver: the values
themselves, or others of their shape (`shape_strategy`: an `int` seed draws any int, a list
of ints any list of ints).
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from mu2py.errors import UserError
from mu2py.testgen.signatures import Seeded

PER_PARAM = 30
MAX_BYTES = 4096
# a suite that runs this long under the profile hook is stopped: seeds are an aid, never a wait
RECORD_TIMEOUT = 600.0

# runs in the fresh interpreter: the recorder is a pytest plugin, the profile hook is on while tests run
BOOTSTRAP = r'''
import inspect, json, os, pickle, sys, pytest
spec = json.load(open(os.environ["MU2PY_SEEDS_SPEC"]))
found = {}
codes = {}
class Recorder:
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
    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item):
        sys.setprofile(hook)
        try:
            yield
        finally:
            sys.setprofile(None)
def hook(frame, event, arg):
    if event != "call":
        return
    entry = codes.get(frame.f_code)
    if entry is None:
        return
    qualname, names = entry
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
code = pytest.main(sys.argv[1:], plugins=[Recorder()])
with open(spec["out"], "wb") as out:
    pickle.dump(found, out)
sys.exit(int(code))
'''


def record_seeds(root: str, pytest_args: Sequence[str], functions: Sequence[tuple[str, str]],
                 sys_path: Sequence[str]) -> dict[str, dict[str, list[Any]]]:
    """Per `module.function`, per parameter, the values the suite passes (see the module docstring).

    Raises UserError when the suite cannot run at all; a suite that fails some tests still
    gives the seeds of the calls it made.
    """
    with tempfile.TemporaryDirectory(prefix="mu2py-seeds-") as tmp:
        out = Path(tmp) / "seeds.pickle"
        spec = Path(tmp) / "spec.json"
        spec.write_text(json.dumps({"functions": [list(f) for f in functions], "out": str(out),
                                    "per_param": PER_PARAM, "max_bytes": MAX_BYTES}))
        env = dict(os.environ, MU2PY_SEEDS_SPEC=str(spec),
                   PYTHONPATH=os.pathsep.join([*sys_path, os.environ.get("PYTHONPATH", "")]))
        cmd = [sys.executable, "-c", BOOTSTRAP, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", *pytest_args]
        try:
            proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=RECORD_TIMEOUT)
        except subprocess.TimeoutExpired:
            return {}
        if not out.is_file():
            raise UserError(f"the suite did not run to record seeds: {(proc.stdout + proc.stderr).strip()[-300:]}")
        raw: dict[str, dict[str, list[bytes]]] = pickle.loads(out.read_bytes())
    seeds: dict[str, dict[str, list[Any]]] = {}
    for qualname, params in raw.items():
        for name, blobs in params.items():
            values = []
            for blob in blobs:
                try:
                    values.append(pickle.loads(blob))
                except Exception:  # noqa: BLE001 - a class only the test module defines: not a seed here
                    continue
            if values:
                seeds.setdefault(qualname, {})[name] = values
    return seeds


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
    distinct = dict(sorted(s for s in shapes if s is not None))
    key = "|".join(distinct)
    return key, st.one_of(*distinct.values())


def shape_strategy(values: Sequence[Any]) -> SearchStrategy[Any] | None:
    """Values of the shapes of `values` (plain data only), or None when one of them is not plain data."""
    union = _union([_shape(v) for v in values])
    return union[1] if union is not None else None


def seeded(values: Sequence[Any]) -> Seeded:
    """The `Seeded` of one parameter: its recorded values, or (with no hint) values like them."""
    examples = st.sampled_from(list(values))
    shape = shape_strategy(values)
    n = len(values)
    how = f"one of {n} value{'' if n == 1 else 's'} the suite passes"
    alone = st.one_of(examples, shape) if shape is not None else examples
    return Seeded(strategy=examples, how=how, alone=alone,
                  alone_how=how + (" or values of their shape" if shape is not None else ""))
