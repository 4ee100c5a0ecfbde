"""Joining words in the current language, and numbers in words."""

import threading

_AND = {"en": " and ", "fr": " et "}
_CURRENT = threading.local()


def activate(lang):
    _CURRENT.lang = lang


def deactivate():
    _CURRENT.lang = "en"


def join_words(items):
    items = [str(x) for x in items]
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + _AND[getattr(_CURRENT, "lang", "en")] + items[-1]


def describe(n):
    if n < 0:
        return "minus " + str(-n)
    return str(n)
