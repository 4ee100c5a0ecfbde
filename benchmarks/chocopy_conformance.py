"""ChocoPy conformance: compare the front end's JSON with the expected JSON of the shared test set.

`parse` scores parse/*.py with `--parse` output (the parse/ expectations end blocks at their
last child, the convention of chocopy-python-compiler's parser tests; bad_* files must give a
syntax error); `typecheck` scores typecheck/*.py against *.py.ast.typed (reference compiler
locations); a third line scores the untyped typecheck/*.py.ast files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

# the conformance data lives in shared/, beside the repository checkout
DATA = next(
    (p for p in (Path(__file__).resolve().parents[1].parent / "shared" / "chocopy-conformance",
                 Path("/work/shared/chocopy-conformance")) if p.is_dir()),
    Path(__file__).resolve().parents[1].parent / "shared" / "chocopy-conformance",
)


def _parse_json(source: str) -> Any:
    from targets.chocopy.parser import ChocoPySyntaxError, parse

    try:
        return parse(source, python_locations=True).to_json()
    except ChocoPySyntaxError as exc:
        return exc.to_json()


def _ref_parse_json(source: str) -> Any:
    from targets.chocopy.parser import ChocoPySyntaxError, parse

    try:
        return parse(source).to_json()
    except ChocoPySyntaxError as exc:
        return exc.to_json()


def _typed_json(source: str) -> Any:
    from targets.chocopy.driver import typecheck
    from targets.chocopy.parser import ChocoPySyntaxError

    try:
        return typecheck(source)
    except ChocoPySyntaxError as exc:
        return exc.to_json()


def _is_syntax_error(out: Any) -> bool:
    errs = out.get("errors", {}).get("errors", [])
    return any(e.get("syntax") for e in errs)


def run_parse(data: Path) -> tuple[list[str], list[str]]:
    """Check every parse/*.py; return (passed, failed) file names."""
    passed, failed = [], []
    for src in sorted((data / "parse").glob("*.py")):
        expected_file = src.with_name(src.name + ".ast")
        try:
            out = _parse_json(src.read_text())
        except Exception as exc:  # noqa: BLE001
            out = {"crash": repr(exc)}
        if expected_file.exists():
            ok = out == json.loads(expected_file.read_text())
        else:
            ok = "crash" not in out and _is_syntax_error(out)
        (passed if ok else failed).append(src.name)
    return passed, failed


def run_typecheck(data: Path) -> tuple[list[str], list[str]]:
    """Check every typecheck/*.py that has a .ast.typed file; return (passed, failed) names."""
    passed, failed = [], []
    for expected_file in sorted((data / "typecheck").glob("*.py.ast.typed")):
        src = expected_file.with_name(expected_file.name[: -len(".ast.typed")])
        try:
            out = _typed_json(src.read_text())
        except Exception as exc:  # noqa: BLE001
            out = {"crash": repr(exc)}
        ok = out == json.loads(expected_file.read_text())
        (passed if ok else failed).append(src.name)
    return passed, failed


def run_reference_parse(data: Path) -> tuple[list[str], list[str]]:
    """Check typecheck/*.py.ast (untyped ASTs with the reference compiler's block locations)."""
    passed, failed = [], []
    for expected_file in sorted((data / "typecheck").glob("*.py.ast")):
        src = expected_file.with_name(expected_file.name[: -len(".ast")])
        try:
            out = _ref_parse_json(src.read_text())
        except Exception as exc:  # noqa: BLE001
            out = {"crash": repr(exc)}
        ok = out == json.loads(expected_file.read_text())
        (passed if ok else failed).append(src.name)
    return passed, failed


def _line(label: str, passed: list[str], failed: list[str]) -> str:
    total = len(passed) + len(failed)
    pct = 100.0 * len(passed) / total if total else 0.0
    return f"{label}: {len(passed)}/{total} ({pct:.1f}%)"


def main(argv: list[str] | None = None) -> int:
    """Print the conformance figures (and failing files with -v)."""
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("-v", "--verbose", action="store_true", help="list failing files")
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    runners = (
        ("parse", "parse", run_parse),
        ("typecheck", "typecheck", run_typecheck),
        ("parse (reference locations, typecheck/*.py.ast)", "typecheck-untyped", run_reference_parse),
    )
    for label, short, runner in runners:
        passed, failed = runner(args.data)
        print(_line(label, passed, failed))
        if args.verbose:
            for name in failed:
                print(f"  FAIL {short}/{name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
