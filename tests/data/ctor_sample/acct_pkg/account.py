"""An account whose constructor checks and normalises what it is given, and whose deposits pay a private fee."""


def _fee(amount):
    return amount // 100 if amount > 1000 else 0


class Account:
    def __init__(self, owner, balance=0):
        if balance < 0:
            raise ValueError("negative balance")
        self.owner = owner.strip()
        self.balance = balance
        self.history = [balance] if balance else []

    def deposit(self, amount):
        self.balance += amount - _fee(amount)
        return self.balance
