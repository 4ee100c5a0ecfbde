"""Command line: `python -m targets.chocopy [--parse] FILE.py` prints the (typed) AST JSON."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from targets.chocopy.parser import ChocoPySyntaxError, parse
from targets.chocopy.typecheck import check_program


def main(argv: list[str] | None = None) -> int:
    """Print the typed AST of FILE (or with --parse the untyped AST) as JSON."""
    ap = argparse.ArgumentParser(prog="python -m targets.chocopy", description=__doc__)
    ap.add_argument("file", type=Path)
    ap.add_argument("--parse", action="store_true", help="only parse; print the untyped AST")
    ap.add_argument(
        "--reference-locations",
        action="store_true",
        help="with --parse: end blocks at the reference compiler's NEWLINE/DEDENT positions "
        "(the typed output always does) instead of at their last child",
    )
    args = ap.parse_args(argv)
    source = args.file.read_text()
    try:
        if args.parse:
            program = parse(source, python_locations=not args.reference_locations)
        else:
            program = parse(source)
            check_program(program)
        out = program.to_json()
    except ChocoPySyntaxError as exc:
        out = exc.to_json()
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
