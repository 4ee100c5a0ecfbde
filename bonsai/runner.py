"""Where a generation's nodes run: on a Dask cluster, on a process pool, or in this process.

On a cluster the grammar travels as its text (a worker on another machine needs no shared filesystem), unless it
`%import`s files relative to itself; the target's modules from the client's folders are shipped by the executor.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bonsai.node import NodeResult, NodeStats, node_dir, run_node, write_done
from mu2py.processes.workers import Lost, Processes
from mu2py.store.atomic import write_atomic

__all__ = ["GrammarText", "NodeRunner", "grammar_payload", "remote_node"]

_RELATIVE_IMPORT = re.compile(r"^\s*%import\s+\.", re.MULTILINE)


@dataclass(frozen=True)
class GrammarText:
    """A grammar file's text, sent with a node's job instead of its path."""

    name: str
    text: str

    def path(self) -> str:
        """A file holding the text on this machine, written once per content (a worker parses it once per process)."""
        digest = hashlib.sha256(self.text.encode()).hexdigest()[:16]
        path = Path(tempfile.gettempdir()) / f"bonsai-grammar-{digest}-{self.name}"
        if not path.is_file():
            scratch = path.with_name(f".{path.name}.{os.getpid()}")
            scratch.write_text(self.text, encoding="utf-8")
            os.replace(scratch, path)  # whole: another process on this machine may read it meanwhile
        return str(path)


def grammar_payload(path: str) -> GrammarText | str:
    """What a cluster job carries for the grammar at `path`: its text, or the path when it imports its neighbours."""
    text = Path(path).read_text(encoding="utf-8")
    return str(path) if _RELATIVE_IMPORT.search(text) else GrammarText(Path(path).name, text)


def remote_node(job: tuple[Any, ...]) -> tuple[NodeStats, list[tuple[int, ...]], dict[str, bytes]]:
    """Run a node on a cluster worker: its files go to a scratch folder there; its results and its
    failure files (name -> bytes) come back as data."""
    grammar = job[0].path() if isinstance(job[0], GrammarText) else job[0]
    with tempfile.TemporaryDirectory(prefix="bonsai-node-") as scratch:
        stats, corpus = run_node(grammar, *job[1:7], Path(scratch), *job[8:])  # type: ignore[call-arg]  # mypy miscounts the slices of a tuple[Any, ...]
        failures = node_dir(Path(scratch), job[2]) / "failures"
        files = {f.name: f.read_bytes() for f in sorted(failures.iterdir())} if failures.is_dir() else {}
        return stats, corpus, files


def _run_job(job: tuple[Any, ...]) -> NodeResult:
    """`run_node` on a pool worker (the pool sends one argument per unit)."""
    return run_node(*job)


class NodeRunner:
    """Runs one generation's unfinished nodes: on a Dask cluster, on a process pool (made once, on first
    need, and kept for every later generation), or here."""

    def __init__(self, workers: int, cluster: Any) -> None:
        self.workers = workers
        self.cluster = cluster
        self.pool: Any = None
        self.grammars: dict[str, GrammarText | str] = {}  # path -> what a cluster job carries for it

    def run(self, jobs: list[tuple[Any, ...]]) -> Iterator[tuple[int, NodeResult]]:
        """(job index, result) of each job, as each finishes: progress is reported node by node."""
        if self.cluster is not None:
            for job in jobs:
                if job[0] not in self.grammars:
                    self.grammars[job[0]] = grammar_payload(job[0])
            sent = [(self.grammars[job[0]], *job[1:]) for job in jobs]
            for k, (stats, corpus, files) in self.cluster.map_unordered(remote_node, sent):
                out = jobs[k][7]
                # the client keeps the resumable record and the failing inputs, as a local node would have
                for name, data in files.items():
                    write_atomic(node_dir(out, stats.node) / "failures" / name, data)
                write_done(out, stats, corpus)
                yield k, (stats, corpus)
        elif self.workers > 1 and len(jobs) > 1:
            if self.pool is None:
                # one pool for the whole lattice: a spawned worker imports the toolkit and the target once
                self.pool = Processes(self.workers)
            for k, result in self.pool.map_unordered(_run_job, jobs):
                if isinstance(result, Lost):
                    # a node's worker died twice (the target crashed the interpreter): nothing to resume from
                    raise RuntimeError(f"node {jobs[k][2]} was lost: {result.reason} ({result.attempts} attempts)")
                yield k, result
        else:
            for k, job in enumerate(jobs):
                yield k, run_node(*job)

    def close(self) -> None:
        """Stop the pool, if one was made."""
        if self.pool is not None:
            self.pool.close()
            self.pool = None
