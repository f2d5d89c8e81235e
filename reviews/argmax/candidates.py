"""Float proposals of a witness for one class, each checked exactly.

A witness is any input where class i has strictly the largest logit; how
it was found does not matter, as every candidate is checked exactly
against all C classes (reviews.argmax.packed).  These searches are
cheaper than the linear program where they work, and prove nothing where
they do not: the caller then goes on to the program.

    reflected_witness   the paper's Braid reflection, with patience
    reflections         how many reflections are worth trying in d dimensions
"""

__all__ = ["reflected_witness", "reflections"]

# Reflections tried, each one exact check of all C logits, at most this
# many and one per _DIMENSIONS_PER_REFLECTION dimensions.  On layers shaped
# like real output heads (rows sharing a strong direction, log-normal norms)
# almost every class is settled within 10 from x = w_i - mean, where the
# program in d = 64 costs a thousand checks.  In few dimensions the program
# is cheap and many classes are not argmaxable: there reflections would
# mostly waste their checks.
PATIENCE = 16
_DIMENSIONS_PER_REFLECTION = 4


def reflections(dim):
    """How many reflections to try in ``dim`` dimensions.

    >>> reflections(4), reflections(16), reflections(768)
    (1, 4, 16)
    """
    return min(PATIENCE, dim // _DIMENSIONS_PER_REFLECTION)


def reflected_witness(layer, i, point, rival, patience=PATIENCE):
    """A candidate (from ``layer.candidate``) that makes class i the strict
    maximum, found by reflecting ``point`` across the tie of class i with
    the class that beats it, ``rival`` first; None after ``patience``
    reflections, or where floats fail.

    ``layer`` is the checker's layer: ``reflect`` (floats), ``candidate``
    (a float point made exact) and ``packed.beaten_by`` (the exact check).

    >>> from reviews.argmax.check import _Layer
    >>> layer = _Layer([[4, 0], [0, 4], [1, 1]], None, 1)
    >>> layer.packed.beaten_by(2, [1, 1], 2)
    [0, 1]
    >>> candidate, denominator = reflected_witness(layer, 2, [1.0, 1.0], 0)
    >>> layer.packed.beaten_by(2, candidate, 1)
    []

    The origin is inside the square of the others: no witness to find.

    >>> square = _Layer([[0, 0], [2, 0], [-2, 0], [0, 2], [0, -2]], None, 1)
    >>> reflected_witness(square, 0, [1.0, 0.0], 1) is None
    True
    """
    for _ in range(patience):
        point = layer.reflect(point, i, rival)
        if point is None:
            return None
        candidate = layer.candidate(point)
        beaten = layer.packed.beaten_by(i, candidate[0], 1)
        if not beaten:
            return candidate
        rival = beaten[0]
    return None
