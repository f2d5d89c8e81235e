"""A witness input as integers over one denominator, read as Fractions.

A check proves a class argmaxable with an input x where it has strictly
the largest logit.  The check finds x as integers over one positive
denominator; making its d Fractions (a gcd and a division each, about a
microsecond) took a fifth of the time of a whole check of a 8000 x 256
layer, for points most callers never read one by one.  A Witness keeps
the integers and is read as the tuple of Fractions it stands for: its
items, length, equality, hash, ordering and concatenation are that
tuple's, and so is its repr, so a result prints as it did when its
witness was a tuple (``isinstance(w, tuple)`` is False: ``tuple(w)`` is
the tuple).

    Witness     the point numerators / denominator, a sequence of Fractions
"""

import collections.abc
import itertools
import operator
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import common_denominator

__all__ = ["Witness"]


class Witness(collections.abc.Sequence):
    """The point ``numerators`` / ``denominator`` (ints, the denominator > 0),
    read as a tuple of Fractions made when read.

    >>> x = Witness((-6, 3, 0), 4)
    >>> x
    (Fraction(-3, 2), Fraction(3, 4), Fraction(0, 1))
    >>> x[1], len(x), x == (Fraction(-3, 2), Fraction(3, 4), 0), x.size()
    (Fraction(3, 4), 3, True, Fraction(3, 2))
    >>> Witness.of([Fraction(1, 2), Fraction(2, 3)])
    (Fraction(1, 2), Fraction(2, 3))
    """

    __slots__ = ("numerators", "denominator")

    def __init__(self, numerators, denominator):
        if isinstance(denominator, bool) or not isinstance(denominator, int) or denominator <= 0:
            raise InputError("a witness's denominator must be a positive int, not %r"
                             % (denominator,))
        self.numerators = tuple(numerators)
        # The types first, by identity at C speed (a check makes a witness for
        # every class), then, for a subclass of int, as such.
        if not all(map(operator.is_, map(type, self.numerators), itertools.repeat(int))) and not all(
                isinstance(v, int) and not isinstance(v, bool) for v in self.numerators):
            raise InputError("a witness's numerators must be ints")
        self.denominator = denominator

    @classmethod
    def of(cls, values):
        """The Witness of a sequence of ints and Fractions (itself if it is one)."""
        if isinstance(values, cls):
            return values
        common = common_denominator(values)
        return cls((v.numerator * (common // v.denominator) for v in map(Fraction, values)),
                   common)

    def __len__(self):
        return len(self.numerators)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return tuple(map(Fraction, self.numerators[k], itertools.repeat(self.denominator)))
        return Fraction(self.numerators[k], self.denominator)

    def __iter__(self):
        return map(Fraction, self.numerators, itertools.repeat(self.denominator))

    def __eq__(self, other):
        if isinstance(other, Witness):
            return (len(self) == len(other)
                    and all(p * other.denominator == q * self.denominator
                            for p, q in zip(self.numerators, other.numerators)))
        if isinstance(other, tuple):
            return tuple(self) == other
        return NotImplemented

    def __hash__(self):
        return hash(tuple(self))

    # Ordering, concatenation and repetition are the tuple's.
    def __lt__(self, other):
        return _as_tuple(self) < _as_tuple(other)

    def __le__(self, other):
        return _as_tuple(self) <= _as_tuple(other)

    def __gt__(self, other):
        return _as_tuple(self) > _as_tuple(other)

    def __ge__(self, other):
        return _as_tuple(self) >= _as_tuple(other)

    def __add__(self, other):
        return tuple(self) + _as_tuple(other)

    def __radd__(self, other):
        return _as_tuple(other) + tuple(self)

    def __mul__(self, count):
        return tuple(self) * count

    __rmul__ = __mul__

    def __repr__(self):
        return repr(tuple(self))

    def __reduce__(self):
        return Witness, (self.numerators, self.denominator)

    def size(self):
        """max |x_k|, a Fraction, found in integers (0 for a point of no coordinates)."""
        return Fraction(max(map(abs, self.numerators), default=0), self.denominator)

    def moved(self, shift, sign=1):
        """The point shift + sign * x (shift a Fraction or int, sign 1 or
        -1) as a Witness, in integers over one denominator.

        >>> Witness((1, -2), 3).moved(Fraction(1, 2), -1)
        (Fraction(1, 6), Fraction(7, 6))
        """
        shift = Fraction(shift)
        p, q = shift.numerator * self.denominator, shift.denominator * sign
        return Witness([p + q * v for v in self.numerators], shift.denominator * self.denominator)

    def scaled(self, factor):
        """The point times a Fraction ``factor`` > 0, as a Witness."""
        return Witness((v * factor.numerator for v in self.numerators),
                       self.denominator * factor.denominator)


def _as_tuple(value):
    """A Witness as its tuple; anything else as it is (a tuple then decides)."""
    return tuple(value) if isinstance(value, Witness) else value
