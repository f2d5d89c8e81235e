"""The arithmetic a linear program computes in: floats, Decimals of n digits, or exact integers.

The program (reviews.argmax.strategy.feasibility) and its driver
(reviews.argmax.strategy.programs) run the same steps in each kind of number; what
differs is asked of one object, the program's ``arithmetic``:

    FLOATS      floats: fast, but rows whose entries span thousands of bits
                lose their small ones; they only propose
    Decimals    Decimals(n): n digits and an exponent range past any
                layer's, so such rows stay whole; they only propose
    EXACT       integers, exact: the program always decides
    Arithmetic  what every kind answers: number, negligible, rounds,
                exact, digits, context

>>> FLOATS.number(1) / 3 == 1 / 3, EXACT.number(6), Decimals(5).number(1)
(True, 6, Decimal('1'))
>>> FLOATS, Decimals(5), EXACT
(FLOATS, Decimals(5), EXACT)
"""

import decimal
import itertools
import math
from fractions import Fraction

from reviews.errors import InputError

__all__ = ["Arithmetic", "FLOATS", "EXACT", "Decimals", "WIDE_EXPONENT"]

# Decimals have an exponent range far past any layer's (reviews.exact.MAX_BITS).
WIDE_EXPONENT = 10 ** 7
_FLOAT_NEGLIGIBLE = 1e-11
_BITS_PER_DIGIT = math.log2(10)


class Arithmetic:
    """A kind of number for a program, and how it computes.

    ``number(value)`` converts an input (int, float, Fraction, Decimal);
    ``negligible`` is how far from zero an entry still counts as zero;
    ``rounds(limit)`` the iterations a loop may take (every one it needs,
    exact); ``exact``, ``digits`` (Decimals') and ``context`` (their
    decimal.Context, else None) say which kind it is.
    """

    exact = False
    digits = None
    context = None
    negligible = 0

    def number(self, value):
        raise NotImplementedError

    def rounds(self, limit):
        return range(limit)


class _Floats(Arithmetic):
    negligible = _FLOAT_NEGLIGIBLE

    def number(self, value):
        return float(value)

    def __repr__(self):
        return "FLOATS"


class _Exact(Arithmetic):
    exact = True

    def number(self, value):
        """An integer input of an exact program, or InputError."""
        exact = Fraction(value)
        if exact.denominator != 1:
            raise InputError("an exact Program takes integers, not %s" % exact)
        return exact.numerator

    def rounds(self, limit):
        return itertools.count()

    def __repr__(self):
        return "EXACT"


class Decimals(Arithmetic):
    """Decimals of ``digits`` digits, in a context that traps what would go wrong silently."""

    def __init__(self, digits):
        self.digits = digits
        self.context = decimal.Context(prec=digits, Emax=WIDE_EXPONENT, Emin=-WIDE_EXPONENT,
                                       traps=[decimal.InvalidOperation, decimal.DivisionByZero,
                                              decimal.Overflow])

    def number(self, value):
        """A rational (int, float, Fraction or Decimal) rounded to the context, roughly.

        Only the leading bits of a numerator or denominator are converted
        (Decimal(n) of a 100,000-bit n takes milliseconds), so the result is
        within a few units in its last place: the wide program only proposes.
        """
        context = self.context
        if isinstance(value, decimal.Decimal):
            return context.plus(value)
        value = Fraction(value)
        return context.divide(_leading(value.numerator, context),
                              _leading(value.denominator, context))

    def __eq__(self, other):
        return isinstance(other, Decimals) and other.digits == self.digits

    def __hash__(self):
        return hash(self.digits)

    def __repr__(self):
        return "Decimals(%d)" % self.digits


def _leading(n, context):
    """n rounded to ``context`` from its leading bits."""
    shift = max(n.bit_length() - int(_BITS_PER_DIGIT * context.prec) - 64, 0)
    head = decimal.Decimal(n >> shift)
    return context.multiply(head, context.power(2, shift)) if shift else context.plus(head)


FLOATS = _Floats()
EXACT = _Exact()
