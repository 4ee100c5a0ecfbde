"""A function returning an argparse parser: an output full of callables, classes and back references."""

import argparse


def make_parser(prog: str) -> argparse.ArgumentParser:
    """A parser with two arguments, as a command-line module's factory would build it."""
    parser = argparse.ArgumentParser(prog=prog)
    parser.add_argument("--level", type=int, default=0)
    parser.add_argument("name")
    return parser
