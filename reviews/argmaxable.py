"""Exact argmaxability of the classes of a softmax layer, with certificates.

A layer has C classes with weights w_j in R^d and optional biases b_j; the
logits are w_j . x + b_j.  Class i is argmaxable iff some input x gives it
strictly the largest logit.  ``check_layer`` decides every class exactly and
returns a certificate for each, checked exactly or exact by construction:

* argmaxable: a ``witness`` x (Fractions) with w_i . x + b_i > w_j . x + b_j
  for every j != i;
* not argmaxable: a combination lam with lam >= 0, lam_i = 0, sum(lam) = 1,
  sum_j lam_j w_j = w_i and sum_j lam_j b_j >= b_i, kept sparse as its
  nonzero ``terms`` ((j, lam_j), ...): a basic solution has at most
  rank + 1 of them (Caratheodory), so memory grows with C, not C**2.

How it stays fast in pure Python: every number is scaled to an integer by
one common denominator; a candidate x is checked against all C classes at
once by a few big-integer products (the C logits packed into one integer,
rounded to 30 bits, with a rigorous bound on the rounding), and only the
classes whose margin is within that bound are checked one by one in exact
integers.  Candidates come from x = w_i, then from a small linear program
over the classes that beat the last candidate (Clarkson's idea), in floats;
the same program in exact integers decides what floats leave open, and
always decides (reviews.feasibility proves that it ends).  With fewer
classes than dimensions (C - 1 < d), the program runs in exact coordinates
on the affine span of the rows, of dimension at most C - 1, and witnesses
are mapped back to R^d exactly.

Floats only propose: a number past the float range is still taken at its
exact value, and where floats cannot hold it the exact path decides.

    check_layer     one ClassResult per class
    verify          exact, independent check of a ClassResult's certificate
    braid_reflect   the paper's approximate search (floats), for comparison
    ClassResult     index, argmaxable, witness, terms, classes; .combination
"""

import heapq
import itertools
import math
import numbers
import operator
import re
from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import common_denominator, real_number, to_float
from reviews.feasibility import Program, basis_combination, is_combination, solve_square

__all__ = ["ClassResult", "check_layer", "verify", "braid_reflect", "exact_layer"]



class ClassResult(namedtuple("ClassResult", "index argmaxable witness terms classes")):
    """The decision for one class.

    index: the class; argmaxable: bool; witness: tuple of Fraction (length
    d) or None; terms: the nonzero weights of the combination as
    ((j, Fraction), ...) in increasing j, or None; classes: C, the layer's
    number of classes (needed only for ``combination``).

    >>> ClassResult(2, False, None, ((0, Fraction(1, 2)), (1, Fraction(1, 2))), 3).combination
    (Fraction(1, 2), Fraction(1, 2), 0)
    """

    __slots__ = ()

    def __new__(cls, index, argmaxable, witness=None, terms=None, classes=None):
        return super().__new__(cls, index, argmaxable, witness, terms, classes)

    @property
    def combination(self):
        """The combination as a dense tuple of length C (0 off the terms), or None."""
        if self.terms is None:
            return None
        if self.classes is None:
            raise InputError("class %d: a dense combination needs the number of classes"
                             % self.index)
        dense = [0] * self.classes
        for j, value in self.terms:
            if not 0 <= j < self.classes:
                raise InputError("class %d: its terms name class %d of only %d"
                                 % (self.index, j, self.classes))
            dense[j] = value
        return tuple(dense)

# Rounded weights carry this many bits; candidates up to _CANDIDATE_BITS.
_WEIGHT_BITS = 30
_CANDIDATE_BITS = 32
_NONZERO = re.compile(b"[^\x00]")
_FIRST_PENALTY = 4
_FLOAT_ROUNDS = 64
_ADDED_PER_ROUND = 8
_MARGIN_TOLERANCE = 1e-9
_REFLECTIONS = 8
# Floats of the layer in its own units while entries stay below 2**_FLOAT_BITS.
_FLOAT_BITS = 1000


def exact_layer(weights, bias=None):
    """Validate a layer; its weights and bias as Fractions.

    >>> exact_layer([[0.5, 1]], [Fraction(9, 10)])
    ([[Fraction(1, 2), Fraction(1, 1)]], [Fraction(9, 10)])
    """
    rows, biases = _validated(weights, bias)
    return ([[Fraction(v) for v in row] for row in rows],
            None if biases is None else [Fraction(v) for v in biases])


def _validated(weights, bias):
    """The layer's entries, each a finite float or a Fraction; InputError naming a bad one."""
    rows = _rows(weights)
    width = len(rows[0])
    values = []
    for j, row in enumerate(rows):
        if len(row) != width:
            raise InputError("weights row %d has length %d, row 0 has length %d"
                             % (j, len(row), width))
        # A finite float is taken as it is (v - v is 0.0 only for those);
        # everything else goes through the full check.
        values.append([v if type(v) is float and not v - v
                       else _finite(v, "weights[%d][%d]" % (j, k)) for k, v in enumerate(row)])
    if bias is None:
        return values, None
    bias = _sequence(bias, "bias")
    if len(bias) != len(rows):
        raise InputError("bias has length %d for %d classes" % (len(bias), len(rows)))
    return values, [_finite(v, "bias[%d]" % j) for j, v in enumerate(bias)]


def _integer_layer(weights, bias):
    """(integer rows, integer biases or None, d): the layer times d, its least common denominator.

    Goes from each entry's integer ratio to the integers without a Fraction
    per entry: a float layer has few distinct denominators (powers of 2).
    """
    rows, biases = _validated(weights, bias)
    entries = itertools.chain(itertools.chain.from_iterable(rows), biases or ())
    denominators = {v.as_integer_ratio()[1] for v in entries}
    common = common_denominator(Fraction(1, q) for q in denominators)
    factors = {q: common // q for q in denominators}

    def scaled(values):
        return [n * factors[q] for n, q in (v.as_integer_ratio() for v in values)]

    return ([scaled(row) for row in rows],
            None if biases is None else scaled(biases), common)


def _sequence(values, what):
    if isinstance(values, (str, bytes)):
        raise InputError("%s must be a sequence of numbers, not text" % what)
    try:
        return list(values)
    except TypeError:
        raise InputError("%s must be a sequence of numbers, not %s"
                         % (what, type(values).__name__)) from None


def _rows(weights):
    rows = [_sequence(row, "weights row %d" % j)
            for j, row in enumerate(_sequence(weights, "weights"))]
    if not rows:
        raise InputError("the layer has no classes (weights is empty)")
    if not rows[0]:
        raise InputError("weights row 0 is empty: the dimension d must be at least 1")
    return rows


def _finite(value, where, what="weights and biases"):
    """A finite float or an exact Fraction, or InputError."""
    exact = real_number(value, where)
    if isinstance(exact, float) and math.isinf(exact):
        raise InputError("%s is %r; %s must be finite" % (where, exact, what))
    return exact


def _dot(a, b):
    return sum(map(operator.mul, a, b))


class _Packed:
    """All C logits of a candidate at once, exact in sign.

    ``rows`` are integer rows (weights, then the bias if any); a candidate is
    an integer vector of the same length, and logits are rows . candidate.
    The rows are packed in order of decreasing norm: without a bias, a row
    shorter than logit_i / |candidate| cannot reach logit_i (Cauchy-Schwarz),
    so only a prefix of the packed fields needs computing.
    """

    def __init__(self, rows, prune):
        self.rows = rows
        self.prune = prune
        width = len(rows[0])
        norms = [_dot(row, row) for row in rows]
        self.order = sorted(range(len(rows)), key=lambda j: -norms[j])
        self.norms = [norms[j] for j in self.order]
        self.rank = {j: n for n, j in enumerate(self.order)}
        largest = max(abs(v) for row in rows for v in row)
        self.shift = max(0, largest.bit_length() - _WEIGHT_BITS)
        bits = _WEIGHT_BITS + 1 + _CANDIDATE_BITS + width.bit_length() + 3
        self.field_bytes = -(-bits // 8)
        field = 8 * self.field_bytes
        self.ones = int.from_bytes((b"\x01" + bytes(self.field_bytes - 1)) * len(rows), "little")
        self.half = 1 << (field - 1)
        self.top = self.ones << (field - 1)
        # Fields hold rounded + offset >= 0, so that a prefix is a bit mask.
        self.offset = self.half >> 1
        size = self.field_bytes
        packed_rows = [b"".join((v + self.offset).to_bytes(size, "little")
                                for v in self._rounded(rows[j])) for j in self.order]
        self.columns = [int.from_bytes(b"".join(row[k * size:(k + 1) * size]
                                                for row in packed_rows), "little")
                        for k in range(width)]

    def _rounded(self, row):
        """The row's entries divided by 2**shift, rounded to the nearest."""
        half = (1 << (self.shift - 1)) if self.shift else 0
        return [(v + half) >> self.shift for v in row]

    def beaten_by(self, i, candidate, wanted):
        """Up to ``wanted`` classes j != i with logit_j >= logit_i, exactly.

        An empty list proves that the candidate makes class i the strict
        maximum.  Rivals come largest (rounded) logit first.
        """
        logit_i = _dot(self.rows[i], candidate)
        if max(map(abs, candidate)) >> _CANDIDATE_BITS:
            suspects = sorted(range(len(self.rows)), key=lambda j: -_dot(self.rows[j], candidate))
        else:
            suspects = self._suspects(i, candidate, self._reach(logit_i, candidate), wanted)
        found = []
        for j in suspects:
            if j != i and _dot(self.rows[j], candidate) >= logit_i:
                found.append(j)
                if len(found) == wanted:
                    break
        return found

    def _reach(self, logit_i, candidate):
        """How many rows, longest first, might reach logit_i."""
        size = _dot(candidate, candidate)
        if not (self.prune and logit_i > 0 and size):
            return len(self.rows)
        # The rows with norm**2 * size >= logit_i**2 form a prefix.
        low, high, target = 0, len(self.rows), logit_i * logit_i
        while low < high:
            middle = (low + high) // 2
            if self.norms[middle] * size >= target:
                low = middle + 1
            else:
                high = middle
        return low

    def _suspects(self, i, candidate, reach, wanted):
        """Classes among the first ``reach`` whose rounded margin proves nothing.

        Largest rounded logit first; ordered lazily, as usually only about
        ``wanted`` of them are looked at.
        """
        if not reach:
            return []
        field = 8 * self.field_bytes
        columns, ones, top = self.columns, self.ones, self.top
        if reach < len(self.rows):
            mask = (1 << (field * reach)) - 1
            columns, ones, top = [c & mask for c in columns], ones & mask, top & mask
        packed = sum(x * column for x, column in zip(candidate, columns) if x)
        # Each rounded logit is within half the candidate's 1-norm of exact.
        bound = sum(map(abs, candidate)) if self.shift else 0
        own_logit = _dot(self._rounded(self.rows[i]), candidate)
        lift = self.half - own_logit + bound - self.offset * sum(candidate)
        lifted = packed + lift * ones
        flags = lifted & top
        own = self.rank[i]
        if flags == (1 << (field * own + field - 1) if own < reach else 0):
            return []
        size = self.field_bytes
        data = lifted.to_bytes(reach * size, "little")
        flagged = [(match.start() + 1) // size - 1
                   for match in _NONZERO.finditer(flags.to_bytes(len(data), "little"))]

        def logit(n):
            return int.from_bytes(data[n * size:(n + 1) * size], "little")

        return (self.order[n] for n in _largest_first(flagged, logit, wanted + _ADDED_PER_ROUND))


def _largest_first(items, key, count):
    """sorted(items, key=key, reverse=True), sorting all only past the first ``count``."""
    first = heapq.nlargest(count, items, key=key)
    yield from first
    if len(first) < len(items):
        yield from sorted(items, key=key, reverse=True)[count:]


class _Layer:
    """A layer in integers (its entries times ``denominator``), packed, with float copies.

    ``bias`` is None for a layer without bias.
    """

    def __init__(self, weights, bias, denominator):
        self.weights = weights
        self.classes, self.dim = len(weights), len(weights[0])
        self.has_bias = bias is not None
        self.bias = bias if self.has_bias else [0] * self.classes
        self.denominator = denominator
        rows = [w + [b] for w, b in zip(weights, bias)] if self.has_bias else weights
        self.packed = _Packed(rows, prune=not self.has_bias)
        self._reduced = None
        # Floats of the layer in its own units, for x = w_i and the
        # reflections; past the float range, in units of the largest entry.
        largest = max(abs(v) for row in rows for v in row)
        unit = denominator if largest >> _FLOAT_BITS < denominator else largest
        self.float_weights = [[v / unit for v in row] for row in weights]
        self.float_bias = [v / unit for v in self.bias]
        # The LPs see weights and biases each scaled to at most 1; their x is
        # then in units of bias scale / weight scale, where witnesses live.
        weight_scale = max(abs(v) for row in weights for v in row) or 1
        bias_scale = max(map(abs, self.bias)) or weight_scale
        self.lp_weights = [[v / weight_scale for v in row] for row in weights]
        self.lp_bias = [v / bias_scale for v in self.bias]
        self.x_unit = Fraction(bias_scale, weight_scale)
        self.float_x_unit = to_float(self.x_unit)
        self.first_penalty = max(_FIRST_PENALTY, -(-_FIRST_PENALTY * bias_scale // weight_scale))

    def candidate(self, x):
        """(integer candidate, its denominator) for a point x.

        The candidate is x * denominator (with the denominator appended when
        there is a bias), so logits of the candidate are positive multiples
        of the logits at x.
        """
        if all(isinstance(v, float) for v in x):
            largest = max(max(map(abs, x)), 1.0 if self.has_bias else 0.0)
            t = _WEIGHT_BITS - math.frexp(largest)[1]
            if self.has_bias:
                t = max(t, 0)
            scaled = [round(math.ldexp(v, t)) for v in x]
            denominator = Fraction(2) ** t
        else:
            denominator = common_denominator(x)
            scaled = [int(v * denominator) for v in x]
        if self.has_bias:
            scaled.append(int(denominator))
        return scaled, denominator

    def exact_row_candidate(self, i):
        """x = w_i exactly, if its integer candidate is small; else None."""
        scaled = self.weights[i] + ([self.denominator] if self.has_bias else [])
        if max(map(abs, scaled)) >> _CANDIDATE_BITS:
            return None
        return scaled, self.denominator

    def witness(self, i, candidate):
        scaled, denominator = candidate
        return ClassResult(i, True, tuple(Fraction(v) / denominator
                                          for v in scaled[:self.dim]), None)

    def reflect(self, x, i, rival):
        """x reflected across the tie of classes i and rival; None if floats fail."""
        normal = [p - q for p, q in zip(self.float_weights[i], self.float_weights[rival])]
        size = _dot(normal, normal)
        if not size:
            return None
        distance = (_dot(normal, x) + self.float_bias[i] - self.float_bias[rival]) / size
        point = [v - 2 * distance * n for v, n in zip(x, normal)]
        return point if all(map(math.isfinite, point)) else None

    def lp_rows(self, i, working, exact):
        """Rows w_i - w_j and offsets b_i - b_j of the LP over ``working``."""
        if exact:
            rows = [[a - b for a, b in zip(self.weights[i], self.weights[j])] for j in working]
            return rows, [self.bias[i] - self.bias[j] for j in working]
        rows = [[a - b for a, b in zip(self.lp_weights[i], self.lp_weights[j])]
                for j in working]
        return rows, [self.lp_bias[i] - self.lp_bias[j] for j in working]

    def lp_candidate(self, x, exact):
        """The candidate for the LP's point x; None if floats fail."""
        if exact:
            return self.candidate(x)
        if not all(map(math.isfinite, x)):
            return None
        point = [v * self.float_x_unit for v in x]
        if all(map(math.isfinite, point)):
            return self.candidate(point)
        # The unit is past the float range: scale exactly instead.
        return self.candidate([Fraction(v) * self.x_unit for v in x])

    def reduced(self, needed):
        """This layer on the affine span of its rows, or None if not worth it.

        The span of {w_j - w_0} has dimension r <= C - 1, so only C - 1 < d
        can gain.  Finding it costs about C * d * r exact operations on
        numbers r times longer than the entries, and a float program in d
        dimensions about d**3 float operations: so the floats get the span
        only for few classes (C**3 <= d**2), the exact program whenever it
        is ``needed`` (exact pivots in d dimensions cost far more).
        Computed once, when a class first needs the LP.
        """
        if self.classes - 1 >= self.dim or not (needed or self.classes ** 3 <= self.dim ** 2):
            return None
        if self._reduced is None:
            self._reduced = _Reduction(self)
        return self._reduced


class _Reduction:
    """A layer in coordinates on the affine span of its rows, and the way back.

    With pivot classes p_1..p_r whose differences v_k = W_(p_k) - W_0 form
    a basis of the span of {W_j - W_0}, every W_j - W_0 = sum_k (N_jk /
    delta) v_k with integers N_jk.  In coordinates s_k = v_k . x the logit
    differences are (W_j - W_0) . x = N_j . s / delta, so the layer with
    rows N_j (bias delta * b_j, units delta * denominator) has the same
    argmax everywhere; a witness s maps back to any x with v_k . x = s_k,
    and a combination is the same combination.
    """

    def __init__(self, layer):
        weights, dim = layer.weights, layer.dim
        origin = weights[0]
        # Fraction-free Gauss-Jordan (Bareiss) on the matrix whose columns
        # are W_j - W_0: it ends with delta * identity in the pivot columns
        # and delta * the coordinates in the others.
        matrix = [[row[q] - origin[q] for row in weights[1:]] for q in range(dim)]
        coordinates = list(range(dim))
        rank, previous, pivots = 0, 1, []
        for column in range(layer.classes - 1):
            pick = next((q for q in range(rank, dim) if matrix[q][column]), None)
            if pick is None:
                continue
            matrix[rank], matrix[pick] = matrix[pick], matrix[rank]
            coordinates[rank], coordinates[pick] = coordinates[pick], coordinates[rank]
            head = matrix[rank]
            p = head[column]
            for q in range(dim):
                row = matrix[q]
                f = row[column]
                if q != rank and (f or any(row)):
                    matrix[q] = [(p * a - f * b) // previous for a, b in zip(row, head)]
            previous = p
            pivots.append(column + 1)
            rank += 1
        sign = -1 if previous < 0 else 1
        delta = sign * previous
        rows = [[0] * max(rank, 1)] + [
            [sign * matrix[k][j] for k in range(rank)] or [0] for j in range(layer.classes - 1)]
        bias = [delta * b for b in layer.bias] if layer.has_bias else None
        self.layer = _Layer(rows, bias, delta * layer.denominator)
        self.dim = dim
        self.coordinates = coordinates[:rank]
        # Column m of the square system v_k . x = s_k on those coordinates.
        self.columns = [[weights[p][q] - origin[q] for p in pivots] for q in self.coordinates]

    def lift(self, result):
        """A reduced layer's ClassResult for the original layer."""
        if not result.argmaxable:
            return result
        x = [Fraction(0)] * self.dim
        if self.coordinates:
            solution = solve_square(self.columns, list(result.witness))
            for q, value in zip(self.coordinates, solution):
                x[q] = value
        return ClassResult(result.index, True, tuple(x), None)


def _clarkson(layer, i, working, exact):
    """Decide class i from a growing working set of rivals; None if floats fail.

    In Fractions it always decides, and ends: the exact point of each round
    beats every working rival, so each round adds a new one (at most C - 1
    times) or raises the penalty, which the exact program needs only a
    bounded number of times (reviews.feasibility).
    """
    tolerance = 0 if exact else _MARGIN_TOLERANCE
    penalty = layer.first_penalty if exact else 1.0 * _FIRST_PENALTY
    program = Program(*layer.lp_rows(i, working, exact), penalty, exact=exact)
    for _ in itertools.count() if exact else range(_FLOAT_ROUNDS):
        relaxed = program.solve()
        if relaxed is None:
            return None
        if relaxed.value > tolerance:
            candidate = layer.lp_candidate(relaxed.x, exact)
            if candidate is None:
                return None
            beaten = layer.packed.beaten_by(i, candidate[0], len(working) + _ADDED_PER_ROUND)
            if not beaten:
                return layer.witness(i, candidate)
            fresh = [j for j in beaten if j not in working][:_ADDED_PER_ROUND]
            if not fresh:
                return None
            working += fresh
            program.add(*layer.lp_rows(i, fresh, exact))
        elif not relaxed.slack:
            if exact:
                lam = program.row_weights()
            else:
                lam = basis_combination(*layer.lp_rows(i, working, True), relaxed.basis)
                if lam is None:
                    return None
            terms = sorted((j, value) for j, value in zip(working, lam) if value)
            return ClassResult(i, False, None, tuple(terms), layer.classes)
        else:
            program.grow_penalty()
    return None


def _decide(layer, i):
    if layer.classes == 1:
        return ClassResult(i, True, tuple(Fraction(0) for _ in range(layer.dim)), None)
    candidate = layer.exact_row_candidate(i) or layer.candidate(layer.float_weights[i])
    beaten = layer.packed.beaten_by(i, candidate[0], _ADDED_PER_ROUND)
    working = list(beaten)
    point = layer.float_weights[i]
    # Reflections pay off when few rivals beat x = w_i; otherwise go to the LP.
    for _ in range(_REFLECTIONS if len(beaten) < _ADDED_PER_ROUND else 0):
        point = beaten and layer.reflect(point, i, beaten[0])
        if not point:
            break
        candidate = layer.candidate(point)
        beaten = layer.packed.beaten_by(i, candidate[0], _ADDED_PER_ROUND)
        working += [j for j in beaten if j not in working]
    if not beaten:
        return layer.witness(i, candidate)
    reduction = layer.reduced(needed=False)
    if reduction is None:
        # The float rounds extend ``working``: the exact program starts from
        # every rival they met.
        result = _clarkson(layer, i, working, exact=False)
        if result is not None:
            return result
        reduction = layer.reduced(needed=True)
        if reduction is None:
            return _clarkson(layer, i, working, exact=True)
    return reduction.lift(_decide(reduction.layer, i))


def check_layer(weights, bias=None, progress=None):
    """Decide every class of the layer exactly; one ClassResult per class.

    ``progress``, if given, is called as progress(done, total) while the
    check runs.

    >>> W = [[-2, -2], [1, 2], [Fraction(9, 5), Fraction(-4, 5)], [Fraction(9, 10), Fraction(1, 5)]]
    >>> [r.argmaxable for r in check_layer(W)]
    [True, True, True, False]
    >>> check_layer(W)[3].terms
    ((0, Fraction(43, 290)), (1, Fraction(61, 145)), (2, Fraction(25, 58)))
    """
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a function called as progress(done, total), not %s"
                        % type(progress).__name__)
    layer = _Layer(*_integer_layer(weights, bias))
    results = []
    for i in range(layer.classes):
        results.append(_decide(layer, i))
        if progress is not None:
            progress(i + 1, layer.classes)
    return results


def verify(weights, bias, result):
    """Check a ClassResult's certificate in exact arithmetic, from scratch.

    True if the certificate proves the result, False if it is well formed
    but wrong: a witness where class ``index`` is not strictly the largest
    logit, or terms that are not a combination (a weight that is negative,
    weights not summing to 1, on ``index`` itself, or not giving w_i and a
    bias of at least b_i).  A malformed argument raises: TypeError if
    ``result`` is not a ClassResult, InputError (a ValueError) for an index
    that is not a class, a witness that is not d finite numbers, or terms
    that are not (class, finite number) pairs in increasing class order.

    >>> W = [[0, 0], [1, 0], [2, 0]]
    >>> all(verify(W, None, r) for r in check_layer(W))
    True
    >>> verify(W, None, ClassResult(1, True, (5, 0)))
    False
    """
    rows, biases = exact_layer(weights, bias)
    biases = biases or [Fraction(0)] * len(rows)
    if not isinstance(result, ClassResult):
        raise TypeError("result must be a ClassResult, not %s" % type(result).__name__)
    i = _class_index(result.index, len(rows), "result.index")
    if result.argmaxable:
        if result.witness is None:
            raise InputError("result %d is argmaxable but has no witness" % i)
        x = _sequence(result.witness, "result.witness")
        if len(x) != len(rows[0]):
            raise InputError("result.witness has length %d for d = %d" % (len(x), len(rows[0])))
        x = [_certificate_number(v, "result.witness[%d]" % k, "a witness")
             for k, v in enumerate(x)]
        top = _dot(rows[i], x) + biases[i]
        return all(_dot(row, x) + b < top for j, (row, b) in enumerate(zip(rows, biases))
                   if j != i)
    if result.terms is None:
        raise InputError("result %d is not argmaxable but has no terms" % i)
    support, lam = [], []
    for n, term in enumerate(_sequence(result.terms, "result.terms")):
        pair = _sequence(term, "result.terms[%d]" % n)
        if len(pair) != 2:
            raise InputError("result.terms[%d] has %d entries, not 2 (class, weight)"
                             % (n, len(pair)))
        j = _class_index(pair[0], len(rows), "result.terms[%d]'s class" % n)
        if support and j <= support[-1]:
            raise InputError("result.terms[%d]'s class %d does not follow class %d:"
                             " terms go in increasing class order" % (n, j, support[-1]))
        support.append(j)
        lam.append(_certificate_number(pair[1], "result.terms[%d]'s weight" % n, "weights"))
    if i in support:
        return False
    differences = [[a - b for a, b in zip(rows[i], rows[j])] for j in support]
    return bool(support) and is_combination(
        differences, [biases[i] - biases[j] for j in support], lam)


def _certificate_number(value, where, what):
    """A certificate's number as a Fraction.

    An int or Fraction is taken as it is, past the size limit too: an
    exact certificate of a layer near that limit may need more bits, and
    the object is already there (the limit guards against text such as
    Decimal('1e999999999') that is short but huge once materialized).
    """
    if isinstance(value, (int, Fraction)) and not isinstance(value, bool):
        return Fraction(value)
    return Fraction(_finite(value, where, what))


def _class_index(value, classes, where):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError("%s must be an int, not %s" % (where, type(value).__name__))
    if not 0 <= value < classes:
        raise InputError("%s is %d, not a class of this layer (0 to %d)"
                         % (where, value, classes - 1))
    return int(value)


def braid_reflect(weights, bias, index, patience=50):
    """The paper's Braid-reflect search for a witness of class ``index``, in floats.

    Start at x = w_i; while another class a has the largest logit, reflect x
    across the hyperplane where classes i and a tie.  Returns the point
    (tuple of floats) where class i came out on top in floats, or None after
    ``patience`` reflections, or where floats cannot hold the layer or the
    point.  A None proves nothing, and a point is only a candidate: check
    it with ``verify``.

    >>> braid_reflect([[0, 0], [1, 0], [-1, 0]], None, 1)
    (1.0, 0.0)
    """
    rows, biases = exact_layer(weights, bias)
    index = _class_index(index, len(rows), "index")
    w = [[to_float(v) for v in row] for row in rows]
    b = [to_float(v) for v in biases] if biases else [0.0] * len(rows)
    x = list(w[index])
    for _ in range(patience + 1):
        if not all(map(math.isfinite, x + b)):
            return None
        logits = [_dot(row, x) + bj for row, bj in zip(w, b)]
        best = max(range(len(logits)), key=lambda j: (logits[j], j == index))
        if best == index and logits.count(logits[index]) == 1:
            return tuple(x)
        normal = [p - q for p, q in zip(w[index], w[best])]
        norm = math.sqrt(_dot(normal, normal))
        if norm == 0 or not math.isfinite(norm):
            return None
        v = [c / norm for c in normal]
        distance = _dot(v, x) + (b[index] - b[best]) / norm
        x = [xk - 2 * distance * vk for xk, vk in zip(x, v)]
    return None
