"""Which keys of a module-level dict a test reads: reads by key found in the code, and recorded as tests run.

A module-level mutant often changes a few entries of a table (one format in a dict of formats, one
handler of a dispatch dict): re-run, the module body binds a new dict that differs from the
original at a few keys (`changed_keys`).  A test sees that change only by reading one of those keys,
or by using the dict some other way (iterating it, copying it, passing it on, `len`).

`sites` finds in one code object every use of a name: each is a read by key (`N[k]`, `N.get(k)`,
`N.get(k, d)`, `k in N`, with `k` a constant or a variable of the frame) or an opaque use, of which
nothing is known (the test is taken to read every key).  `KeyRecord` collects, per test, the keys
read under each watched name: the constant keys of the sites of every code object the test ran, and
the value a variable key holds as its read runs (an opcode trace under `sys.settrace`, a local
`sys.monitoring` instruction event on 3.12+).

Invariant (what makes choosing tests by keys sound): when a test ran no code object that uses a
watched name opaquely, and the keys it read under that name are disjoint from the changed keys,
every read it made under that name gave what the original dict gives (an equivalent value, or the
same KeyError, default or membership).  A use through a name that no code names (`getattr(m, name)`,
`vars(m)[...]`) is not seen, as for reads by name (`merge.Reload.observed_by`).
"""

from __future__ import annotations

import dis
import sys
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from mu2py.score.merge import MISSING, is_atom

ALL = None  # a test's keys under a name when it used the dict opaquely: it may have read any of them
_KEY_LOADS = frozenset({"LOAD_CONST", "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_DEREF"})
_CALLS = frozenset({"PRECALL", "CALL"})
_NAMED = frozenset(dis.hasname)
_METHOD_FLAG = sys.version_info >= (3, 12)  # LOAD_ATTR's low bit marks a method load (3.11 has LOAD_METHOD)


@dataclass(frozen=True)
class Sites:
    """The uses of the watched names in one code object."""

    consts: dict[str, frozenset[Any]] = field(default_factory=dict)  # name -> the constant keys read under it
    variables: dict[int, tuple[str, str]] = field(default_factory=dict)  # key load's offset -> (name, variable)
    opaque: frozenset[str] = frozenset()  # names used other than by key


def sites(code: types.CodeType, names: frozenset[str]) -> Sites:
    """The uses in `code` (not in the code objects nested in it) of the names in `names`."""
    if names.isdisjoint(code.co_names):
        return Sites()
    ins = [i for i in dis.get_instructions(code) if i.opname != "CACHE"]
    consts: dict[str, set[Any]] = {}
    variables: dict[int, tuple[str, str]] = {}
    opaque: set[str] = set()
    for at, instruction in enumerate(ins):
        if instruction.opcode not in _NAMED or instruction.argval not in names:
            continue
        name = instruction.argval
        key = _key_of_read(ins, at)
        if key is None:
            opaque.add(name)
        elif key.opname == "LOAD_CONST":
            if is_atom(key.argval):
                consts.setdefault(name, set()).add(key.argval)
            else:
                opaque.add(name)
        else:
            variables[key.offset] = (name, key.argval)
    return Sites({n: frozenset(k) for n, k in consts.items()}, variables, frozenset(opaque))


def _key_of_read(ins: list[dis.Instruction], at: int) -> dis.Instruction | None:
    """The instruction loading the key when `ins[at]` loads a dict that is then only read by that key; else None."""
    base = ins[at]
    # the dict by name (a global, a module body's name) or as an attribute (`module.N`): an attribute that is some
    # other object's only adds keys that were never the dict's (more tests, never fewer)
    if base.opname == "LOAD_GLOBAL" and base.arg is not None and base.arg & 1:
        return None  # pushed for a call: `N(...)`
    if base.opname == "LOAD_ATTR" and _METHOD_FLAG and base.arg is not None and base.arg & 1:
        return None
    if base.opname not in ("LOAD_GLOBAL", "LOAD_NAME", "LOAD_ATTR"):
        return None
    after = ins[at + 1:at + 8]
    if any(i.is_jump_target for i in after[:1]):
        return None
    # N[k]
    if len(after) >= 2 and after[0].opname in _KEY_LOADS and after[1].opname == "BINARY_SUBSCR" \
            and not after[1].is_jump_target:
        return after[0]
    # N.get(k) and N.get(k, d), d one load or a read by a constant key (`N.get(k, N["simple"])`)
    method = after[0] if after else None
    if method is not None and method.argval == "get" and (
            method.opname == "LOAD_METHOD" or (method.opname == "LOAD_ATTR" and _METHOD_FLAG and method.arg is not None
                                               and method.arg & 1)):
        rest = after[1:]
        if not rest or rest[0].opname not in _KEY_LOADS:
            return None
        key, tail, argc = rest[0], ins[at + 3:at + 8], 1
        if tail and tail[0].opname not in _CALLS:
            if tail[0].opname in _KEY_LOADS:
                tail, argc = tail[1:], 2
            elif len(tail) >= 3 and tail[0].opname in ("LOAD_GLOBAL", "LOAD_NAME") and not (tail[0].arg or 0) & 1 \
                    and tail[1].opname == "LOAD_CONST" and tail[2].opname == "BINARY_SUBSCR":
                tail, argc = tail[3:], 2
            else:
                return None
        if tail and tail[0].opname in _CALLS and tail[0].arg == argc and not any(i.is_jump_target for i in rest[:1]):
            return key
        return None
    # k in N, k not in N
    before = ins[at - 1] if at else None
    if before is not None and before.opname in _KEY_LOADS and after and after[0].opname == "CONTAINS_OP" \
            and not base.is_jump_target:
        return before
    return None


def changed_keys(old: Any, new: Any, equivalent: Any) -> frozenset[Any] | None:
    """The keys at which dict `new` differs from dict `old` (one is missing, or the values are not `equivalent`);
    None unless both are plain dicts keyed by atoms (strings, numbers, tuples of them)."""
    if type(old) is not dict or type(new) is not dict:
        return None
    keys = set()
    for key in old.keys() | new.keys():
        if not is_atom(key):
            return None
        before, after = old.get(key, MISSING), new.get(key, MISSING)
        if before is MISSING or after is MISSING or not equivalent(before, after):
            keys.add(key)
    return frozenset(keys)


class KeyRecord:
    """Per test, the keys read under each of the watched names (see the module docstring)."""

    def __init__(self, names: frozenset[str]) -> None:
        self.names = names
        self._sites: dict[types.CodeType, Sites] = {}
        self._read: dict[str, set[Any] | None] = {}

    def sites_of(self, code: types.CodeType) -> Sites:
        """`sites(code, self.names)`, found once per code object."""
        found = self._sites.get(code)
        if found is None:
            found = self._sites[code] = sites(code, self.names)
        return found

    def ran(self, code: types.CodeType) -> bool:
        """Note that the running test ran `code`; whether `code` reads by a variable key (to be watched as it runs)."""
        found = self.sites_of(code)
        for name in found.opaque:
            self._read[name] = ALL
        for name, keys in found.consts.items():
            read = self._read.setdefault(name, set())
            if read is not ALL:
                read.update(keys)
        return bool(found.variables)

    def at(self, code: types.CodeType, offset: int, frame: Any) -> bool:
        """The instruction at `offset` of `code` is about to run in `frame`: when it loads a variable key, note the
        key; whether it does."""
        site = self._sites[code].variables.get(offset) if code in self._sites else None
        if site is None:
            return False
        name, variable = site
        read = self._read.setdefault(name, set())
        if read is ALL:
            return True
        value = frame.f_locals.get(variable, MISSING)
        if value is MISSING:
            return True  # unbound: the load raises, and nothing is read
        if is_atom(value):
            read.add(value)
        else:
            self._read[name] = ALL  # a key of a class of its own: its equality may match any key
        return True

    def take(self) -> dict[str, frozenset[Any] | None]:
        """The running test's keys per name (`ALL`: any key), and a clean slate for the next test."""
        taken = {name: (ALL if keys is ALL else frozenset(keys)) for name, keys in self._read.items()}
        self._read = {}
        return taken


def reads_changed(read: Mapping[str, frozenset[Any] | None], changed: Mapping[str, frozenset[Any]]) -> bool:
    """Whether a test that read `read` (see `KeyRecord.take`) read a key in `changed` (name -> changed keys)."""
    for name, keys in changed.items():
        if name in read:
            got = read[name]
            if got is ALL or not got.isdisjoint(keys):
                return True
    return False
