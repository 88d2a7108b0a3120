import unittest

from words import count_words


class TestWords(unittest.TestCase):
    def test_simple(self):
        self.assertEqual(count_words("a b a"), {"a": 2, "b": 1})

    def test_case_insensitive(self):
        self.assertEqual(count_words("The cat saw the dog"), {"the": 2, "cat": 1, "saw": 1, "dog": 1})


if __name__ == "__main__":
    unittest.main()
