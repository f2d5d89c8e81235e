"""Exact solution of a square integer system by p-adic lifting (Dixon's method).

Fraction-free elimination (Bareiss) solves n equations in n unknowns in
about n**3 operations on integers that grow to the size of the
determinant: n = 121 rows of 45-bit integers take about 13 s in CPython.
Lifting does the n**3 work once modulo a prime p of 62 bits (an LU
factorization), then finds the solution's p-adic digits one at a time,
each at the cost of two triangular solves modulo p and one product by the
matrix, on integers of a few machine words: about k n**2 small operations
for the k digits that the determinant's size needs (Hadamard's bound).
The rational solution is then read off its p-adic expansion (rational
reconstruction, the extended Euclidean algorithm), and checked exactly.

    solve_integers      (numerators, denominator) of the solution, or None if singular
    independent_modulo  the first vectors independent modulo a prime, by position
"""

import math
import operator

__all__ = ["solve_integers", "independent_modulo"]

# Primes just below 2**62 (2**62 - 57, 2**62 - 87, 2**62 - 117): a matrix
# singular modulo all three but not over the integers is solved by the caller's
# other means (None means singular or unlucky; the caller checks anyway).
_PRIMES = (2 ** 62 - 57, 2 ** 62 - 87, 2 ** 62 - 117)


def solve_integers(rows, rhs):
    """The solution of sum_k rows[r][k] * x_k = rhs[r] as (numerators, denominator > 0).

    ``rows`` holds m >= n rows of n ints and ``rhs`` m ints; the system
    must have exactly one solution, x_k = numerators[k] / denominator, the
    denominator the least one.  Of a taller system, the first n rows that
    are independent (modulo the prime) are solved, and the solution is
    checked against every row.  None if there is no solution, or more
    than one (or the matrix is singular modulo each of three primes near
    2**62, which a matrix of full rank almost never is).

    >>> solve_integers([[2, 1], [0, 3]], [3, 3])
    ([1, 1], 1)
    >>> solve_integers([[1, 1], [1, -1]], [1, 0])
    ([1, 1], 2)
    >>> solve_integers([[1, 1], [2, 2], [1, -1]], [1, 2, 0])
    ([1, 1], 2)
    >>> solve_integers([[1, 2], [2, 4]], [1, 2]) is None
    True
    """
    n = len(rows[0])
    for p in _PRIMES:
        chosen = list(range(n)) if len(rows) == n else independent_modulo(rows, p, n)
        if len(chosen) == n:
            square = [rows[r] for r in chosen]
            factors = _lu_modulo(square, p)
            if factors is not None:
                break
    else:
        return None
    everything, rows, rhs = (rows, rhs), square, [rhs[r] for r in chosen]
    digits = _digits_needed(rows, rhs, p)
    order = factors[1]
    lower, upper = (_Packed(m, p.bit_length()) for m in _triangular_inverses(factors, p))
    matrix = _Packed(rows, p.bit_length())
    # x = sum_i x_i p**i modulo p**digits, each x_i found from the residual.
    residual = list(rhs)
    steps = []
    for _ in range(digits):
        ordered = [residual[r] % p for r in order]
        step = [v % p for v in upper.times([v % p for v in lower.times(ordered)])]
        # Each residual entry is divisible by p by construction.
        residual = [(v - w) // p for v, w in zip(residual, matrix.times(step))]
        steps.append(step)
    expansion, power = _combined(steps, p)
    solution = _reconstructed(expansion, power)
    if solution is None:
        return None
    numerators, denominator = solution
    if any(sum(map(operator.mul, row, numerators)) != denominator * v
           for row, v in zip(*everything)):
        return None
    return numerators, denominator


def independent_modulo(vectors, p, most):
    """The positions of the first vectors linearly independent modulo the
    prime p, in order, at most ``most`` of them (``vectors`` may be lazy:
    none is made past the last position needed).

    >>> independent_modulo([[1, 2], [2, 4], [0, 1], [5, 5]], 7, 2)
    [0, 2]
    """
    chosen, echelon = [], []   # echelon: (pivot position, vector with 1 there), modulo p
    for position, vector in enumerate(vectors):
        if len(chosen) == most:
            break
        line = [v % p for v in vector]
        for pivot, kept in echelon:
            f = line[pivot]
            if f:
                line = [(a - f * b) % p for a, b in zip(line, kept)]
        pivot = next((k for k, v in enumerate(line) if v), None)
        if pivot is None:
            continue
        inverse = pow(line[pivot], p - 2, p)
        echelon.append((pivot, [v * inverse % p for v in line]))
        chosen.append(position)
    return chosen


def _lu_modulo(rows, p):
    """(the LU factors of the rows modulo p, row order), or None if singular modulo p.

    L is unit lower triangular and U upper triangular, held in one matrix
    (L below the diagonal), with the rows permuted by ``order``; U's
    diagonal is kept inverted, for the solves.
    """
    n = len(rows)
    matrix = [[v % p for v in row] for row in rows]
    order = list(range(n))
    for k in range(n):
        pivot = next((r for r in range(k, n) if matrix[r][k]), None)
        if pivot is None:
            return None
        matrix[k], matrix[pivot] = matrix[pivot], matrix[k]
        order[k], order[pivot] = order[pivot], order[k]
        head = matrix[k]
        inverse = pow(head[k], p - 2, p)
        tail = head[k + 1:]
        for r in range(k + 1, n):
            line = matrix[r]
            f = line[k] * inverse % p
            if f:
                line[k + 1:] = [(a - f * b) % p for a, b in zip(line[k + 1:], tail)]
            line[k] = f
        head[k] = inverse
    return matrix, order


def _triangular_inverses(factors, p):
    """(L^-1, U^-1) modulo p of the factors, by rows, each in about n**3 / 6 steps."""
    matrix, _ = factors
    n = len(matrix)
    lower = []
    for r in range(n):
        line = [0] * (r + 1)
        line[r] = 1
        row = matrix[r]
        for k in range(r):
            f = row[k]
            if f:
                line[:k + 1] = [(a - f * b) % p for a, b in zip(line[:k + 1], lower[k])]
        lower.append(line + [0] * (n - r - 1))
    upper = [None] * n
    for r in range(n - 1, -1, -1):
        row = matrix[r]
        line = [0] * n
        line[r] = 1
        for k in range(r + 1, n):
            f = row[k]
            if f:
                line[k:] = [(a - f * b) % p for a, b in zip(line[k:], upper[k][k:])]
        upper[r] = [a * row[r] % p for a in line]
    return lower, upper


class _Packed:
    """A matrix of integers whose product by a vector of ``bits``-bit
    non-negative integers costs one big-by-small product a column: each
    column packed into one integer, a field a row, every entry offset to
    be non-negative."""

    def __init__(self, rows, bits):
        n = len(rows[0])
        self.count = len(rows)
        self.offset = max((abs(v) for row in rows for v in row), default=0)
        self.width = (self.offset.bit_length() + 1 + bits + n.bit_length() + 8) // 8 * 8
        lift = self.offset
        self.columns = [int.from_bytes(b"".join((row[k] + lift).to_bytes(self.width // 8, "little")
                                                  for row in rows), "little")
                        for k in range(n)]

    def times(self, vector):
        """The matrix times ``vector`` (entries >= 0 of at most ``bits`` bits), exactly."""
        total = sum(map(operator.mul, self.columns, vector))
        size = self.width // 8
        data = total.to_bytes(size * self.count, "little")
        shift = self.offset * sum(vector)
        return [int.from_bytes(data[n:n + size], "little") - shift
                for n in range(0, len(data), size)]


def _combined(steps, p):
    """(sum_i steps[i] p**i entrywise, p**len(steps)): pairs combined in a
    tree, so that the big products are few."""
    modulus, power = p ** len(steps), p
    while len(steps) > 1:
        if len(steps) % 2:
            steps.append([0] * len(steps[0]))
        steps = [[a + power * b for a, b in zip(steps[n], steps[n + 1])]
                 for n in range(0, len(steps), 2)]
        power *= power
    return steps[0], modulus


def _digits_needed(rows, rhs, p):
    """p-adic digits that determine the solution: p**k > 2 B**2, with B
    bounding the determinant and every numerator (Hadamard's inequality
    over the columns), as rational reconstruction needs."""
    n = len(rows)
    squares = [sum(rows[r][k] * rows[r][k] for r in range(n)) for k in range(n)]
    b_square = sum(v * v for v in rhs)
    # log2 of the product of the column norms, rounded up.
    bits = sum(_half_bits_up(s) for s in squares)
    smallest = min(_half_bits_down(s) for s in squares)
    numerator_bits = bits - smallest + _half_bits_up(b_square)
    return (2 * max(bits, numerator_bits) + 2) // (p.bit_length() - 1) + 1


def _half_bits_up(square):
    """An integer at least log2(sqrt(square)), square >= 0."""
    return (square.bit_length() + 1) // 2


def _half_bits_down(square):
    """An integer at most log2(sqrt(square)) for square >= 1, else 0."""
    return max(square.bit_length() - 1, 0) // 2


def _reconstructed(expansion, modulus):
    """(numerators, least common denominator) of the rationals that the
    residues stand for modulo ``modulus``, or None where one has no such
    rational with numerator and denominator below sqrt(modulus / 2)."""
    bound = math.isqrt(modulus // 2)
    denominator = 1
    numerators = []
    for value in expansion:
        scaled = value * denominator % modulus
        if scaled > modulus // 2:
            scaled -= modulus
        if abs(scaled) > bound:
            pair = _rational(scaled % modulus, modulus, bound)
            if pair is None:
                return None
            top, bottom = pair
            numerators = [v * bottom for v in numerators]
            denominator *= bottom
            scaled = top
        numerators.append(scaled)
    return numerators, denominator


def _rational(value, modulus, bound):
    """(n, q) with n = q * value modulo ``modulus``, |n| <= bound, 0 < q <= bound; or None."""
    r0, r1 = modulus, value
    s0, s1 = 0, 1
    while r1 > bound:
        quotient = r0 // r1
        r0, r1 = r1, r0 - quotient * r1
        s0, s1 = s1, s0 - quotient * s1
    if not s1 or abs(s1) > bound:
        return None
    if s1 < 0:
        r1, s1 = -r1, -s1
    return r1, s1
