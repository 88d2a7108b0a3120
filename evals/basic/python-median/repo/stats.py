"""Small statistics helpers."""


def mean(xs):
    """Return the arithmetic mean of xs."""
    return sum(xs) / len(xs)


def median(xs):
    """Return the median of xs (the mean of the middle two for even lengths)."""
    n = len(xs)
    mid = n // 2
    if n % 2:
        return xs[mid]
    return (xs[mid - 1] + xs[mid]) / 2
