"""The likely-equivalent ranking: most infections without a kill first; unreached survivors only counted."""

from collections import Counter

from mu2py.survivors.equivalents import rank


def test_rank_orders_by_evidence():
    alive = [{"id": i, "file": "m.py", "line": n, "original": "a", "mutated": "b"}
             for n, i in enumerate(["few", "many", "unreached", "reached_only"])]
    reached = Counter({"few": 10, "many": 5, "reached_only": 50})
    infected = Counter({"few": 2, "many": 5})
    runs = Counter({"few": 2, "many": 5})
    likely, unreached = rank(alive, reached, infected, runs)
    assert [e.id for e in likely] == ["many", "few", "reached_only"]
    assert unreached == 1
    assert likely[0].to_json()["infected"] == 5
