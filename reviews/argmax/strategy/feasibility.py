"""Strict linear feasibility, decided exactly, with a certificate either way.

For rows a_k in R^d and offsets c_k, exactly one of these exists (Motzkin's
transposition theorem):

* a witness x with a_k . x + c_k > 0 for every k;
* a combination lam >= 0 with sum(lam) = 1, sum_k lam_k a_k = 0 and
  sum_k lam_k c_k <= 0.

Both are found through one linear program, the L1-penalized dual

    minimize   sum_k lam_k c_k + M * sum_q (u_q + v_q)
    subject to sum_k lam_k a_k + u - v = 0,   sum_k lam_k = 1,   lam, u, v >= 0

whose dual is: maximize z subject to a_k . x + c_k >= z, |x_q| <= M.  An
optimum z > 0 gives a witness x; an optimum <= 0 without slack gives a
combination; otherwise M is too small and grows.  The simplex runs in floats
(or in Decimals of a given number of digits, for numbers floats cannot
hold) to find a basis, which is trusted only once its certificate checks
exactly, and in exact integers where rounding fails.

The exact program always decides, after finitely many steps.  Each solve
ends, as it finishes with Bland's rule, which cannot cycle (``solve``).
And M grows a bounded number of times: with integer rows, every (a_k, c_k)
of norm at most s, let B = (s + 2) ** (d + 1).  A basic point of
{(x, z): a_k . x + c_k >= z} (with z <= 1 added where the system is
feasible) solves at most d + 1 of its equations, so by Cramer's rule and
Hadamard's bound its coordinates are at most B (the denominator is a
nonzero integer), and an optimal face holds one, also where the rows span
less than R^d.  So once M > B: if a witness exists, one lies in the box
and z > 0; if none does, an optimal dual point lies strictly inside the
box, and complementary slackness leaves no slack at the optimum.  M starts
at 4 or more and is at least squared each time (``Program.grow_penalty``),
so it grows at most log2(log2(B)) times.

With the inputs bounded, |x_q| <= M for a given rational M > 0 (``box=M``),
the question is the same program with the penalty fixed at M: exactly one
of these exists (LP duality: the maximum of z over the compact box equals
the program's minimum):

* a witness x with |x_q| <= M for every q and a_k . x + c_k > 0 for every k;
* a combination lam >= 0 with sum(lam) = 1 and
  sum_k lam_k c_k + M * |sum_k lam_k a_k|_1 <= 0.

An optimum z > 0 gives the first; an optimum z <= 0 the second, as then
sum_k lam_k a_k = v - u, whose 1-norm is at most sum_q (u_q + v_q).  The
penalty never grows, so each solve decides.  A combination with
sum_k lam_k a_k = 0 is one for every box.

    decide_system       witness or combination for a small system
    Program             the penalized program over a growing set of rows
    basis_combination   the exact combination on an optimal basis, checked
    is_combination      exact check of a combination
    is_witness          exact check of a witness
    scaled_floats       float rows for the float program, each scaled on its own
    solve_square        exact solution of a square linear system
"""

import decimal
import functools
import math
import operator
from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import common_denominator, to_float
from reviews.argmax.kernels.exact_division import exact_divider
from reviews.argmax.kernels.arithmetic import EXACT, FLOATS, WIDE_EXPONENT

__all__ = ["Decision", "Relaxed", "Program", "decide_system", "basis_combination",
           "is_combination", "is_witness", "scaled_floats", "solve_square"]

Decision = namedtuple("Decision", "witness combination")
Decision.__doc__ = "Exactly one of witness (tuple of Fraction) and combination is set."

Relaxed = namedtuple("Relaxed", "value basis x slack")
Relaxed.__doc__ = """An optimal basis of the penalized program.

value: optimum z; basis: the Program's column indices;
x: the dual point (a witness candidate);
slack: whether a slack variable is positive at the optimum.
"""

_FIRST_PENALTY = 4
_PENALTY_GROWTH = 16
_FLOAT_ROUNDS = 64
# In Decimals the penalty grows up to this bound, far inside their exponent range.
_WIDE_PENALTY_LIMIT = decimal.Decimal("1e%d" % (WIDE_EXPONENT // 4))


def _in_own_context(method):
    """Run a Program's method in its decimal context, where it has one."""
    @functools.wraps(method)
    def run(self, *args):
        if self.arithmetic.context is None:
            return method(self, *args)
        with decimal.localcontext(self.arithmetic.context):
            return method(self, *args)
    return run


class Program:
    """The penalized program over a growing set of rows, kept at an optimal basis.

    Columns: u_0..u_{d-1}, v_0..v_{d-1}, one column that never enters (its
    tableau column, with the u columns, is the basis inverse, so that rows
    added later are priced without a refactorization), then one column per
    row.  Each tableau row holds its right-hand side first.  Adding rows and
    raising the penalty keep the basis feasible, so each solve starts from
    the last optimum.

    ``arithmetic`` is the kind of number it computes in (reviews.argmax.kernels.arithmetic).
    In FLOATS the tableau is the usual one.  In Decimals(n), it is the
    usual one in Decimals of n digits and an exponent range past
    any layer's: rows whose entries span thousands of bits stay whole
    (floats drop their small entries), and each operation costs about as
    much as one on integers of that many digits, far less than the exact
    tableau's determinants of d + 1 rows.  It counts only 0 as zero: what it
    proposes is checked exactly by its caller.  In EXACT numbers, rows,
    offsets and penalty must be integers, and the tableau stays integer:
    it holds the true tableau times ``scale``, the basis determinant, and a
    pivot is Bareiss's fraction-free step (every division exact, and done
    as one: ``reviews.argmax.kernels.exact_division``), which avoids the gcd of a
    Fraction at every operation.  Each row and its
    offset are divided by their gcd first (a layer's common denominator
    can make them thousands of bits longer than they need be); that
    changes no witness, and ``row_weights`` undoes it.
    """

    def __init__(self, rows, offsets, penalty, arithmetic=FLOATS):
        self.d, self.arithmetic = len(rows[0]), arithmetic
        self.number, self.negligible = arithmetic.number, arithmetic.negligible
        self.scale = 1
        self.divisors = []
        self._start(rows, offsets, penalty)

    @_in_own_context
    def _start(self, rows, offsets, penalty):
        d = self.d
        self.penalty = self.number(penalty)
        zero, one = self.number(0), self.number(1)
        self.inverse = 2 * d
        self.first_row = 2 * d + 1
        self.costs = [self.penalty] * (2 * d) + [zero]
        self.tableau = []
        for q in range(d):
            unit = [zero] * (2 * d + 1)
            unit[q], unit[d + q] = one, -one
            self.tableau.append([zero] + unit)
        self.tableau.append([one] + [zero] * (2 * d) + [one])
        self.tableau.append([zero] + self.costs)
        self.basis = [q for q in range(d)] + [self.inverse]
        self.add(rows, offsets)
        # Swap the never-entering column out for the first row, then make
        # the slacks absorb that row's residual: a feasible start.
        self._pivot(d, self.first_row)
        for q in range(d):
            if self.tableau[q][0] < 0:
                self._pivot(q, d + q)
        self.raise_penalty(self.penalty)

    def _pivot(self, row, col):
        tableau = self.tableau
        pivot_row = tableau[row]
        p = pivot_row[col + 1]
        if self.arithmetic.exact:
            scale = self.scale
            divide = exact_divider(scale)
            for r, other in enumerate(tableau):
                if r != row:
                    f = other[col + 1]
                    if f:
                        tableau[r] = [divide(p * a - f * b) for a, b in zip(other, pivot_row)]
                    elif p != scale:
                        tableau[r] = [divide(p * a) for a in other]
            # The scale stays positive, so signs read off the integers.
            if p < 0:
                self.tableau = tableau = [[-v for v in line] for line in tableau]
            self.scale = abs(p)
        else:
            if self.arithmetic.context:
                # One division: at thousands of digits a Decimal division
                # costs several multiplications.
                inverse = 1 / p
                pivot_row = [v * inverse for v in pivot_row]
                pivot_row[col + 1] = 1
            else:
                pivot_row = [v / p for v in pivot_row]
            tableau[row] = pivot_row
            for r, other in enumerate(tableau):
                f = other[col + 1]
                if r != row and f:
                    tableau[r] = [a - f * b for a, b in zip(other, pivot_row)]
                    tableau[r][col + 1] = 0
        if row < len(self.basis):
            self.basis[row] = col

    @_in_own_context
    def add(self, rows, offsets):
        """Append rows (columns of the program), priced at the current basis."""
        d, number, scale = self.d, self.number, self.scale
        cost = self.tableau[-1]
        dual = ([scale * self.costs[q] - cost[1 + q] for q in range(d)]
                + [-cost[1 + self.inverse]])
        for a, c in zip(rows, offsets):
            a, c = [number(v) for v in a], number(c)
            if self.arithmetic.exact:
                divisor = math.gcd(c, *a) or 1
                a, c = [v // divisor for v in a], c // divisor
                self.divisors.append(divisor)
            for r in range(d + 1):
                row = self.tableau[r]
                row.append(sum(v * row[1 + q] for q, v in enumerate(a)) + row[1 + self.inverse])
            self.costs.append(c)
            cost.append(scale * c - sum(v * y for v, y in zip(a, dual)) - dual[d])

    @_in_own_context
    def raise_penalty(self, penalty):
        """New slack cost; reprice every column at the current basis."""
        self.penalty = penalty = self.number(penalty)
        self.costs[:2 * self.d] = [penalty] * (2 * self.d)
        basic_costs = [self.costs[col] for col in self.basis]
        width = len(self.tableau[0])
        priced = [self.number(0)] + [self.scale * self.costs[j - 1] for j in range(1, width)]
        for r, c in enumerate(basic_costs):
            if c:
                priced = [p - c * t for p, t in zip(priced, self.tableau[r])]
        self.tableau[-1] = priced

    def grow_penalty(self):
        """Raise the penalty: 16-fold in floats; squared in Decimals; exact, squared, past every offset.

        Squaring reaches any bound B in log2(log2(B)) steps: the numbers of
        a layer can span thousands of bits, and 16-fold steps would then
        take hundreds of exact re-solves.  With integer rows, a point
        solving a_k . x + c_k = 0 for one row has a coordinate of size
        |c_k| / |a_kq| <= |c_k|, so the box needs to be at least as large
        as the offsets: the first growth goes there at once, rather than
        squaring up to it round by round (a penalty appears only in the
        cost row, so a large one costs little).  False, with the penalty
        unchanged, once Decimals reach _WIDE_PENALTY_LIMIT.
        """
        context = self.arithmetic.context
        if context:
            if self.penalty >= _WIDE_PENALTY_LIMIT:
                return False
            self.raise_penalty(context.multiply(self.penalty, self.penalty))
            return True
        if not self.arithmetic.exact:
            self.raise_penalty(self.penalty * _PENALTY_GROWTH)
            return True
        offsets = self.costs[self.first_row:]
        largest = max(map(abs, offsets), default=0)
        self.raise_penalty(max(self.penalty * self.penalty, self.penalty * _PENALTY_GROWTH,
                               2 * largest + 1))
        return True

    @_in_own_context
    def solve(self):
        """Minimize from the current basis; a Relaxed, or None if rounding gives up.

        The entering column is the most improving one (Dantzig's rule, few
        pivots in practice) for a bounded number of pivots, then the first
        improving one (Bland's rule, with ties in the ratio test going to
        the lowest basic index).  Exact, it therefore always returns: Bland's
        rule cannot cycle, and the program is never unbounded, as its only
        rays add u_q = v_q at the positive cost 2M.
        """
        m = self.d + 1
        negligible = self.negligible
        ratio = _Quotient if self.arithmetic.exact else operator.truediv
        limit = 50 * (len(self.tableau[0]) + m)
        for iteration in self.arithmetic.rounds(limit):
            cost = self.tableau[-1]
            columns = [j for j in range(len(cost) - 1) if j != self.inverse]
            if iteration > limit // 2:
                entering = next((j for j in columns if cost[j + 1] < -negligible), None)
            else:
                entering = min(columns, key=lambda j: cost[j + 1])
                if cost[entering + 1] >= -negligible:
                    entering = None
            if entering is None:
                return self._optimum()
            best = None
            for r in range(m):
                coefficient = self.tableau[r][entering + 1]
                if coefficient > negligible:
                    key = (ratio(self.tableau[r][0], coefficient), self.basis[r])
                    if best is None or key < best[0]:
                        best = (key, r)
            if best is None:
                return None
            self._pivot(best[1], entering)
        return None

    def _true(self, value):
        """A tableau entry's value: exact, the integer over the scale."""
        return Fraction(value, self.scale) if self.arithmetic.exact else value

    def _optimum(self):
        d = self.d
        cost = self.tableau[-1]
        slack = any(col < self.inverse and self.tableau[r][0] > self.negligible
                    for r, col in enumerate(self.basis))
        x = [self._true(cost[1 + q]) - self.penalty for q in range(d)]
        return Relaxed(-self._true(cost[0]), list(self.basis), x, slack)

    def row_weights(self):
        """The weight lam_k of each row at the current basis (0 off the basis).

        Exact in an exact program, where at an optimum without slack they
        are the combination itself (of the rows as given: the weights of
        the rows divided by their gcds are divided by the gcds in turn and
        scaled back to sum 1).
        """
        lam = [self.number(0)] * (len(self.costs) - self.first_row)
        for r, col in enumerate(self.basis):
            if col >= self.first_row:
                lam[col - self.first_row] = self._true(self.tableau[r][0])
        if not self.arithmetic.exact:
            return lam
        lam = [Fraction(value) / divisor for value, divisor in zip(lam, self.divisors)]
        total = sum(lam)
        return [value / total for value in lam] if total else lam


class _Quotient:
    """p / q for integers, q > 0, ordered by cross-multiplication: no gcd as in a Fraction."""

    __slots__ = ("p", "q")

    def __init__(self, p, q):
        self.p, self.q = p, q

    def __lt__(self, other):
        return self.p * other.q < other.p * self.q

    def __eq__(self, other):
        return self.p * other.q == other.p * self.q


def solve_square(columns, rhs):
    """The exact solution of sum_j v_j columns[j] = rhs, or None if singular.

    Fraction-free Gauss-Jordan elimination (Bareiss, Montante): integers
    throughout, every division exact (``exact_divider``), the solution is
    column / determinant.

    >>> solve_square([[2, 0], [1, 1]], [3, 1])
    [Fraction(1, 1), Fraction(1, 1)]
    """
    solved = _bareiss(columns, rhs)
    if solved is None:
        return None
    numerators, determinant = solved
    return [Fraction(v, determinant) for v in numerators]


def _bareiss(columns, rhs):
    """(numerators, determinant > 0) of the solution of ``solve_square``, or None.

    Signs read off the integers, with no gcd of a Fraction: a basis that
    fails is rejected at the cost of the elimination alone.
    """
    n = len(columns)
    matrix = [_integers([columns[j][r] for j in range(n)] + [rhs[r]]) for r in range(n)]
    previous = 1
    for k in range(n):
        pivot = next((r for r in range(k, n) if matrix[r][k]), None)
        if pivot is None:
            return None
        matrix[k], matrix[pivot] = matrix[pivot], matrix[k]
        head = matrix[k]
        p = head[k]
        divide = exact_divider(previous)
        for r in range(n):
            if r != k:
                row = matrix[r]
                f = row[k]
                matrix[r] = [divide(p * a - f * b) for a, b in zip(row, head)]
        previous = p
    # Gauss-Jordan leaves the determinant on the whole diagonal.
    sign = 1 if previous > 0 else -1
    return [sign * row[n] for row in matrix], abs(previous)


def _integers(values):
    """Integers proportional to ``values`` (ints or Fractions), by one positive factor."""
    if all(isinstance(v, int) for v in values):
        return list(values)
    common = common_denominator(values)
    return [int(Fraction(v) * common) for v in values]


def _column(rows, d, index):
    """Column ``index`` of a Program over ``rows``, in exact numbers."""
    if index >= 2 * d + 1:
        return list(rows[index - 2 * d - 1]) + [1]
    unit = [0] * (d + 1)
    unit[index % d if index < 2 * d else d] = 1 if index < d or index == 2 * d else -1
    return unit


def basis_combination(rows, offsets, basis, box=None):
    """The combination on ``basis``, solved and checked exactly, or None.

    ``rows`` and ``offsets`` are exact; the result has one Fraction per row.
    With ``box`` (a positive Fraction), the slacks may be on the basis and
    the combination is checked as one for that box.
    """
    d = len(rows[0])
    solved = _bareiss([_column(rows, d, index) for index in basis], [0] * d + [1])
    if solved is None:
        return None
    numerators, determinant = solved
    first_row = 2 * d + 1
    if any(v < 0 or (index < first_row and v and box is None)
           for index, v in zip(basis, numerators)):
        return None
    lam = [Fraction(0)] * len(rows)
    for index, v in zip(basis, numerators):
        if index >= first_row and v:
            lam[index - first_row] += Fraction(v, determinant)
    return tuple(lam) if is_combination(rows, offsets, lam, box) else None


def is_combination(rows, offsets, lam, box=None):
    """Exact check: lam >= 0, sum 1, sum lam_k a_k = 0, sum lam_k c_k <= 0.

    With ``box`` = M (a positive rational), the last two conditions are
    sum lam_k c_k + M * |sum lam_k a_k|_1 <= 0 instead.

    >>> is_combination([[1], [-2]], [1, 1], [Fraction(1, 2), Fraction(1, 2)], box=2)
    False
    >>> is_combination([[1], [-2]], [1, -3], [Fraction(1, 2), Fraction(1, 2)], box=2)
    True
    """
    if any(v < 0 for v in lam) or sum(lam) != 1:
        return False
    weights = _integers(lam)
    support = [k for k, v in enumerate(weights) if v]
    # One positive factor for every row and offset leaves both conditions as they are.
    flat = _integers([v for k in support for v in list(rows[k]) + [offsets[k]]])
    width = len(rows[0]) + 1
    terms = [(weights[k], flat[n * width:(n + 1) * width]) for n, k in enumerate(support)]
    combined = [sum(w * row[q] for w, row in terms) for q in range(width - 1)]
    offset = sum(w * row[-1] for w, row in terms)
    if box is None:
        return not any(combined) and offset <= 0
    box = Fraction(box)
    return box.denominator * offset + box.numerator * sum(map(abs, combined)) <= 0


def is_witness(rows, offsets, x, box=None):
    """Exact check: a_k . x + c_k > 0 for every row (and |x_q| <= box for every q)."""
    x = [Fraction(v) for v in x]
    if box is not None and any(abs(v) > box for v in x):
        return False
    return all(sum(a_q * x_q for a_q, x_q in zip(a, x)) + c > 0
               for a, c in zip(rows, offsets))


def scaled_floats(rows, offsets, arithmetic=FLOATS):
    """Each row and its offset divided by the row's largest magnitude, as floats.

    The signs of a_k . x + c_k do not change, and a row whose numbers
    span past the float range keeps its largest ones.  In Decimals(n), as
    Decimals of n digits for the wide program, which keeps them all.

    >>> scaled_floats([[3, 0], [10 ** 400, 1]], [-6, 0])
    ([[0.5, 0.0], [1.0, 0.0]], [-1.0, 0.0])
    >>> from reviews.argmax.kernels.arithmetic import Decimals
    >>> scaled_floats([[3 * 10 ** 400, 1]], [-6], Decimals(5))
    ([[Decimal('1'), Decimal('3.3333E-401')]], [Decimal('-2E-400')])
    """
    if arithmetic.context is None:
        def convert(v, scale):
            return float(Fraction(v) / scale)
    else:
        def convert(v, scale):
            return arithmetic.context.divide(arithmetic.number(v), arithmetic.number(scale))
    float_rows, float_offsets = [], []
    for a, c in zip(rows, offsets):
        scale = max(max(abs(v) for v in a), abs(c)) or 1
        float_rows.append([convert(v, scale) for v in a])
        float_offsets.append(convert(c, scale))
    return float_rows, float_offsets


def decide_system(rows, offsets, box=None):
    """Decide a ≥1-row system exactly: a Decision with its certificate.

    With ``box`` (a positive rational M), only x with |x_q| <= M count,
    and a combination is one for that box (module docstring).

    >>> decide_system([[1], [-1]], [0, 0]).combination
    (Fraction(1, 2), Fraction(1, 2))
    >>> decide_system([[1], [1]], [0, -1]).witness
    (Fraction(4, 1),)
    >>> decide_system([[1], [1]], [0, -1], box=1).combination
    (Fraction(0, 1), Fraction(1, 1))
    """
    if not rows or not rows[0]:
        raise InputError("a system needs at least one row of at least one number")
    rows = [[Fraction(v) for v in a] for a in rows]
    offsets = [Fraction(c) for c in offsets]
    box = None if box is None else Fraction(box)
    return _float_search(rows, offsets, box) or _exact_search(rows, offsets, box)


def _float_search(rows, offsets, box):
    """A float basis, if its certificate checks exactly; else None."""
    penalty = float(_FIRST_PENALTY) if box is None else to_float(box)
    if not 0 < penalty < math.inf:
        return None
    program = Program(*scaled_floats(rows, offsets), penalty)
    for _ in range(_FLOAT_ROUNDS):
        relaxed = program.solve()
        if relaxed is None or not all(map(math.isfinite, relaxed.x)):
            return None
        if relaxed.value > 0:
            witness = tuple(Fraction(v) for v in relaxed.x)
            return Decision(witness, None) if is_witness(rows, offsets, witness, box) else None
        if box is not None or not relaxed.slack:
            lam = basis_combination(rows, offsets, relaxed.basis, box)
            return None if lam is None else Decision(None, lam)
        program.grow_penalty()
    return None


def _exact_search(rows, offsets, box):
    """The exact program's decision; it always comes (module docstring).

    Rows and offsets are scaled to integers by one positive factor, which
    changes neither certificate.  A box p/q becomes the integer penalty p
    on y = q * x, with offsets times q.
    """
    flat = _integers([v for a, c in zip(rows, offsets) for v in list(a) + [c]])
    width = len(rows[0]) + 1
    lines = [flat[n:n + width] for n in range(0, len(flat), width)]
    penalty, scale = (_FIRST_PENALTY, 1) if box is None else (box.numerator, box.denominator)
    program = Program([line[:-1] for line in lines], [scale * line[-1] for line in lines],
                      penalty, EXACT)
    while True:
        relaxed = program.solve()
        if relaxed.value > 0:
            return Decision(tuple(v / scale for v in relaxed.x), None)
        if box is not None or not relaxed.slack:
            return Decision(None, tuple(program.row_weights()))
        program.grow_penalty()
