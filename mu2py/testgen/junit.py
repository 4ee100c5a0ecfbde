"""pytest's JUnit XML read back: one outcome per test case, the way generated tests are checked in a fresh session."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class CaseOutcome:
    """One `<testcase>`: its class path and name (`test_f[case]` for a parametrized one), how it ended
    (`passed`, `failure`, `error` or `skipped`), and the message of a failure or error."""

    classname: str
    name: str
    outcome: str
    message: str = ""

    @property
    def module_stem(self) -> str:
        """The last part of the class path: the test module's stem for a module-level test function."""
        return self.classname.rpartition(".")[2]


def read_junit(xml: Path) -> list[CaseOutcome] | None:
    """The test cases of a JUnit XML file, in order; None when there is no such file (pytest did not run)."""
    if not xml.is_file():
        return None
    cases = []
    for case in ElementTree.parse(xml).iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):  # a failing test whose teardown errs is a failure first
            found = case.find(tag)
            if found is not None:
                outcome, message = tag, found.get("message", "")
                break
        cases.append(CaseOutcome(case.get("classname", ""), case.get("name", ""), outcome, message))
    return cases
