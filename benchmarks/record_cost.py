"""What a score worker's record of the code each test runs (`units._executed`) costs: trace function vs sys.monitoring.

    python benchmarks/record_cost.py [--rounds 3] [--examples 300]

Writes a toy project (an RFC 3339 timestamp validator, three Hypothesis property tests and two plain
ones, in the manner of rfc3339-validator's suite), hosts its suite in this process as a score worker does
(`session.host`), records it once to warm up, then `--rounds` times each way, alternating: under the
global trace function (3.11's only way), under the sys.monitoring tool (3.12+), and with no hook at all
(the same tests run the same way, for the floor).  Prints the CPU seconds of each record
(`time.process_time`, which a loaded machine disturbs less than wall time), the best of each way and
their ratios, after checking that both ways record the same code objects per test.  Needs Python 3.12+.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

VALIDATOR = '''import re

PATTERN = re.compile(r"^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?([Zz]|[+-]\\d{2}:\\d{2})$")


def leap(year):
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def days_in_month(year, month):
    if month == 2:
        return 29 if leap(year) else 28
    return 30 if month in (4, 6, 9, 11) else 31


def offset_ok(text):
    if text in ("Z", "z"):
        return True
    hours, minutes = int(text[1:3]), int(text[4:6])
    return hours < 24 and minutes < 60


def validate(text):
    found = PATTERN.match(text)
    if found is None:
        return False
    year, month, day, hour, minute, second = (int(found.group(k)) for k in range(1, 7))
    if not 1 <= month <= 12 or not 1 <= day <= days_in_month(year, month):
        return False
    return hour < 24 and minute < 60 and second < 60 and offset_ok(found.group(8))


def format_timestamp(moment, offset_minutes):
    sign = "+" if offset_minutes >= 0 else "-"
    hours, minutes = divmod(abs(offset_minutes), 60)
    zone = "Z" if offset_minutes == 0 else f"{sign}{hours:02d}:{minutes:02d}"
    return moment.strftime("%Y-%m-%dT%H:%M:%S") + zone
'''
TESTS = '''from datetime import datetime

from hypothesis import given, settings, strategies as st

from stamp_pkg.validator import days_in_month, format_timestamp, validate

EXAMPLES = settings(max_examples={examples}, database=None, derandomize=True, deadline=None)


@EXAMPLES
@given(st.datetimes(min_value=datetime(1000, 1, 1)), st.integers(-23 * 60, 23 * 60))
def test_formatted_timestamps_validate(moment, offset):
    assert validate(format_timestamp(moment, offset))


@EXAMPLES
@given(st.text())
def test_any_text_is_judged(text):
    assert validate(text) in (True, False)


@EXAMPLES
@given(st.integers(1, 9999), st.integers(1, 12))
def test_month_lengths(year, month):
    assert 28 <= days_in_month(year, month) <= 31


def test_leap_day():
    assert validate("2000-02-29T00:00:00Z") and not validate("1900-02-29T00:00:00Z")


def test_offsets():
    assert validate("2020-01-01T10:00:00+05:30") and not validate("2020-01-01T10:00:00+25:00")
'''


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--examples", type=int, default=300, help="max_examples of each property test")
    args = parser.parse_args()
    if sys.version_info < (3, 12):
        sys.exit("sys.monitoring needs Python 3.12+")
    from mu2py.score import hosted, runner, session, units
    from mu2py.score.spec import SuiteSpec

    root = Path(tempfile.mkdtemp(prefix="record_cost")) / "project"
    (root / "stamp_pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "stamp_pkg" / "__init__.py").write_text("")
    (root / "stamp_pkg" / "validator.py").write_text(VALIDATOR)
    (root / "tests" / "test_validator.py").write_text(TESTS.format(examples=args.examples))
    spec = SuiteSpec(root=str(root), pytest_args=("tests",), modules=("stamp_pkg.validator",),
                     files=(str(root / "stamp_pkg" / "validator.py"),), sys_path=(str(root),))
    seconds: dict[str, list[float]] = {"no hook": [], "settrace": [], "monitoring": []}
    records: dict[str, Any] = {}
    problems: list[str] = []

    def record(way: str) -> None:
        state = hosted.state()
        units.MONITORED = way == "monitoring"
        state.executed = None
        start = time.process_time()
        if way == "no hook":  # the suite as a record runs it, each test from its fresh start
            for item in state.order:
                runner.run_test(item, None)
        else:
            records[way] = units._executed(state)
        seconds[way].append(time.process_time() - start)

    def serve() -> None:
        state = hosted.state()
        if state.error:
            problems.append(state.error)
            return
        record("settrace")  # warm-up: imports, Hypothesis's caches
        seconds["settrace"].clear()
        for _ in range(args.rounds):
            for way in seconds:
                record(way)
        if records["settrace"] != records["monitoring"]:
            problems.append("the two ways recorded different code objects")

    cwd = os.getcwd()
    try:
        session.host(spec, serve)
    finally:
        os.chdir(cwd)
    if problems:
        sys.exit("; ".join(problems))
    print(f"Python {sys.version.split()[0]}, {len(records['settrace'])} tests, {args.examples} examples per "
          "property test, CPU seconds per record")
    for way, taken in seconds.items():
        print(f"  {way:<10} " + "  ".join(f"{t:.2f}" for t in taken) + f"   best {min(taken):.2f}")
    print(f"monitoring / no hook: {min(seconds['monitoring']) / min(seconds['no hook']):.2f}x")
    print(f"settrace / monitoring: {min(seconds['settrace']) / min(seconds['monitoring']):.2f}x")


if __name__ == "__main__":
    main()
