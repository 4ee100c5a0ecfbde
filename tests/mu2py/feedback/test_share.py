"""The adaptive mutant share: bounded, and following the measured yields."""

from hypothesis import given
from hypothesis import strategies as st

from mu2py.feedback.share import HIGH, LOW, MutantShare


def test_share_starts_even_and_follows_the_better_yield():
    share = MutantShare.fresh()
    assert share.share == min(0.5, HIGH)  # equal priors, within the bounds
    share.mutants.kills += 30  # mutant runs on neutral inputs earn 30 kills in 2 s ...
    share.mutants.seconds += 2
    share.explore.seconds += 10  # ... exploration earns none in 10 s
    assert share.share == HIGH
    for _ in range(200):  # then only exploration earns: the old measure fades
        share.decay()
        share.explore.kills += 5
        share.explore.seconds += 1
        share.mutants.seconds += 0.2
    assert share.share == LOW


@given(st.lists(st.tuples(st.sampled_from(["explore", "mutants", "decay"]), st.integers(0, 50),
                          st.floats(0, 100, allow_nan=False))))
def test_share_stays_within_its_bounds(events):
    share = MutantShare.fresh()
    for use, kills, seconds in events:
        if use == "decay":
            share.decay()
        else:
            spent = getattr(share, use)
            spent.kills += kills
            spent.seconds += seconds
        assert LOW <= share.share <= HIGH
