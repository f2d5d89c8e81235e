"""A class decided on a product of intervals: a float simplex guesses, exact checks prove.

reviews.argmax.domain moves every product of intervals to a box
[-r, r]^d or to the orthant y >= 0.  There class i of a layer of rows w_j
and biases b_j is asked through the linear program

    maximize t  subject to  (w_i - w_j) . y + b_i - b_j >= t  for j in a working set,
                            low <= y_k <= high  for every k,

of one row per rival and d bounded columns.  A basis of it holds at most
as many coordinates of y as it has rows, every other coordinate at an
end, so a step of the bounded-variable primal simplex costs about rows * d
operations (and a move of a coordinate from one end to the other, no
basis change at all), where the penalized program of
reviews.argmax.strategy.feasibility pivots a tableau of d rows.  The
simplex runs in floats and only guesses; its answer is proved exactly:

* a point y where class i wins is checked against every row of the layer
  exactly (the caller's check); rivals that beat it join the working set
  and the simplex goes on from where it was (Clarkson's rounds);
* at its optimum the basis is solved for exactly: the point (the
  coordinates in the basis and t, from the tight rows, every other
  coordinate at its end) is tried as a witness, and the weights lam on the
  tight rows with sum 1 and sum_j lam_j (w_i - w_j)_k = 0 on each
  coordinate in the basis, both square systems of at most one more
  equation than there are rows, give the combination, which proves that
  class i never wins when lam >= 0 and

      sum_j lam_j (b_i - b_j) + max over the inputs of sum_j lam_j (w_i - w_j) . y <= 0,

  checked exactly (reviews.argmax.kernels.norms.holds_at).

Where neither checks (floats past their range or rounding away a margin
of about 0, a basis that the floats got wrong), where the working set
passes d / 2 rows (the penalized program's tableau of d rows is then the
smaller) or the floats' work passes its budget, None is returned and the
caller's exact methods decide.

    BOUNDED_FROM    the dimensions from which the checker asks this program
    ScaledLayer     a layer's integer rows and biases with the floats the simplex reads
    decide_bounded  (witness, None), (None, terms) or None for one class
"""

import array
import math
import operator
from fractions import Fraction

from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.strategy.feasibility import solve_square
from reviews.exact import common_denominator, to_float

__all__ = ["BOUNDED_FROM", "ScaledLayer", "decide_bounded"]

# From this many dimensions a class in a box or on the orthant is decided
# by this program where the searches leave it.
BOUNDED_FROM = 32

# Reduced costs and pivots of at most this (entries are at most 1) count as 0.
_ZERO = 1e-11
# Rivals a round adds at most.
_ADDED = 8
# A float point becomes a point of this many bits before its exact check.
_POINT_BITS = 30
# Pivots of one solve: far more than the rows, then the caller's methods decide.
_PIVOTS_PER_ROW, _FIRST_PIVOTS = 10, 200
# Rounds of rivals added.
_ROUNDS = 64
# A working set of more than d / _ROWS_PER_DIMENSION rows is left to the
# exact methods: the basis holds as many coordinates as there are rows, and
# past about half of d the penalized program's tableau of d rows costs less
# (g2pM's unargmaxable classes, d = 32 and about 45 rivals, took 4x longer).
_ROWS_PER_DIMENSION = 2
# Rows of floats kept at most (a fresh start past it).
_KEPT_ROWS = 4096
# Float multiply-adds of one class's simplex, at most (py3langid's head,
# d = 100,053, needs 23 million on x >= 0, about 15 s; the exact methods'
# first tableau there, d rows of d entries, is past any memory).  A
# program the floats cannot finish within this goes to the exact methods.
_WORK = 2 ** 25


class ScaledLayer:
    """Integer ``rows`` and ``biases`` (a list of ints), with float copies:
    the weights over ``weight_scale``, the biases over ``bias_scale``
    (positive ints), so that the simplex's y is the true y over
    ``unit`` = bias_scale / weight_scale."""

    def __init__(self, rows, biases, weight_scale, bias_scale):
        self.rows, self.biases = rows, biases
        self.weight_scale, self.bias_scale = weight_scale, bias_scale
        self.unit = Fraction(bias_scale, weight_scale)
        self._floats = {}

    def floats(self, j):
        """(row j's weights as an array of doubles, its bias) as floats of
        the simplex, kept for the rows asked for most recently."""
        found = self._floats.get(j)
        if found is None:
            if len(self._floats) >= _KEPT_ROWS:
                # A layer of 128,256 rows: the rivals of all its classes
                # together must not be kept (8 bytes a value).
                self._floats.clear()
            scale = self.weight_scale
            found = (array.array("d", [v / scale for v in self.rows[j]]),
                     self.biases[j] / self.bias_scale)
            self._floats[j] = found
        return found


def decide_bounded(layer, i, working, question, check):
    """(witness, None), (None, terms) or None for class i of the ScaledLayer
    ``layer`` on the domain of ``question`` (a Question: a box, or inputs
    [0, inf)), from the rivals ``working`` (a list, extended here).

    ``check(point)`` (a point in the domain: a Witness, or a list of
    Fractions) is (witness, None)
    where class i wins there, else (None, the rivals that beat it, at most
    a few).  The terms are pairs (j, lam_j), checked exactly.

    Class 3 ties the mean of classes 1 and 2 everywhere, and with a bias
    of 1 wins at (4, 4):

    >>> from reviews.argmax.question import Question
    >>> rows = [[0, 0], [2, 0], [0, 2], [1, 1]]
    >>> def check_of(layer):
    ...     def check(point):
    ...         logits = [sum(map(operator.mul, row, point)) + b
    ...                   for row, b in zip(layer.rows, layer.biases)]
    ...         rivals = [j for j in range(3) if logits[j] >= logits[3]]
    ...         return (None if rivals else tuple(point)), rivals
    ...     return check
    >>> layer = ScaledLayer(rows, [0, 0, 0, 0], 2, 1)
    >>> decide_bounded(layer, 3, [0, 1, 2], Question(inputs=(0, None)), check_of(layer))
    (None, ((1, Fraction(1, 2)), (2, Fraction(1, 2))))
    >>> layer = ScaledLayer(rows, [0, 0, 0, 1], 2, 1)
    >>> decide_bounded(layer, 3, [0, 1, 2], Question(4), check_of(layer))[0]
    (Fraction(4, 1), Fraction(4, 1))
    """
    if question.box is not None:
        low, high = -question.box, question.box
    else:
        low, high = question.inputs
    float_low, float_high = (_float(low / layer.unit),
                             math.inf if high is None else _float(high / layer.unit))
    if float_low is None or float_high is None or (
            high is not None and not float_low < float_high < math.inf):
        return None
    simplex = _Simplex(len(layer.rows[i]), float_low, float_high)
    own, own_bias = layer.floats(i)

    def rows_of(rivals):
        found = [layer.floats(j) for j in rivals]
        return ([list(map(operator.sub, own, row)) for row, _ in found],
                [own_bias - bias for _, bias in found])

    simplex.add(*rows_of(working))
    whole = False
    for _ in range(_ROUNDS):
        try:
            solved = simplex.solve(whole)
        except (OverflowError, ValueError):
            # Sums of products past the float range (a box near it, or
            # biases tiny beside the weights): the floats cannot guess.
            return None
        if not solved:
            return None
        if simplex.t <= _ZERO:
            # An optimum of t <= 0: the working set's combination is the
            # answer (more rivals cannot raise t), or the floats failed.
            return _from_basis(layer, i, working, question, check, simplex, low, high)
        if not all(map(math.isfinite, simplex.y)):
            return None
        witness, rivals = check(_exact_point(simplex.y, layer.unit, low, high))
        if witness is not None:
            return witness, None
        fresh = [j for j in rivals if j not in working][:_ADDED]
        if fresh and (len(working) + len(fresh)) * _ROWS_PER_DIMENSION > simplex.dim:
            return None
        if fresh:
            working += fresh
            simplex.add(*rows_of(fresh))
        elif not whole:
            # The point of a positive t lost to a rival of the working
            # set in its rounding: the optimum's basis is solved exactly.
            whole = True
        else:
            return _from_basis(layer, i, working, question, check, simplex, low, high)
    return None


def _float(value):
    """A Fraction as a float, or None past the float range."""
    found = to_float(value)
    return found if math.isfinite(found) else None


def _exact_point(y, unit, low, high):
    """The float point y of the simplex as a Witness of _POINT_BITS bits
    times ``unit``, inside [low, high] (in integers over one denominator)."""
    largest = max(map(abs, y), default=0.0)
    shift = _POINT_BITS - math.frexp(largest)[1] if largest else 0
    scaled = [round(math.ldexp(v, shift)) for v in y]
    # x_k = scaled_k * unit / 2**shift, over a denominator the ends share.
    denominator = common_denominator([unit / 2 ** max(shift, 0), low,
                                      0 if high is None else high])
    factor = int(unit * denominator / Fraction(2) ** shift)
    lowest = int(low * denominator)
    if high is None:
        return Witness([max(lowest, v * factor) for v in scaled], denominator)
    highest = int(high * denominator)
    return Witness([max(lowest, min(highest, v * factor)) for v in scaled], denominator)


def _from_basis(layer, i, working, question, check, simplex, low, high):
    """The simplex's optimal basis solved exactly: its point tried as a
    witness, then its combination checked; None if neither holds."""
    dim = simplex.dim
    inside = [var for var in simplex.basis if var < dim]
    tight = [r for r in range(len(working)) if dim + 1 + r not in simplex.basis]
    if len(tight) != len(inside) + 1:
        return None
    at_end = [high is not None and simplex.y[k] > (simplex.low + simplex.high) / 2
              for k in range(dim)]
    ends = [high if up else low for up in at_end]
    exact_rows = [list(map(operator.sub, layer.rows[i], layer.rows[working[r]])) for r in tight]
    offsets = [layer.biases[i] - layer.biases[working[r]] for r in tight]
    basic = set(inside)
    # The coordinates at their ends: low times the sum of a row there, and high's.
    fixed = []
    for row in exact_rows:
        sums = [0, 0]
        for k, (v, up) in enumerate(zip(row, at_end)):
            if k not in basic:
                sums[up] += v
        fixed.append(low * sums[0] + (high * sums[1] if sums[1] else 0))
    # Coordinates in the basis and t from the tight rows (all in the true units).
    solved = solve_square([[row[k] for row in exact_rows] for k in inside]
                          + [[-1] * len(tight)],
                          [-c - f for c, f in zip(offsets, fixed)])
    # Its t, solved exactly, must be positive for the point to win.
    if solved is not None and solved[-1] > 0:
        point = list(ends)
        for k, v in zip(inside, solved):
            point[k] = v
        if all(low <= v and (high is None or v <= high) for v in point):
            witness, _ = check(point)
            if witness is not None:
                return witness, None
    lam = solve_square([[row[k] for k in inside] + [1] for row in exact_rows],
                       [0] * len(inside) + [1])
    if lam is None or any(v < 0 for v in lam):
        return None
    terms = sorted((working[r], v) for r, v in zip(tight, lam) if v)
    rivals = [j for j, _ in terms]
    if holds_at([list(map(operator.sub, layer.rows[j], layer.rows[i])) for j in rivals],
                [layer.biases[j] - layer.biases[i] for j in rivals], [v for _, v in terms],
                question):
        return None, tuple(terms)
    return None


class _Simplex:
    """The bounded-variable primal simplex of ``decide_bounded``'s program
    in floats, rows added between solves.

    Variables: y_0 .. y_{d-1} in [low, high], t (free, always in the
    basis), a slack s_r >= 0 per row r: a_r . y - t - s_r = -c_r.  The
    basis inverse is kept explicitly (rows * rows); y starts at the ends
    that favour class i against the rows' mean, and each solve starts from
    the last point, t and the slacks made anew (a point and its t are
    always feasible)."""

    def __init__(self, dim, low, high):
        self.dim, self.low, self.high = dim, low, high
        self.rows, self.offsets = [], []
        self.y = None
        self.work = 0

    def add(self, rows, offsets):
        self.rows += rows
        self.offsets += offsets

    def _start(self):
        rows, dim = self.rows, self.dim
        if self.y is None:
            totals = [0.0] * dim
            for row in rows:
                totals = list(map(operator.add, totals, row))
            up = self.high if self.high < math.inf else self.low
            self.y = [up if v > 0 else self.low for v in totals]
        margins = [_dot(row, self.y) + c for row, c in zip(rows, self.offsets)]
        first = min(range(len(rows)), key=margins.__getitem__)
        self.t = margins[first]
        self.s = [v - self.t for v in margins]
        self.s[first] = 0.0
        m = len(rows)
        self.basis = [dim + 1 + r for r in range(m)]
        self.basis[first] = dim
        self.inverse = [[0.0] * m for _ in range(m)]
        for r in range(m):
            self.inverse[r][r] = -1.0
            if r != first:
                self.inverse[r][first] = 1.0

    def value(self, var):
        if var < self.dim:
            return self.y[var]
        return self.t if var == self.dim else self.s[var - self.dim - 1]

    def _set(self, var, value):
        if var < self.dim:
            self.y[var] = value
        elif var == self.dim:
            self.t = value
        else:
            self.s[var - self.dim - 1] = value

    def _bounds(self, var):
        if var < self.dim:
            return self.low, self.high
        return (-math.inf if var == self.dim else 0.0), math.inf

    def _column(self, var):
        if var < self.dim:
            return [row[var] for row in self.rows]
        if var == self.dim:
            return [-1.0] * len(self.rows)
        column = [0.0] * len(self.rows)
        column[var - self.dim - 1] = -1.0
        return column

    def solve(self, whole=True):
        """Whether an optimum (or a t that grows without end: y is then a
        point of t > 0) was reached in floats, or, not ``whole``, a point
        of t > 0; self.y is the point."""
        self._start()
        rows, dim = len(self.rows), self.dim
        pivots = _FIRST_PIVOTS + _PIVOTS_PER_ROW * rows
        while pivots and self.work < _WORK:
            if not (math.isfinite(self.t) and all(map(math.isfinite, self.y))):
                return False
            if not whole and self.t > _ZERO:
                return True
            entering = self._priced()
            # Pricing, refreshing and a jump each cost about rows * d; a
            # step along one variable, rows * rows.
            self.work += 3 * rows * dim
            if not entering:
                return True
            for _, var, sign in entering:
                if self.work >= _WORK:
                    return False
                self.work += rows * rows
                outcome = self._step(var, sign)
                if outcome is None:
                    return self.t > 0
                if outcome:
                    pivots -= 1
                    break
            else:
                continue
            self._refresh()
            if pivots % (len(self.rows) + 2) == 0 and self._jumped():
                self._start()
        return False

    def _jumped(self):
        """Whether the point with every coordinate at the end its weight in
        the basis's combination favours (where it has such an end) has a
        larger t; then it is y.  A pivot moves one coordinate from end to
        end, and an optimum of d = 1280 may be a thousand of them away."""
        where = self.basis.index(self.dim)
        lam = [max(0.0, -v) for v in self.inverse[where]]
        combined = [0.0] * self.dim
        for weight, row in zip(lam, self.rows):
            if weight:
                combined = list(map(operator.add, combined, map(weight.__mul__, row)))
        high = self.high
        point = [high if v > 0 and high < math.inf else self.low if v < 0 else y
                 for v, y in zip(combined, self.y)]
        t = min(sum(map(operator.mul, row, point)) + c for row, c in zip(self.rows, self.offsets))
        if t > self.t:
            self.y = point
            return True
        return False

    def _priced(self):
        """The variables whose move raises t: (gain, var, direction), most first."""
        dim, low, high = self.dim, self.low, self.high
        where = self.basis.index(dim)
        lam = [-v for v in self.inverse[where]]
        combined = [0.0] * dim
        for weight, row in zip(lam, self.rows):
            if weight:
                combined = list(map(operator.add, combined, map(weight.__mul__, row)))
        basic = set(self.basis)
        found = []
        for k, (gain, v) in enumerate(zip(combined, self.y)):
            if k in basic:
                continue
            if gain > _ZERO and v < high:
                found.append((gain, k, 1))
            elif gain < -_ZERO and v > low:
                found.append((-gain, k, -1))
            elif low < v < high:
                # A coordinate left between its ends by an earlier round goes to one.
                found.append((abs(gain), k, 1 if gain > 0 else -1))
        for r, weight in enumerate(lam):
            if -weight > _ZERO and dim + 1 + r not in basic:
                found.append((-weight, dim + 1 + r, 1))
        found.sort(key=lambda item: (-item[0], item[1]))
        return found

    def _step(self, var, sign):
        """Move ``var`` in direction ``sign`` as far as the bounds allow:
        True for a pivot, False for a move to its own other end, None where
        nothing stops it (t grows without end)."""
        column = self._column(var)
        alpha = [_dot(row, column) for row in self.inverse]
        low, high = self._bounds(var)
        value = self.value(var)
        best = (high - value) if sign > 0 else (value - low)
        leaving = None
        for p, basic in enumerate(self.basis):
            if basic == self.dim:
                continue
            rate = -sign * alpha[p]
            if abs(rate) <= _ZERO:
                continue
            lower, upper = self._bounds(basic)
            current = self.value(basic)
            if rate < 0:
                limit = max(0.0, current - lower) / -rate
            elif upper < math.inf:
                limit = max(0.0, upper - current) / rate
            else:
                continue
            if limit < best or (limit == best and leaving is not None
                                and abs(alpha[p]) > abs(alpha[leaving])):
                best, leaving = limit, p
        if best == math.inf:
            where = self.basis.index(self.dim)
            rate = -sign * alpha[where]
            step = (abs(self.t) + 1.0) / rate if rate > 0 else 1.0
            self._move(var, sign, step, alpha)
            return None
        self._move(var, sign, best, alpha)
        if leaving is None:
            self._set(var, high if sign > 0 else low)
            return False
        left = self.basis[leaving]
        lower, upper = self._bounds(left)
        self._set(left, lower if -sign * alpha[leaving] < 0 else upper)
        pivot = alpha[leaving]
        inverse = self.inverse
        head = [v / pivot for v in inverse[leaving]]
        inverse[leaving] = head
        for p, factor in enumerate(alpha):
            if p != leaving and factor:
                inverse[p] = list(map(operator.sub, inverse[p], map(factor.__mul__, head)))
        self.basis[leaving] = var
        return True

    def _move(self, var, sign, step, alpha):
        self._set(var, self.value(var) + sign * step)
        for p, basic in enumerate(self.basis):
            if alpha[p]:
                self._set(basic, self.value(basic) - sign * step * alpha[p])

    def _refresh(self):
        """The basic values solved again from the others (floats drift)."""
        dim = self.dim
        basic = set(self.basis)
        inside = [k for k in self.basis if k < dim]
        right = []
        for r, (row, c) in enumerate(zip(self.rows, self.offsets)):
            # The coordinates at their ends: the whole product less the basic ones.
            total = -c - (sum(map(operator.mul, row, self.y))
                          - sum(row[k] * self.y[k] for k in inside))
            if dim + 1 + r not in basic:
                total += self.s[r]
            right.append(total)
        for p, var in enumerate(self.basis):
            self._set(var, _dot(self.inverse[p], right))


def _dot(a, b):
    return math.fsum(map(operator.mul, a, b))
