"""Division of big integers known to be exact, in the time of a multiplication.

Fraction-free (Bareiss) elimination divides every entry of a matrix by the
previous pivot, and the division is always exact.  Python's ``//`` does
not know that: on numbers of tens of thousands of bits it costs several
times a multiplication of the same size on Python 3.9 to 3.11 (it is
schoolbook long division there).  Exact division needs only the low bits:
if d = 2**t * u with u odd divides n, then n / d is the unique integer q
with |q| < 2**(k - 1) and q = (n >> t) * u**-1 (mod 2**k), for any k past
q's size; the inverse of u modulo 2**k is found once per divisor, by
Newton's iteration (each step doubles its correct bits), and each
quotient then costs one multiplication.  This is Jebelean's method.

    exact_divider   a function n -> n // d, for the n that d divides
"""

__all__ = ["exact_divider"]

# Below this many bits of divisor or quotient, ``//`` is as fast (measured
# on Python 3.9 to 3.13: the two meet near 4,000 bits).
_PLAIN_BITS = 4096
_LOW_BITS = 64


def exact_divider(divisor):
    """A function n -> n // divisor, for integers n that ``divisor`` divides.

    Meant for many divisions by one divisor; for other n the result is
    undefined (it is not n // divisor).

    >>> divide = exact_divider(3 * 2 ** 5000 + 1)
    >>> divide(-7 * (3 * 2 ** 5000 + 1) ** 3) == -7 * (3 * 2 ** 5000 + 1) ** 2
    True
    >>> exact_divider(-4)(12)
    -3
    """
    if not isinstance(divisor, int):
        raise TypeError("exact_divider needs an int divisor, not %s" % type(divisor).__name__)
    if not divisor:
        raise ValueError("exact_divider needs a nonzero divisor")
    if divisor.bit_length() <= _PLAIN_BITS:
        return divisor.__rfloordiv__   # n -> n // divisor
    return _ExactDivider(divisor)


class _ExactDivider:
    """n -> n // d by the inverse of d's odd part modulo a power of two."""

    __slots__ = ("divisor", "size", "shift", "odd", "negative", "inverse", "bits")

    def __init__(self, divisor):
        self.divisor = divisor
        self.size = divisor.bit_length()
        magnitude = abs(divisor)
        self.shift = (magnitude & -magnitude).bit_length() - 1
        self.odd = magnitude >> self.shift
        self.negative = divisor < 0
        self.inverse = pow(self.odd & ((1 << _LOW_BITS) - 1), -1, 1 << _LOW_BITS)
        self.bits = _LOW_BITS

    def __call__(self, n):
        # |n // d| < 2**(n.bit_length() - d.bit_length() + 1): k leaves a sign bit.
        k = n.bit_length() - self.size + 2
        if k <= _PLAIN_BITS:
            return n // self.divisor
        while self.bits < k:
            self.bits *= 2
            mask = (1 << self.bits) - 1
            self.inverse = self.inverse * (2 - (self.odd & mask) * self.inverse) & mask
        mask = (1 << k) - 1
        q = ((n >> self.shift) & mask) * (self.inverse & mask) & mask
        if q >> (k - 1):
            q -= 1 << k
        return -q if self.negative else q
