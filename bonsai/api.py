"""bonsai as a library: `run` (the lattice, `bonsai run`) and `sample` (bounded inputs, `bonsai sample`).

Each function takes the options of the command of the same name as keyword arguments (the same names, `-` as `_`,
the same defaults) and does what the command does, minus the printing:

    import bonsai

    texts = bonsai.sample("grammars/json.lark", bounds="2,2,2", count=5, seed=1)

Invariants, as for `mu2py.api`: nothing is printed (progress goes to the optional `progress` callback); bad input
(a grammar that cannot be used, bounds out of range, a target that cannot be loaded) raises
`mu2py.errors.UserError` with one line, never `SystemExit`; `RunResult.exit_code` is the exit status of
`bonsai run` for the result. `import bonsai` does not import this module: `bonsai.run` loads it on first use.
"""

from __future__ import annotations

import functools
import json
import os
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bonsai.bounds import Bounds
from bonsai.cli_args import EXIT_FAILURES
from mu2py.errors import UserError
from mu2py.steps import Step

__all__ = ["DISTINCT_PATIENCE", "RunResult", "iter_samples", "run", "sample", "source"]

PathLike = str | os.PathLike[str]

DISTINCT_PATIENCE = 1000
"""`sample(distinct=True)` gives up after max(this, 10 x count) draws in a row that bring no new input."""


def _bounds(bounds: Bounds | str | Sequence[int], lattice: bool = False) -> Bounds:
    """`bounds` as `Bounds` (from `m,n,d` text or three integers); a `UserError` when out of range."""
    if isinstance(bounds, str):
        try:
            bounds = Bounds.parse(bounds)
        except ValueError as exc:
            raise UserError(f"--bounds: {exc}") from None
    elif not isinstance(bounds, Bounds):
        bounds = Bounds(*bounds)
    least = 1 if lattice else 0  # the lattice starts at F(1,1,1); a sample may have no repetition at all
    if min(bounds.idents, bounds.depth) < 1 or bounds.items < least:
        what = "lattice bounds must all be >= 1" if lattice else "bounds need m and d >= 1, n >= 0"
        raise UserError(f"--bounds: {what}, got {bounds.idents},{bounds.items},{bounds.depth}")
    return bounds


# --- source ----------------------------------------------------------------------------------------------------


def source(grammar: PathLike, *, bounds: Bounds | str | Sequence[int] = "3,3,3", start: str | None = None,
           idents: Sequence[str] | None = None) -> Any:
    """The bounded generator of `grammar` as a mu2py input source: `@driver(bonsai.source("g.lark"))`.

    `mu2py fuzz` then draws, mutates and saves the choice sequences of the same bounded derivations
    `bonsai run` grows corpora from (a corpus file holds the rendered text).  The generator is built once
    per process for the same grammar file (resolved path and modification time), bounds, start rule and
    identifier terminals: a driver module runs afresh for every mutant copy, and reloading the grammar each
    time would cost more than the runs.  A grammar that cannot be used raises `UserError` with one line.
    """
    path = Path(os.fspath(grammar)).resolve()
    try:
        stamp = path.stat().st_mtime_ns
    except OSError as exc:
        raise UserError(f"cannot read grammar {os.fspath(grammar)}: {exc.strerror}") from None
    return _source(str(path), stamp, _bounds(bounds), start, tuple(idents) if idents else None)


@functools.lru_cache(maxsize=32)
def _source(path: str, stamp: int, bounds: Bounds, start: str | None, idents: tuple[str, ...] | None) -> Any:
    """`source`'s generator, one per grammar file version and settings (`stamp`: its modification time)."""
    from bonsai.generator import BoundedGenerator
    from bonsai.grammar import GrammarLoadError, load_grammar

    try:
        return BoundedGenerator(load_grammar(path, start=start, is_ident=list(idents) if idents else None), bounds)
    except GrammarLoadError as exc:
        raise UserError(str(exc)) from None


# --- sample ----------------------------------------------------------------------------------------------------


def iter_samples(grammar: PathLike, *, bounds: Bounds | str | Sequence[int], count: int = 10, seed: int = 0,
                 start: str | None = None, idents: Sequence[str] | None = None, distinct: bool = False,
                 check: bool = False, progress: Callable[[str], None] | None = None) -> Iterator[str]:
    """The inputs of `sample`, one at a time (what `bonsai sample` streams); the grammar is loaded on the first.

    With `check`, an input that does not parse raises `UserError` after the ones before it were given.
    """
    from bonsai.generator import BoundedGenerator
    from bonsai.grammar import GrammarLoadError, load_grammar

    if count < 0:
        raise UserError(f"--count must be a non-negative integer, got {count!r}")
    top = _bounds(bounds)
    try:
        loaded = load_grammar(os.fspath(grammar), start=start, is_ident=list(idents) if idents else None)
        generator = BoundedGenerator(loaded, top)
    except GrammarLoadError as exc:
        raise UserError(str(exc)) from None
    rng = random.Random(seed)
    for n, text in enumerate(_draws(generator, rng, count, distinct, progress or (lambda _: None)), start=1):
        if check:
            try:
                loaded.parse(text)
            except Exception as exc:  # noqa: BLE001 - any parse failure is reported the same way
                raise UserError(f"input {n} does not parse: {' '.join(str(exc).split())[:200]}") from None
        yield text


def _draws(generator: Any, rng: random.Random, count: int, distinct: bool,
           say: Callable[[str], None]) -> Iterator[str]:
    """`count` generated texts (all different with `distinct`, which may stop early; `say` then hears why)."""
    if not distinct:
        for _ in range(count):
            yield generator.generate(rng).text
        return
    seen: set[str] = set()
    patience = max(DISTINCT_PATIENCE, 10 * count)
    misses = 0
    while len(seen) < count:
        text = generator.generate(rng).text
        if text in seen:
            misses += 1
            if misses >= patience:
                say(Step(f"only {len(seen)} distinct inputs (no new one in {patience} draws): the bounds allow few; "
                         "raise them for more", "note"))
                return
            continue
        misses = 0
        seen.add(text)
        yield text


def sample(grammar: PathLike, *, bounds: Bounds | str | Sequence[int], count: int = 10, seed: int = 0,
           start: str | None = None, idents: Sequence[str] | None = None, distinct: bool = False,
           check: bool = False, progress: Callable[[str], None] | None = None) -> list[str]:
    """`count` inputs of `grammar` within `bounds` (`m,n,d`), each parsing with it; the same seed, the same inputs.

    `idents` names the terminals bounded by m (default: the identifier-like ones); `distinct` gives no input
    twice, and may give fewer (`progress` then hears a note saying so); `check` parses each one.
    """
    return list(iter_samples(grammar, bounds=bounds, count=count, seed=seed, start=start, idents=idents,
                             distinct=distinct, check=check, progress=progress))


# --- run -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RunResult:
    """What a lattice run leaves: `summary` is `OUT/lattice.json` as written; the top node's corpus is `OUT/final/`.

    Invariants: `exit_code` is 3 (`EXIT_FAILURES`) exactly when the target raised on some input (`failures`, one
    per exception type and location), else 0; `warnings` are the lines `bonsai run` prints as warnings.
    """

    summary: dict[str, Any]
    out: Path
    warnings: list[str] = field(default_factory=list)

    @property
    def final(self) -> dict[str, Any]:
        """The final corpus: `inputs`, `mean_size` (chars) and `coverage` (lines+branches)."""
        return dict(self.summary["final"])

    @property
    def failures(self) -> list[dict[str, Any]]:
        """The distinct exceptions the target raised (type, location, message, a failing input)."""
        return list(self.summary["failures"])

    @property
    def exit_code(self) -> int:
        """The exit status of `bonsai run` for this result."""
        return EXIT_FAILURES if self.failures else 0


def run(grammar: PathLike, target: str, *, bounds: Bounds | str | Sequence[int], out: PathLike,
        node_trials: int | None = None, node_time: str | float | None = None, seed: int = 0, workers: int = 1,
        cluster: str | None = None, start: str | None = None, guidance: str = "coverage",
        targets: Sequence[str] | None = None, progress: Callable[[str], None] | None = None) -> RunResult:
    """Grow a concise corpus with the Bonsai lattice of bounded fuzzers up to `bounds` (`bonsai run`).

    `target` is `MODULE:FUNCTION` taking the input text; the budget is per node, `node_trials` or `node_time`.
    `out` is resumed when it holds a previous run of the same experiment. `progress` hears each line (a
    `mu2py.steps.Step`: a node's counts the nodes done of all; a warning's phase is `warning`). Ctrl-C propagates
    as `KeyboardInterrupt`, the finished nodes kept in `out`.
    """
    from bonsai.grammar import GrammarLoadError
    from bonsai.lattice import run_lattice
    from mu2py.budget import parse_duration
    from mu2py.processes.workers import WorkerError

    if (node_trials is None) == (node_time is None):
        raise UserError("give one budget per node: --node-trials N or --node-time DURATION")
    if node_trials is not None and node_trials < 1:
        raise UserError(f"--node-trials must be a positive integer, got {node_trials!r}")
    if workers < 1:
        raise UserError(f"--workers must be a positive integer, got {workers!r}")
    if seed < 0:
        raise UserError(f"--seed must be a non-negative integer, got {seed!r}")
    if guidance not in ("coverage", "mutation"):
        raise UserError(f"--guidance must be one of coverage, mutation, got {guidance!r}")
    if targets is not None and not [t for t in targets if t.strip()]:
        raise UserError("--targets: expected module names, got none")
    top = _bounds(bounds, lattice=True)
    seconds = parse_duration(node_time) if isinstance(node_time, str) else node_time
    say = progress or (lambda _: None)
    warnings: list[str] = []

    def warn(line: str) -> None:
        warnings.append(line)
        say(Step(line, "warning"))

    executor = None
    try:
        if cluster:
            from mu2py.processes.cluster import DaskExecutor

            executor = DaskExecutor(cluster)
            say(Step(f"Dask dashboard: {executor.dashboard}", "dashboard"))
        # the grammar travels as text; one that %imports its neighbours is read by this path (a worker's working
        # directory is its own)
        path = str(Path(grammar).resolve()) if executor is not None else os.fspath(grammar)
        summary = run_lattice(path, target, top, trials=node_trials, seconds=seconds, seed=seed, out=Path(out),
                              workers=workers, start=start, guidance=guidance, progress=say, cluster=executor,
                              targets=tuple(t.strip() for t in targets if t.strip()) if targets else None, warn=warn)
    except GrammarLoadError as exc:
        raise UserError(str(exc)) from None
    except WorkerError as exc:
        if executor is None:
            raise
        # a node raised on a Dask worker (a module in this directory the worker cannot import): one line, now
        raise UserError(f"{exc}; a worker needs the target importable and the grammar readable") from None
    finally:
        if executor is not None:
            executor.close()
    # as lattice.json holds it (JSON lists where the summary has tuples): the file and the result compare equal
    return RunResult(json.loads(json.dumps(summary)), Path(out), warnings)
