"""Word counting."""

import re


def count_words(text):
    """Return {word: count} for text, case-insensitively."""
    counts = {}
    for word in re.findall(r"[A-Za-z']+", text):
        counts[word] = counts.get(word, 0) + 1
    return counts
