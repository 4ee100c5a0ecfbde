"""The project a `score --cluster` run judges, as shipped to the Dask workers: which files, and paths both ways.

A worker may not see the client's filesystem, so the client zips the project root's tree
(`project_files`: everything a score worker's sandbox copy would hold, minus build outputs) and
ships it by its content hash (`DaskExecutor.ship_tree`); each worker machine unpacks it once
(`unpacked_tree`) and hosts the suite from that copy, the spec's paths moved there
(`SuiteSpec.relocated`).  Results travel back with the copy's root written as the client's
(`mapped_back`), so a report names the client's files.

Invariants: every mutated file lies under the shipped root (else `UserError`); the zip holds
at most `limit_bytes()` of files (else `UserError`, naming the largest folders).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.score.sandbox import tree_state
from mu2py.score.spec import SuiteSpec, moved

LIMIT_ENV = "MU2PY_SHIP_LIMIT_MB"
"""Environment variable: the most MiB of project files `score --cluster` ships (default `DEFAULT_LIMIT_MB`)."""

DEFAULT_LIMIT_MB = 200

BUILD_OUTPUTS = ("build", "dist")
"""Top-level folders of the project root never shipped (unless a mutated file or sys.path entry lies inside)."""


def limit_bytes() -> int:
    """The size cap of a shipped project, in bytes (`LIMIT_ENV`, else `DEFAULT_LIMIT_MB`)."""
    raw = os.environ.get(LIMIT_ENV, "")
    try:
        mib = float(raw) if raw else DEFAULT_LIMIT_MB
    except ValueError as exc:
        raise UserError(f"{LIMIT_ENV} must be a number of MiB, got {raw!r}") from exc
    return int(mib * 2**20)


def project_files(spec: SuiteSpec, also: tuple[str, ...] = ()) -> dict[str, int]:
    """The files `score --cluster` ships, as paths relative to the root -> size.

    The root's tree as a score worker's sandbox copies it (`sandbox.tree_state`: no hidden folders such as VCS,
    caches or virtual environments, no `__pycache__`, `node_modules`, `*.egg-info` or folders holding a
    `pyvenv.cfg`), minus bytecode, the top-level build outputs (`BUILD_OUTPUTS`) and the run's own scratch folder
    should it lie inside; plus the package metadata (`*.egg-info`, `*.dist-info`) in the root and the sys.path
    entries under it, and the folders of `also` that lie under the root, hidden or not (props: the example
    database its default runs replay).  Tests, conftest.py files, configuration and the data files tests read all
    stay.
    """
    root = spec.root
    outside = [f for f in spec.files if _relative(f, root) is None]
    if outside:
        raise UserError(f"--cluster ships the project root {spec.root} to the workers, and {outside[0]} lies outside "
                        "it: pass a --root that holds every mutated file")
    # a build folder that holds code under test (`build/lib/pkg`, a mutated path) is the project, not an output
    needed = {rel.split(os.sep, 1)[0] for p in (*spec.files, *spec.sys_path) if (rel := _relative(p, root))}
    skipped = [name for name in BUILD_OUTPUTS if name not in needed]
    scratch = _relative(spec.scratch, root) if spec.scratch else None
    files = {}
    # the package's metadata, which the sandbox copy leaves out: a package reading its own version at import
    # (`pkg_resources.get_distribution`, `importlib.metadata.version`) finds it on the copy's sys.path, as here
    for entry in [*_metadata_folders(spec), *(f for f in also if _relative(f, root) and os.path.isdir(f))]:
        for rel, (size, _) in tree_state(entry).items():
            files[os.path.relpath(os.path.join(entry, rel), root)] = size
    for rel, (size, _) in tree_state(root).items():
        top = rel.split(os.sep, 1)[0]
        if top in skipped and rel != top or rel.endswith((".pyc", ".pyo")):
            continue
        if scratch and (rel + os.sep).startswith(scratch + os.sep):
            continue
        files[rel] = size
    return files


def _metadata_folders(spec: SuiteSpec) -> list[str]:
    """The `*.egg-info` and `*.dist-info` folders in the root and in the spec's sys.path entries under it."""
    places = {spec.root, *(p for p in spec.sys_path if _relative(p, spec.root) is not None)}
    found = []
    for place in sorted(places):
        try:
            names = sorted(os.listdir(place))
        except OSError:
            continue
        found += [os.path.join(place, n) for n in names
                  if n.endswith((".egg-info", ".dist-info")) and os.path.isdir(os.path.join(place, n))]
    return found


def pack_project(spec: SuiteSpec, also: tuple[str, ...] = ()) -> bytes:
    """The zip of `project_files(spec, also)` under the root (see `pack_tree`); a `UserError` when over
    `limit_bytes()`."""
    from mu2py.processes.cluster import pack_tree

    files = project_files(spec, also)
    total, limit = sum(files.values()), limit_bytes()
    if total > limit:
        by_top: dict[str, int] = {}
        for rel, size in files.items():
            top = rel.split(os.sep, 1)[0]
            by_top[top] = by_top.get(top, 0) + size
        largest = ", ".join(f"{name} {size / 2**20:.1f} MiB"
                            for name, size in sorted(by_top.items(), key=lambda kv: -kv[1])[:3])
        raise UserError(f"--cluster ships the project root {spec.root} to the workers: {total / 2**20:.1f} MiB of "
                        f"files, over the {limit / 2**20:.4g} MiB cap (largest: {largest}); move large data out of "
                        f"the root, or raise the cap with {LIMIT_ENV}")
    return pack_tree(Path(spec.root), files)


def mapped_back(value: Any, here: str, client: str) -> Any:
    """`value` (a unit's result: dicts, lists, strings) with paths under `here` (the unpacked copy's root) written
    under `client` (the client's root), so that what a report shows names the client's files."""
    if isinstance(value, str):
        return value.replace(here, client) if here in value else value
    if isinstance(value, dict):
        return {k: mapped_back(v, here, client) for k, v in value.items()}
    if isinstance(value, list):
        return [mapped_back(v, here, client) for v in value]
    if isinstance(value, tuple):
        return tuple(mapped_back(v, here, client) for v in value)
    return value


def _relative(path: str, root: str) -> str | None:
    """`path` relative to `root` when it lies inside (itself: ""), else None.

    By the text, as `SuiteSpec.relocated` moves paths on the worker: a file shipped is a file relocated.
    """
    inside = moved(path, root, "")
    return inside.lstrip(os.sep) if inside != path else None
