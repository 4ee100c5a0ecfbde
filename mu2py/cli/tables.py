"""`[tool.mu2py.COMMAND]`: any option of a command set in the project's pyproject.toml, the command line winning.

A key is an option's name with dashes as underscores (`--timeout-factor`: `timeout_factor`), checked
against the command's own parser: its type (the option's own conversion: `time = "2m"` is parsed as
`--time 2m` is), its choices, a flag as a boolean, a repeated option as a list.  `score` keeps its own
table (`target.project.COMMANDS`), which its Python API reads too.

Invariant: an option given on the command line is never overridden, and neither is one of a mutually
exclusive pair whose other member the command line gives (`trials = 500` in the table, `--time 1m` on the
command line: a budget of one minute); an unknown key or a wrong value is a `UserError` naming it.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mu2py.errors import UserError


def command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    """The subparser of `command`."""
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices[command]


def options(sub: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """The options a table may set, by key (positional arguments and --help excluded)."""
    return {a.dest: a for a in sub._actions if a.option_strings and a.dest not in ("help", "version")
            and a.default is not argparse.SUPPRESS}


def with_tables(parser: argparse.ArgumentParser, argv: Sequence[str], args: argparse.Namespace) -> argparse.Namespace:
    """`args` again, parsed from `argv` with the defaults `[tool.mu2py.COMMAND]` of the project root sets."""
    from mu2py.target.project import CLI_TABLES, load_config

    command = args.command
    if command not in CLI_TABLES:
        return args
    root = Path(getattr(args, "root", None) or ".")
    table = load_config(root).get(command)
    if not table:
        return args
    sub = command_parser(parser, command)
    known = options(sub)
    given = _given(sub, argv)
    where = f"{root / 'pyproject.toml'}: [tool.mu2py.{command}]"
    defaults: dict[str, Any] = {}
    for key, value in table.items():
        action = known.get(key)
        if action is None:
            near = difflib.get_close_matches(key, list(known), n=1)
            hint = f" (did you mean {near[0]}?)" if near else f" (known: {', '.join(sorted(known))})"
            raise UserError(f"{where}: unknown key {key}{hint}")
        converted = _value(where, key, value, action)
        if action.dest not in given and not _excluded(sub, action, given):
            defaults[action.dest] = converted
    sub.set_defaults(**defaults)
    again = parser.parse_args(argv)
    for name, value in vars(args).items():
        if not hasattr(again, name):
            setattr(again, name, value)  # what the caller added after parsing (the start of the budget)
    return again


def _given(sub: argparse.ArgumentParser, argv: Sequence[str]) -> set[str]:
    """The dests of the options `argv` names (`--time 2m`, `--time=2m`)."""
    words = [w.split("=", 1)[0] for w in argv if w.startswith("-")]
    return {a.dest for a in sub._actions if any(flag in words for flag in a.option_strings)}


def _excluded(sub: argparse.ArgumentParser, action: argparse.Action, given: set[str]) -> bool:
    for group in sub._mutually_exclusive_groups:
        if action in group._group_actions and any(a.dest in given for a in group._group_actions if a is not action):
            return True
    return False


def _value(where: str, key: str, value: Any, action: argparse.Action) -> Any:
    """`value` as the command line would give it to `action`, or a `UserError` saying what it must be."""
    if action.nargs == 0:  # a flag
        if not isinstance(value, bool):
            raise UserError(f"{where} {key} must be true or false, got {value!r}")
        return value if action.const is None else (action.const if value else action.default)
    many = action.nargs in ("+", "*", argparse.REMAINDER) or isinstance(action.nargs, int)
    if many:
        if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value) \
                or any(isinstance(v, bool) for v in value):
            raise UserError(f"{where} {key} must be a list, got {value!r}")
        return [_one(where, key, v, action) for v in value]
    return _one(where, key, value, action)


def _one(where: str, key: str, value: Any, action: argparse.Action) -> Any:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise UserError(f"{where} {key} must be a string or a number, got {value!r}")
    convert = action.type if callable(action.type) else str
    try:
        result = convert(str(value))
    except (ValueError, TypeError, argparse.ArgumentTypeError, UserError) as exc:
        raise UserError(f"{where} {key}: {exc or f'not a valid value: {value!r}'}") from None
    if action.choices is not None and result not in action.choices:
        raise UserError(f"{where} {key} must be one of {', '.join(map(str, action.choices))}, got {value!r}")
    return result
