"""Reading a greeting from a file, and tidying it away."""

import os


def greeting(path):
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def tidy(path, keep=True):
    if not keep:
        os.remove(path)
    return "kept"


def pad(text, width=2):
    return text + "." * width
