import unittest

from textkit.slug import slugify


class SlugifyTest(unittest.TestCase):
    def test_lower_case(self):
        self.assertEqual(slugify("Hello World"), "hello-world")
