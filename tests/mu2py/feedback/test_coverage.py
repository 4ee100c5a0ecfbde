"""Coverage collection: locations slipcover de-instruments on its own are still counted, once."""

from bonsai.target import function_target
from mu2py.engine.runs import run
from mu2py.feedback.coverage import CoverageMap, corpus_coverage

TARGET = "targets.json_decoder.driver:parse"
# a long array runs the decoder's loop lines far past slipcover's de-instrumentation threshold (50 hits)
HOT = "[" + ",".join(['"a"'] * 120) + "]"
TEXTS = ['{"a": [1, 2.5, "x"]}', HOT, "true", '"\\u00e9"', "[{}]", "nul"]


def _total(coverage, texts, collect_each):
    fn = coverage.driver(function_target(TARGET, None))
    coverage.collect()
    for text in texts:
        run(fn, text, None)
        if collect_each:
            coverage.collect()
    coverage.collect()
    return len(coverage)


def test_collect_once_equals_collect_after_each_input():
    each = _total(CoverageMap(), TEXTS, True)
    once = _total(CoverageMap(), TEXTS, False)
    assert each == once > 150


def test_corpus_coverage_does_not_depend_on_order():
    target = function_target(TARGET, None)
    forward = corpus_coverage(target, TEXTS)
    assert forward == corpus_coverage(target, list(reversed(TEXTS)))
    assert corpus_coverage(target, TEXTS[:1]) < forward
