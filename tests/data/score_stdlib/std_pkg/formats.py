"""Subclasses configured by class attributes: json's encoder reads them in Python, csv's writer in C."""

import csv
import io
import json


class Compact(json.JSONEncoder):
    item_separator = ","
    key_separator = ":"


class Semicolon(csv.excel):
    delimiter = ";"


class Settings:
    # read by no code at all: no test can tell a mutant of it
    unused = "x"


def to_json(value):
    return json.dumps(value, cls=Compact)


def to_csv(rows):
    out = io.StringIO()
    csv.writer(out, dialect=Semicolon, lineterminator="\n").writerows(rows)
    return out.getvalue()
