"""The probed source keeps the file's line numbers, so the probed and plain copies share one coverage key space."""

from __future__ import annotations

import ast

import pytest

from mu2py.engine.runs import run
from mu2py.feedback.coverage import CoverageMap
from mu2py.mutants.catalog import Program
from mu2py.mutants.instrument import instrument
from mu2py.mutants.operators import find_mutations
from mu2py.mutants.sites import find_sites
from mu2py.target.modules import read_module, resolve_target


def _statement_lines(source: str) -> list[int]:
    """Every statement's line, leaving out the statement probes the instrumenter adds on a line of its own."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.stmt):
            continue
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and getattr(node.value.func, "id", "") == "__mu2_stmt__"):
            continue
        lines.append(node.lineno)
    return sorted(lines)


def _probed(name: str) -> tuple[str, str]:
    info = read_module(name)
    parsed = find_mutations(info.source, info.file, ())
    sites = find_sites(parsed)
    return info.source, instrument(parsed.module, sites, {s.index: s.index for s in sites})


# each of these once shifted lines: operands split over lines (urllib.parse), a parenthesized operand of
# `or` broken after its `(` (ipaddress), a parenthesized multi-line `if` header (argparse), `return(x)` (email)
@pytest.mark.parametrize("name", ["urllib.parse", "ipaddress", "argparse", "email.utils", "json.decoder",
                                  "tomllib._parser"])
def test_probes_keep_every_statement_on_its_line(name):
    original, probed = _probed(name)
    assert _statement_lines(probed) == _statement_lines(original)


def test_probed_and_plain_copies_report_the_same_coverage_keys():
    target = resolve_target("targets.urlparse.driver:split")
    program = Program(target)
    texts = ["http://u@h:80/p;q?a=1&b=%41#f", "//[::1]/x", "mailto:x@y", "a%2Bb+c", "ftp://[v1.x]/", ""]

    def keys(probed: bool) -> set:
        # one map at a time: on Python >= 3.12 slipcover's sys.monitoring tool belongs to the newest instance
        coverage = CoverageMap()
        fn = program.probed(transform=coverage.compile)[0] if probed else coverage.driver(target)
        coverage.collect()  # the module bodies ran at import
        for text in texts:
            run(fn, text, None)
            coverage.collect()
        return coverage.seen

    plain = keys(False)
    assert len(plain) > 100
    assert keys(True) == plain
