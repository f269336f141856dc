import unittest

from ledger import Entry, balance


class BalanceTest(unittest.TestCase):
    def test_empty(self):
        self.assertEqual(balance([]), 0)

    def test_sums_amounts(self):
        entries = [Entry("2024-01-01", "salary", 250000), Entry("2024-01-02", "rent", -120000)]
        self.assertEqual(balance(entries), 130000)
