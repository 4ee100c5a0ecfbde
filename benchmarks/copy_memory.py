"""Memory of the engine's import-time mutant copy sets: builds every one of a target's, prints the RSS per set.

Usage: python benchmarks/copy_memory.py [TARGET:DRIVER ...]   (default: tomllib and the json decoder)
"""

from __future__ import annotations

import gc
import sys

from mu2py.engine.engine import Engine
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target


def rss_mb() -> float:
    """Resident memory of this process, in MB."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096 / 1e6


def main() -> None:
    for spec in sys.argv[1:] or ["targets.toml.driver:parse", "targets.json_decoder.driver:parse"]:
        program = Program(resolve_target(spec))
        engine = Engine(program.target, copy_cache=10**6)
        copies = [i for i in range(len(program.mutants)) if program.payload(i).kind == "copy"]
        engine.add([program.payload(i) for i in copies])
        gc.collect()
        before = rss_mb()
        for index in copies:
            engine._copy_set(engine.payloads[index])
        gc.collect()
        grown = rss_mb() - before
        print(f"{spec}: {len(copies)} copy sets, {grown:.1f} MB, {1000 * grown / max(len(copies), 1):.0f} KB each; "
              f"at the bound of 256: {256 * grown / max(len(copies), 1):.1f} MB")


if __name__ == "__main__":
    main()
