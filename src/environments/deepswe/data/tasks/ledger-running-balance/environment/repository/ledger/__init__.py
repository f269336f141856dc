"""A small ledger of dated entries, amounts in cents."""

from ledger.core import Entry, balance

__all__ = ["Entry", "balance"]
