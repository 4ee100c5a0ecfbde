"""Mutation analysis split into shards of mutants, run on any executor and merged on the client.

A shard is data: the target spec, the source hash of every module under test, the inputs
(label and decoded value) and the mutant indices to judge.  Every mutant sees the inputs
in the same order under the same selection rule as in one process, so the merged kills
(which input, which reason) equal the single-process result.
"""

from __future__ import annotations

from typing import Any

from mu2py.engine.oracle import KillReason
from mu2py.errors import UserError
from mu2py.feedback.analysis import Analysis, Kill
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

_PROGRAMS: dict[tuple[str, tuple[str, ...] | None], Program] = {}


def _program(spec: str, prefixes: tuple[str, ...] | None) -> Program:
    # a worker judges many shards of one target: discover its mutants and build copies once
    key = (spec, prefixes)
    if key not in _PROGRAMS:
        _PROGRAMS.clear()
        _PROGRAMS[key] = Program(resolve_target(spec, prefixes))
    return _PROGRAMS[key]


def mutate_shard(unit: dict[str, Any]) -> dict[str, Any]:
    """Judge one shard of mutants on every input (runs on a worker)."""
    program = _program(unit["spec"], unit["prefixes"])
    hashes = {m.name: m.source_hash for m in program.target.modules}
    if hashes != unit["hashes"]:
        return {"error": "the worker's copy of the target differs from the client's (install the same version)"}
    analysis = Analysis(program, pruning=unit["pruning"], timeout=unit["timeout"], only=frozenset(unit["shard"]),
                        memory_mb=unit.get("memory_mb", 4096))
    try:
        for label, value in unit["inputs"]:
            analysis.analyse(value, label)
    finally:
        analysis.close()
    return {"kills": {i: (k.input, k.reason.value, k.detail) for i, k in analysis.kills.items()},
            "reached": sorted(analysis.reached), "runs": analysis.mutant_runs}


def shard_indices(total: int, shards: int) -> list[list[int]]:
    """Mutant indices dealt round-robin into at most `shards` non-empty shards (neighbours share work)."""
    shards = max(1, min(shards, total))
    return [list(range(k, total, shards)) for k in range(shards)]


def mutate_sharded(analysis: Analysis, spec: str, prefixes: tuple[str, ...] | None, inputs: list[tuple[str, Any]],
                   pool: Any, shards: int) -> None:
    """Fill `analysis` (the client's, over the same program) with the kills of every shard run on `pool`."""
    program = analysis.program
    hashes = {m.name: m.source_hash for m in program.target.modules}
    units = [{"spec": spec, "prefixes": prefixes, "hashes": hashes, "inputs": inputs, "shard": shard,
              "pruning": analysis.pruning, "timeout": analysis.timeout, "memory_mb": analysis.memory_mb}
             for shard in shard_indices(len(program.mutants), shards)]
    for _, result in pool.map_unordered(mutate_shard, units):
        if not isinstance(result, dict) or "error" in result:
            raise UserError(result.get("error") if isinstance(result, dict) else f"a shard was lost: {result}")
        analysis.reached.update(result["reached"])
        analysis.mutant_runs += result["runs"]
        for index, (label, reason, detail) in sorted(result["kills"].items()):
            analysis.add_kill(int(index), Kill(label, KillReason(reason), detail))
