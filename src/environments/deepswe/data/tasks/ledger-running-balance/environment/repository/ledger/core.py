from dataclasses import dataclass


@dataclass(frozen=True)
class Entry:
    """One ledger line: an ISO date (YYYY-MM-DD), what it was for, and its amount in cents."""

    date: str
    description: str
    amount: int


def balance(entries):
    """The sum of the entries' amounts, in cents."""
    return sum(entry.amount for entry in entries)
