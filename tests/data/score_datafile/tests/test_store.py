from pathlib import Path

from data_pkg import store

DATA = Path(__file__).parent / "greeting.txt"


def test_tidy_keeps():
    # the mutant `if keep:` deletes the file the other tests read
    assert store.tidy(DATA) == "kept"


def test_greeting():
    assert store.greeting(DATA) == "hello"


def test_pad():
    assert store.pad(store.greeting(DATA)).startswith("hello")
