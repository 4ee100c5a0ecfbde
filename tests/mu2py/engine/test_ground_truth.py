"""The engine's verdicts equal those of a fresh import per mutant, on a target with a C accelerator (json).

The ground truth forks a process per mutant in which the target's modules are imported anew, the
mutated one from its mutated source under its real name: there is one module per name, as in a
user's program, so the C scanner (`_json.scanstring`) raises the very JSONDecodeError the driver
catches.  The engine runs copies instead, and must reach the same verdict on every mutant.
"""

import pytest

from mu2py.engine.engine import LocalRunner
from mu2py.engine.oracle import KillReason
from mu2py.feedback.analysis import Analysis
from mu2py.mutants.catalog import Program
from mu2py.target.modules import resolve_target

SPEC = "targets.json_decoder.driver:parse"
FRESH = ("json", "targets")  # imported anew per run: the json package and the driver bound to it


def _fresh_original(fresh_result, tmp_path, value):
    result = fresh_result(SPEC, FRESH, tmp_path, value, timeout=2.0)
    assert not isinstance(result, KillReason), "the original crashed in a fresh process"
    return result


@pytest.fixture(scope="module")
def json_world():
    target = resolve_target(SPEC)
    program = Program(target)
    return target, program, LocalRunner(program)


@pytest.mark.parametrize("value", ['{"', '[1, {"k": tru'])
def test_probed_original_equals_a_fresh_import(json_world, value, fresh_result, tmp_path):
    _, program, _ = json_world
    original, _, _ = Analysis(program, isolation="none").run_original(value)
    fresh = _fresh_original(fresh_result, tmp_path, value)
    assert (original.status, original.output, original.exc_type) == (fresh.status, fresh.output, fresh.exc_type)


def test_engine_verdicts_equal_a_fresh_import_per_mutant(json_world, fresh_result, fresh_truth, tmp_path):
    target, program, runner = json_world
    value = '{"a'  # a key string: scanned by the C scanstring, which raises through sys.modules
    analysis = Analysis(program, pruning="execution", static_per_input=None, isolation="none")
    original, reached, infected = analysis.run_original(value)
    fresh_original = _fresh_original(fresh_result, tmp_path, value)
    assert original.status == fresh_original.status and original.output == fresh_original.output
    indices = analysis.select(reached, infected).run
    assert len(indices) > 100
    verdicts = {v.index: v.reason for v in runner.judge(value, indices, 2.0)}
    ids = [program.mutants[i].id for i in indices]
    truth = fresh_truth(SPEC, program, tmp_path, [value], ids, timeout=2.0, packages=("json",))
    wrong = [(program.mutants[i].id, truth[program.mutants[i].id], verdicts[i]) for i in indices
             if (truth[program.mutants[i].id] is None) != (verdicts[i] is None)]
    assert not wrong, f"{len(wrong)} of {len(indices)} verdicts differ from a fresh import: {wrong[:5]}"
