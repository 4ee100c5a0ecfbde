"""An account whose constructor checks and normalises what it is given."""


class Account:
    def __init__(self, owner, balance=0):
        if balance < 0:
            raise ValueError("negative balance")
        self.owner = owner.strip()
        self.balance = balance
        self.history = [balance] if balance else []

    def deposit(self, amount):
        self.balance += amount
        return self.balance
