"""Reading inputs for replay: corpus files (choice sequences), plain text files, Python literals."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mu2py.errors import UserError
from mu2py.inputs.source import InputSource

CHOICES_SUFFIX = ".bin"


@dataclass(frozen=True)
class LoadedInput:
    """One input to replay: a label (its file or literal) and the decoded value."""

    label: str
    value: Any


def _files(paths: Iterable[str]) -> list[Path]:
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            found = sorted(p for p in path.iterdir() if p.is_file() and not p.name.startswith("."))
            choice_files = [p for p in found if p.suffix == CHOICES_SUFFIX]
            chosen = choice_files or [p for p in found if p.suffix != ".json"]
            if not chosen:
                raise UserError(f"input directory {path} holds no input files")
            files.extend(chosen)
        elif path.is_file():
            files.append(path)
        elif path.exists():  # a FIFO, socket or device: reading it could block forever
            raise UserError(f"--input {raw} is not a regular file or a directory")
        else:
            raise UserError(f"--input {raw} does not exist")
    return files


def load_files(paths: Iterable[str], source: InputSource) -> list[LoadedInput]:
    """Decode `.bin` files with the driver's source; any other file is passed as its text."""
    loaded = []
    for path in _files(paths):
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise UserError(f"cannot read input {path}: {exc.strerror or exc}") from exc
        if not data:
            raise UserError(f"input file {path} is empty")
        if path.suffix == CHOICES_SUFFIX:
            try:
                choices = source.from_bytes(data)
            except (ValueError, IndexError, TypeError) as exc:
                raise UserError(f"input file {path} is not a choice sequence: {exc}") from exc
            decoded = source.decode(choices, random.Random(0))
            if decoded is None:
                raise UserError(f"input file {path} does not decode to a valid input for this driver")
            loaded.append(LoadedInput(str(path), decoded.value))
        else:
            try:
                loaded.append(LoadedInput(str(path), data.decode("utf-8")))
            except UnicodeDecodeError as exc:
                raise UserError(f"input file {path} is neither a .bin choice file nor UTF-8 text") from exc
    return loaded


def load_literals(literals: Iterable[str]) -> list[LoadedInput]:
    """Parse each string as a Python literal (`[3, 2, 1]`, `'text'`)."""
    loaded = []
    for text in literals:
        try:
            loaded.append(LoadedInput(f"--value {text}", ast.literal_eval(text)))
        except (ValueError, SyntaxError) as exc:
            raise UserError(f"--value {text!r} is not a Python literal") from exc
    return loaded
