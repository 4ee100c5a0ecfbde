"""English plurals for a few nouns: a table-driven module, as the tests that drive it."""

import warnings

IRREGULAR = {"person": "people", "child": "children"}


def plural(word):
    if word in IRREGULAR:
        return IRREGULAR[word]
    if word.endswith("s"):
        return word + "es"
    return word + "s"


def shout(word):
    if not word:
        warnings.warn("nothing to shout", UserWarning)
    return word.upper() + "!"


def article(word):
    return "an" if word[0] in "aeiou" else "a"


def repeat(word, times):
    out = ""
    while times > 0:
        out += word
        times -= 1
    return out


def dashed(word):
    import itertools

    return "".join(itertools.chain.from_iterable(zip(word, itertools.repeat("-"))))
