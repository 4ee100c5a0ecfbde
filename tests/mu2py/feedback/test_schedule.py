"""The shared schedule: parents by energy, donors, and the least-executed order of mutant runs."""

import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from mu2py.feedback.schedule import Energy, donor, least_executed_first


@given(st.integers(0, 30), st.integers(0, 5), st.integers(0, 2**32),
       st.sampled_from([Energy(), Energy(newest=0.25, favored=0.35), Energy(newest=1.0)]))
def test_a_parent_is_a_kept_input_and_the_seed_decides_it(n, f, seed, energy):
    kept = [f"k{i}" for i in range(n)]
    favored = kept[:f]
    picks = [energy.parent(random.Random(seed), kept, favored) for _ in range(2)]
    assert picks[0] == picks[1]
    assert (picks[0] in kept) if kept else picks[0] is None


def test_energy_shares_are_what_they_say():
    rng, kept, favored = random.Random(1), list(range(10)), [0]
    energy = Energy(newest=0.25, favored=0.35)
    picks = [energy.parent(rng, kept, favored) for _ in range(20_000)]
    newest, first = picks.count(9) / len(picks), picks.count(0) / len(picks)
    assert 0.25 < newest < 0.25 + 0.40 / 10 + 0.02  # newest by its share, and as any input of the rest
    assert 0.35 < first < 0.35 + 0.40 / 10 + 0.02  # the one favored input likewise
    assert Energy().parent(rng, kept, []) in kept  # no favored input: any kept one


def test_a_donor_needs_two_kept_inputs():
    rng = random.Random(0)
    assert donor(rng, []) is None and donor(rng, ["a"]) is None
    assert donor(rng, ["a", "b"]) in ("a", "b")


@given(st.lists(st.integers(0, 5), max_size=20))
def test_least_executed_first_orders_by_runs_then_index(runs):
    indices = list(reversed(range(len(runs))))
    ordered = least_executed_first(indices, runs)
    assert sorted(ordered) == sorted(indices)
    assert [(runs[i], i) for i in ordered] == sorted((runs[i], i) for i in indices)
    assert least_executed_first(indices, Counter(dict(enumerate(runs)))) == ordered  # a Counter too (missing: 0)
    assert least_executed_first(indices, Counter()) == sorted(indices)
