"""Process state outside the target's copies that a run may change: put back after every run.

A mutant may rebind an attribute of a module it shares with every other run (`json.dumps =
repr`, `os.path.exists = ...`), set an environment variable, or change the decimal context.
A fresh interpreter starts from none of that; a long-lived host would carry it into every
later run, the original's included, and judge them wrongly.  `OutsideState` records, when it
is made, the top-level bindings of the modules the target imports (those bound in its copies,
as modules or as the home of a bound function or class; always `builtins`, `sys`, `os` and
`os.path`), the environment, `sys.path` and (when the target imports `decimal`) the decimal
context, and `restore()` puts back whatever a run changed.

Checking costs a few word reads per run: each watched dict is checked by its CPython
version tag (changed by every write to that dict), and compared entry by entry only when
the tag moved.  Where the tag cannot be read (another interpreter), every dict is compared
with `==` instead (slower, same result).

Invariant: after `restore()`, every watched dict binds each name it bound at the snapshot
to the very same object, and holds no name it lacked then other than a module (a submodule
imported meanwhile stays bound to its package, as importing it again would not rebind it);
`os.environ`, `sys.path` and the decimal context's settings equal the snapshot's.  Not
covered: the contents of containers held by those modules (caches), environment changes
made by `os.putenv` alone, and modules the target does not bind itself (a module that only
another stdlib module imports).
"""

from __future__ import annotations

import ctypes
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

# PyDictObject on CPython 3.11+: PyObject_HEAD, Py_ssize_t ma_used, uint64_t ma_version_tag
_TAG_OFFSET = 2 * ctypes.sizeof(ctypes.c_void_p) + ctypes.sizeof(ctypes.c_ssize_t)
_MISSING = object()
# tooling the driver uses, not the program: its state is mu2py's own business
_SKIP_PREFIXES = ("mu2py.", "hypothesis.", "importlib.", "_pytest.", "pytest.")


def _tags_work() -> bool:
    """Whether the version tag is where we read it and moves on every kind of write (self-test, once)."""
    if sys.implementation.name != "cpython":
        return False
    probe: dict[str, Any] = {"a": 1}
    tag = ctypes.c_uint64.from_address(id(probe) + _TAG_OFFSET)
    seen = [tag.value]
    probe["b"] = 2
    seen.append(tag.value)
    probe["a"] = 3
    seen.append(tag.value)
    del probe["b"]
    seen.append(tag.value)
    _ = probe.get("a")
    seen.append(tag.value)
    return len(set(seen[:4])) == 4 and seen[3] == seen[4]


_TAGS = _tags_work()


class VersionTag:
    """Whether a dict was written to since `reset()`: its CPython version tag where it can be read, else a copy."""

    __slots__ = ("d", "_tag", "_seen", "_copy")

    def __init__(self, d: dict[Any, Any]) -> None:
        self.d = d
        self._tag = ctypes.c_uint64.from_address(id(d) + _TAG_OFFSET) if _TAGS else None
        self.reset()

    def reset(self) -> None:
        """Take the dict as it is now as unchanged."""
        if self._tag is not None:
            self._seen = self._tag.value
        else:
            self._copy = dict(self.d)

    def moved(self) -> bool:
        """Whether the dict may have changed since `reset()` (never False when it did)."""
        if self._tag is not None:
            return self._tag.value != self._seen
        return self.d != self._copy


class Bindings:
    """One dict and its snapshot: the bindings when the snapshot was taken."""

    __slots__ = ("d", "saved")

    def __init__(self, d: dict[str, Any]) -> None:
        self.d = d
        self.saved = dict(d)

    def restore(self) -> bool:
        """Put back changed, deleted and added bindings (added modules stay); whether anything changed."""
        d, saved, changed = self.d, self.saved, False
        if d == saved:
            return False
        for key, value in saved.items():
            if d.get(key, _MISSING) is not value:
                d[key] = value
                changed = True
        if len(d) != len(saved):
            for key in [k for k in d if k not in saved]:
                if not isinstance(d[key], types.ModuleType):
                    del d[key]
                    changed = True
        return changed


def reached_modules(roots: Iterable[types.ModuleType], exclude: Iterable[str] = ()) -> list[Any]:
    """The modules bound in `roots`, as modules or as the home of a bound function or class; never those
    named in `exclude` (the target's own modules: the copies stand for them) nor mu2py's and Hypothesis'."""
    skip = set(exclude)
    found: dict[int, types.ModuleType] = {}
    for root in roots:
        for value in list(vars(root).values()):
            if isinstance(value, types.ModuleType):
                home: Any = value
            else:
                name = getattr(value, "__module__", None) if callable(value) else None
                home = sys.modules.get(name) if isinstance(name, str) else None
            if home is None or id(home) in found or any(home is r for r in roots):
                continue
            name = getattr(home, "__name__", "")
            if (not isinstance(name, str) or name in skip or name.startswith(_SKIP_PREFIXES)
                    or name in ("mu2py", "hypothesis")):
                continue
            found[id(home)] = home
    return list(found.values())


class OutsideState:
    """The state outside the target's copies that `restore()` puts back (see the module docstring)."""

    def __init__(self, copies: Iterable[types.ModuleType], own: Iterable[str] = ()) -> None:
        """`copies`: the target's module copies; `own`: the names of the modules they are copies of."""
        modules = reached_modules(list(copies), exclude=own)
        for always in ("builtins", "sys", "os", "posixpath"):
            module = sys.modules.get(always)
            if module is not None and all(m is not module for m in modules):
                modules.append(module)
        # the environment first: it is put back through os.environ (so that the C environment follows)
        self.watched = [Bindings(os.environ._data), *(Bindings(vars(m)) for m in modules)]  # type: ignore[attr-defined]  # os.environ's private dict
        self._tags = [ctypes.c_uint64.from_address(id(w.d) + _TAG_OFFSET) for w in self.watched] if _TAGS else []
        self._seen = [t.value for t in self._tags]
        self.path = list(sys.path)
        # the decimal context only when the target imports decimal (Hypothesis does too, for its own use)
        decimal = sys.modules.get("decimal")
        if not any(m is decimal or getattr(m, "__name__", "") == "_pydecimal" for m in modules):
            decimal = None
        self._decimal = decimal
        self._context = decimal.getcontext() if decimal is not None else None
        self._settings = self._context.copy() if self._context is not None else None

    def restore(self) -> int:
        """Put back what a run changed; returns how many of the watched things had changed (0: none)."""
        changed = 0
        if not _TAGS or [t.value for t in self._tags] != self._seen:
            changed += self._restore_dicts()
        if sys.path != self.path:
            sys.path[:] = self.path
            changed += 1
        if self._context is not None and not self._decimal_unchanged():
            self._restore_decimal()
            changed += 1
        return changed

    def _restore_dicts(self) -> int:
        changed = 0
        environ = self.watched[0]
        if environ.d != environ.saved:
            changed += 1
            for key in [k for k in environ.d if k not in environ.saved]:
                del os.environ[os.environ.decodekey(key)]
            for key, value in environ.saved.items():
                if environ.d.get(key, _MISSING) != value:
                    os.environ[os.environ.decodekey(key)] = os.environ.decodevalue(value)
        for watched in self.watched[1:]:
            changed += watched.restore()
        self._seen = [t.value for t in self._tags]
        return changed

    def _decimal_unchanged(self) -> bool:
        ctx, saved = self._context, self._settings
        assert ctx is not None and saved is not None and self._decimal is not None
        return (self._decimal.getcontext() is ctx and ctx.prec == saved.prec and ctx.rounding == saved.rounding
                and ctx.Emin == saved.Emin and ctx.Emax == saved.Emax and ctx.capitals == saved.capitals
                and ctx.clamp == saved.clamp and ctx.traps == saved.traps and ctx.flags == saved.flags)

    def _restore_decimal(self) -> None:
        ctx, saved = self._context, self._settings
        assert ctx is not None and saved is not None and self._decimal is not None
        self._decimal.setcontext(ctx)  # the very object the program may hold, with its settings put back
        ctx.prec, ctx.rounding, ctx.Emin, ctx.Emax = saved.prec, saved.rounding, saved.Emin, saved.Emax
        ctx.capitals, ctx.clamp = saved.capitals, saved.clamp
        ctx.traps = saved.traps.copy()
        ctx.flags = saved.flags.copy()
