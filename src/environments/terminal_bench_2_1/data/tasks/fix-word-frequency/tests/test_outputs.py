"""Runs /app/wordfreq.py on the sample and on a text it has not seen (unittest: the image has no pytest)."""
import subprocess
import unittest

def run(path):
    return subprocess.run(["python3", "/app/wordfreq.py", path], capture_output=True, text=True, timeout=30).stdout.split("\n")


class TestWordFreq(unittest.TestCase):
    def test_sample(self):
        self.assertEqual(run("/app/sample.txt")[:3], ["the 4", "cat 2", "sat 2"])

    def test_hidden(self):
        self.assertEqual(run("/tests/hidden.txt")[:3], ["banana 4", "apple 3", "cherry 2"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
