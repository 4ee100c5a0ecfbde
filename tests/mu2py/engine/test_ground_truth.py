"""The engine's verdicts equal those of a fresh import per mutant, on a target with a C accelerator (json).

The ground truth forks a process per mutant in which the target's modules are imported anew, the
mutated one from its mutated source under its real name: there is one module per name, as in a
user's program, so the C scanner (`_json.scanstring`) raises the very JSONDecodeError the driver
catches.  The engine runs copies instead, and must reach the same verdict on every mutant.
"""

import importlib.abc
import importlib.util
import os
import pickle
import sys

import pytest

from mu2py.analysis import Analysis
from mu2py.engine.engine import LocalRunner
from mu2py.engine.oracle import kill_reason
from mu2py.engine.runs import run
from mu2py.mutants.catalog import Program
from mu2py.target import resolve_target

SPEC = "targets.json_decoder.driver:parse"
FRESH = ("json", "json.decoder", "json.scanner", "json.encoder")


class _SourceFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def __init__(self, name: str, source: str, filename: str) -> None:
        self.name, self.source, self.filename = name, source, filename

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_loader(fullname, self, origin=self.filename)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = self.filename
        exec(compile(self.source, self.filename, "exec"), module.__dict__)


def _fresh_run(value, module: str | None = None, source: str | None = None, filename: str = ""):
    """RunResult of the driver on `value` in a forked process that imports the target anew (one mutated module)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            for name in FRESH:
                sys.modules.pop(name, None)
            if module is not None:
                sys.meta_path.insert(0, _SourceFinder(module, source, filename))
            try:
                # the driver's body only binds strategies: re-running it would add nothing but time, so its two
                # module references are pointed at the fresh modules instead
                import targets.json_decoder.driver as driver

                driver.decoder = importlib.import_module("json.decoder")
                driver.scanner = importlib.import_module("json.scanner")
                result = run(driver.parse, value, 2.0)
            except Exception as exc:  # noqa: BLE001 - the mutated module raised on import: an exception kill
                from mu2py.engine.runs import RunResult, Status, exc_name

                result = RunResult(Status.EXCEPTION, exc_type=exc_name(exc), exc_message=str(exc)[:200])
            os.write(write, pickle.dumps(result))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as fh:
        data = fh.read()
    os.waitpid(pid, 0)
    return pickle.loads(data)


@pytest.fixture(scope="module")
def json_world():
    target = resolve_target(SPEC)
    program = Program(target)
    return target, program, LocalRunner(program)


@pytest.mark.parametrize("value", ['{"', '[1, {"k": tru'])
def test_probed_original_equals_a_fresh_import(json_world, value):
    _, program, _ = json_world
    original, _, _ = Analysis(program, isolation="none").run_original(value)
    fresh = _fresh_run(value)
    assert (original.status, original.output, original.exc_type) == (fresh.status, fresh.output, fresh.exc_type)


def test_engine_verdicts_equal_a_fresh_import_per_mutant(json_world):
    target, program, runner = json_world
    value = '{"a'  # a key string: scanned by the C scanstring, which raises through sys.modules
    analysis = Analysis(program, pruning="execution", static_per_input=None, isolation="none")
    original, reached, infected = analysis.run_original(value)
    fresh_original = _fresh_run(value)
    assert original.status == fresh_original.status and original.output == fresh_original.output
    indices = analysis.select(reached, infected).run
    assert len(indices) > 100
    verdicts = {v.index: v.reason for v in runner.judge(value, indices, 2.0)}
    wrong = []
    for index in indices:
        mutant = program.mutants[index]
        info = program.module_of(mutant.id)
        truth = kill_reason(fresh_original,
                            _fresh_run(value, info.name, program.mutant_source(mutant.id), info.file),
                            target.driver.compare)
        if (truth is None) != (verdicts[index] is None):
            wrong.append((mutant.id, truth, verdicts[index]))
    assert not wrong, f"{len(wrong)} of {len(indices)} verdicts differ from a fresh import: {wrong[:5]}"
