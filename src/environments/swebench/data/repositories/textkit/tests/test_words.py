import unittest

from textkit.words import word_count


class WordCountTest(unittest.TestCase):
    def test_single_word(self):
        self.assertEqual(word_count("hello"), 1)

    def test_two_words(self):
        self.assertEqual(word_count("hello world"), 2)
