"""The sample's weak suite: it builds accounts but never looks at what a constructor left besides the owner."""

from acct_pkg.account import Account


def test_owner_is_stripped():
    assert Account(" ann ").owner == "ann"


def test_deposit():
    assert Account("bob", 5).deposit(1) == 6
