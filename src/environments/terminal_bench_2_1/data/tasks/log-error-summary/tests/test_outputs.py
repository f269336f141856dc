"""Checks /app/summary.csv against the logs' ERROR lines (unittest: the image has no pytest)."""
import unittest
from pathlib import Path

SUMMARY = Path("/app/summary.csv")


class TestSummary(unittest.TestCase):
    def test_exists(self):
        self.assertTrue(SUMMARY.is_file(), "/app/summary.csv was not written")

    def test_counts(self):
        lines = SUMMARY.read_text().strip().splitlines()
        self.assertEqual(lines[0].strip(), "service,errors")
        self.assertEqual([l.strip() for l in lines[1:]], ["api,3", "billing,0", "worker,1"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
