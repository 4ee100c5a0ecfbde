"""Mutation guidance finds inputs that kill more mutants than coverage guidance, at equal trials.

Each campaign's corpus is judged by the same independent evaluator (`Analysis`, as
`mu2py mutate` does), on two parsers this project did not write.
"""

import pytest

from mu2py.analysis import Analysis
from mu2py.fuzzer import FuzzConfig, Fuzzer
from mu2py.mutants.catalog import Program
from mu2py.target import resolve_target


@pytest.mark.parametrize("spec", ["targets.json_decoder.driver:parse", "targets.toml.driver:parse"])
def test_mutation_guidance_kills_more(spec):
    target = resolve_target(spec)
    program = Program(target)
    killed = {}
    for guidance in ("coverage", "mutation"):
        result = Fuzzer(target, FuzzConfig(trials=250, seed=5, guidance=guidance), program=program).run()
        judge = Analysis(program, timeout=1.0)
        for entry in result.corpus:
            judge.analyse(entry.value, entry.name)
        killed[guidance] = len(judge.kills)
    assert killed["mutation"] > killed["coverage"], killed
