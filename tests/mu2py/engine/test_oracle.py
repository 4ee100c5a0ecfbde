"""The oracle's comparison: linear, cycle-safe, no recursion limit, bounded; undecided never kills."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from mu2py.engine.oracle import KillReason, default_compare, kill_reason
from mu2py.engine.runs import RunResult, Status, run

ODD = Path(__file__).resolve().parents[2] / "data" / "corpus_odd"


def _nested(levels, leaf=0):
    value = [leaf]
    for _ in range(levels):
        value = [value]
    return value


def _returned(output):
    return RunResult(Status.OK, output=output)


def test_parsers_compare_in_linear_time():
    # semver.cli.createparser-like output: the old recursive normalisation ran for minutes and gigabytes
    code = textwrap.dedent("""
        from odd_pkg.cli import make_parser
        from mu2py.engine.oracle import default_compare
        a, b, c = make_parser("x"), make_parser("x"), make_parser("y")
        print(default_compare(a, b), default_compare(a, c))
    """)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ODD), *sys.path]))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=30)
    assert proc.stdout.split() == ["True", "False"], proc.stderr


def test_deep_outputs_are_compared_not_killed():
    deep, same, other = _nested(2000), _nested(2000), _nested(2000, leaf=1)
    assert kill_reason(_returned(deep), _returned(same)) is None  # `==` raises RecursionError here
    assert kill_reason(_returned(deep), _returned(other)) is KillReason.OUTPUT


class Node:
    def __init__(self, label):
        self.label = label
        self.next = self


def test_cycles_and_classes_of_module_copies():
    a, b = Node("a"), Node("a")
    assert a != b and default_compare(a, b) and not default_compare(a, Node("b"))
    ring_a, ring_b = [], []
    ring_a.append(ring_a)
    ring_b.append(ring_b)
    assert default_compare(ring_a, ring_b)
    # functions and bound methods are compared by name, never by their (different) addresses
    assert default_compare([len, Node("x").__init__], [len, Node("y").__init__])


def test_too_big_to_compare_is_undecided_and_survives():
    from mu2py.engine.oracle import compare

    many_a, many_b = [Node(i) for i in range(100)], [Node(i) for i in range(100)]
    assert compare(many_a, many_b, max_nodes=50) is None
    assert default_compare(many_a, many_b) is True


def test_uncopyable_inputs_run():
    # deepcopy raises RecursionError on the first and TypeError (pickling) on the second
    assert run(lambda v: 1, _nested(5000), None).status is Status.OK
    assert run(lambda v: sorted(v), {"b": 2, "a": 1}.values(), None).output == [1, 2]


def test_a_message_kills_only_when_messages_are_compared():
    original = RunResult(Status.EXCEPTION, exc_type="ValueError", exc_message="mean of nothing")
    other_message = RunResult(Status.EXCEPTION, exc_type="ValueError", exc_message="XXmean of nothingXX")
    same_message = RunResult(Status.EXCEPTION, exc_type="ValueError", exc_message="mean of nothing")
    assert kill_reason(original, other_message) is None  # by default, an exception is judged by its type
    assert kill_reason(original, other_message, messages=True) is KillReason.EXCEPTION
    assert kill_reason(original, same_message, messages=True) is None
    # the implicit oracle judges no difference in what both raised
    assert kill_reason(original, other_message, differential=False, messages=True) is None
