"""Classes decided on a final norm's outputs: the ball a LayerNorm or an
RMSNorm hands the head.

A LayerNorm of weight g and bias beta (any eps > 0) outputs exactly the
points y = beta + g * z with z in the open ball |z|^2 < d of the
hyperplane sum z = 0; an RMSNorm of weight g the points g * z with
|z|^2 < d in all of R^d (reviews.argmax.question).  On them the head W, b
gives the logits W' z + b' with w'_j = g * w_j and b' = W beta + b, and
for a LayerNorm only z's part in the hyperplane counts: the rows are
taken centred, P w'_j = w'_j - mean(w'_j), so that the question over z in
R^d is the question over the hyperplane (P x is a point of it, and the
logits at x are those at P x).

Class i is decided in three steps, each answer exact:

* over all of R^d (reviews.argmax.check, on the moved layer): a class
  that never wins there never wins on the ball, and its combination lam
  is the ball's certificate too (u = sum_j lam_j (w'_i - w'_j) is 0 in
  the hyperplane and c = sum_j lam_j (b'_i - b'_j) <= 0);
* a witness x there whose z = P x lies in the ball is one on the ball;
  where b' is the same for every class (no head bias, no norm bias) any
  positive multiple of a witness is one, and it is scaled into the ball:
  the answer is R^d's, with no more work;
* the rest: the point z* of the closed region where i beats every rival
  (a_j . z + c_j >= 0, a_j = P(w'_i - w'_j), c_j = b'_i - b'_j) nearest
  the origin, found exactly by the dual method of Goldfarb and Idnani
  ("A numerically stable dual method for solving strictly convex
  quadratic programs", Math. Programming 27, 1983; its objective here is
  |z|^2 / 2): it adds one violated rival at a time and keeps
  z = sum_k mu_k a_k, mu >= 0, over the rivals it holds tight.  It is
  walked in floats first, and the rivals tight at its end are solved for
  exactly (z* = sum_k mu_k a_k with each of them tight) and checked; only
  where they do not check is it walked again in rationals.  Once
  |z|^2 >= d with those tight, lam = mu / sum mu proves that i never wins
  on the open ball: c = -|z|^2 / sum mu <= 0 and c^2 >= d |P u|^2.  If it
  ends with every rival satisfied and |z*|^2 < d, a point between z* and
  the strict witness x is in the ball and wins strictly.

Every certificate is checked before it is given: a witness y = beta + g z
against every rival exactly, a combination by the norm's own test
(LayerNorm.covers: c <= 0 and c^2 >= d |u|^2 - (sum u)^2, or d |u|^2 for
an RMSNorm), both in the original layer's numbers.

    NormedLayer     the layer moved to the norm's z, and its classes decided on the ball
"""

import itertools
import math
from fractions import Fraction

from reviews.argmax.kernels.layer_input import integer_layer
from reviews.argmax.kernels.packed import dot
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.reductions.masked import Masks
from reviews.argmax.strategy.feasibility import solve_square
from reviews.errors import InputError
from reviews.exact import common_denominator

__all__ = ["NormedLayer"]

_MINUS_INFINITY = float("-inf")


class NormedLayer:
    """A layer ``weights``, ``bias`` whose inputs are the outputs of
    ``norm`` (a LayerNorm or RMSNorm of reviews.argmax.question, exact):
    ``moved`` is the layer of z (integer rows and biases, a masked class's
    bias -inf), ``homogeneous`` whether every class's b' is the same, and
    ``decided(result)`` carries a result of the moved layer over R^d to
    the ball, in the original layer's coordinates y = beta + g * z.

    >>> from reviews.argmax.question import LayerNorm
    >>> from reviews.argmax.result import ClassResult
    >>> layer = NormedLayer([[0, 0], [4, 0], [2, 0]], [0, 0, 1], LayerNorm().exact())
    >>> layer.decided(ClassResult(2, True, (Fraction(1, 4), 0))).witness
    (Fraction(1, 8), Fraction(-1, 8))
    """

    def __init__(self, weights, bias, norm):
        self.norm = norm
        self.dim = len(weights[0])
        error = norm.dimension_error(self.dim)
        if error is not None:
            raise InputError(error)
        masks = Masks(weights, bias, validate=True)
        kept = (masks.select(weights), masks.select(bias)) if masks.masked else (weights, bias)
        rows, biases = _moved(*integer_layer(*kept)[:2], norm, self.dim)
        self.homogeneous = biases is None or len(set(biases)) <= 1
        self.kept = list(range(len(weights))) if not masks.masked else masks.kept
        self.position = {j: n for n, j in enumerate(self.kept)}
        self.rows, self.biases = rows, biases or [0] * len(rows)
        self.moved = self._whole(rows, biases, masks, len(weights), bias is not None
                                 or norm.bias is not None)

    def _whole(self, rows, biases, masks, count, has_bias):
        """(weights, bias) of the moved layer, the masked classes in place (-inf)."""
        if not masks.masked:
            return rows, biases if has_bias else None
        weights, bias = [[0] * self.dim] * count, [_MINUS_INFINITY] * count
        for n, j in enumerate(self.kept):
            weights[j], bias[j] = rows[n], biases[n] if biases is not None else 0
        return weights, bias

    def decided(self, result):
        """The result on the ball of a result of the moved layer over R^d."""
        if not result.argmaxable:
            return result
        n = self.position[result.index]
        x = [Fraction(v) for v in result.witness]
        z = self._centred(x)
        if self._inside(z):
            return result._replace(witness=self._output(z))
        if self.homogeneous:
            return result._replace(witness=self._output(self._into_ball(z)))
        nearest, terms = _Nearest(self, n).found()
        if terms is not None:
            return result._replace(argmaxable=False, witness=None, class_count=len(self.moved[0]),
                                   terms=tuple((self.kept[m], v) for m, v in terms))
        return result._replace(witness=self._output(self._between(n, nearest, z)))

    def _centred(self, x):
        """P x for a LayerNorm (its part in the hyperplane sum z = 0), x else."""
        if not self.norm.centred:
            return x
        mean = sum(x) / self.dim
        return [v - mean for v in x]

    def _inside(self, z):
        witness = Witness.of(z)
        return dot(witness.numerators, witness.numerators) < self.dim * witness.denominator ** 2

    def _into_ball(self, z):
        """z times the largest power of 1/2 that puts it inside the ball
        (found from bit lengths, in integers)."""
        witness = Witness.of(z)
        square, limit = dot(witness.numerators, witness.numerators), self.dim * witness.denominator ** 2
        halvings = max(0, (square.bit_length() - limit.bit_length()) // 2)
        while square >= limit << 2 * halvings:
            halvings += 1
        while halvings and square < limit << 2 * (halvings - 1):
            halvings -= 1
        return [v / (1 << halvings) for v in z]

    def _between(self, n, nearest, strict):
        """A point of the segment from ``nearest`` (in the ball, where class n
        ties or wins) towards ``strict`` (where it wins strictly) inside the
        ball, where it wins strictly: every point but ``nearest`` does.

        With a = nearest, v = strict - a, p = a . v and q = |v|^2, the point
        a + t v has |.|^2 = |a|^2 + 2 t p + t^2 q < d for every t <= 1 with
        t (2 |p| + q) < d - |a|^2: t is the largest power of 1/2 below that
        bound, found from bit lengths, and checked."""
        direction = [b - a for a, b in zip(nearest, strict)]
        gap = self.dim - sum(a * a for a in nearest)
        slope = 2 * abs(sum(a * v for a, v in zip(nearest, direction))) + sum(
            v * v for v in direction)
        bound = gap / slope if slope else Fraction(1)
        halvings = max(1, bound.denominator.bit_length() - bound.numerator.bit_length() + 1)
        z = [a + v / (1 << halvings) for a, v in zip(nearest, direction)]
        if not self._inside(z) or self._beaten(n, z):
            raise InputError("class %d: the point found on the norm's ball does not win;"
                             " no certificate" % self.kept[n])
        return z

    def _beaten(self, n, z):
        """Whether some rival's logit is at least class n's at z, exactly."""
        witness = Witness.of(z)
        numerators, q = witness.numerators, witness.denominator
        own = dot(self.rows[n], numerators) + self.biases[n] * q
        return any(m != n and dot(row, numerators) + b * q >= own
                   for m, (row, b) in enumerate(zip(self.rows, self.biases)))

    def _output(self, z):
        """y = beta + g * z, the head's input for z."""
        norm = self.norm
        return tuple(norm.shift(k) + norm.gain(k) * v for k, v in enumerate(z))


def _moved(rows, biases, norm, dim):
    """Integer rows and biases (or None) of the layer of z: w'_j = g * w_j
    (centred for a LayerNorm) and b' = b + W beta, all over one positive
    denominator (its value is not needed: every comparison scales alike)."""
    gains = [norm.gain(k) for k in range(dim)]
    shifts = [norm.shift(k) for k in range(dim)]
    g_scale = common_denominator(gains)
    b_scale = common_denominator(shifts)
    gains = [int(v * g_scale) for v in gains]
    shifts = [int(v * b_scale) for v in shifts]
    moved = [[w * g * b_scale for w, g in zip(row, gains)] for row in rows]
    if biases is None and norm.bias is None:
        moved_biases = None
    else:
        moved_biases = [(0 if biases is None else b * b_scale * g_scale)
                        + dot(row, shifts) * g_scale for row, b in
                        zip(rows, biases or itertools.repeat(0))]
    if norm.centred:
        moved = [[dim * v - total for v in row] for row, total in zip(moved, map(sum, moved))]
        moved_biases = moved_biases and [dim * b for b in moved_biases]
    return moved, moved_biases


class _Nearest:
    """The dual method of Goldfarb and Idnani for the point nearest the
    origin where class n beats every rival (a_j . z + c_j >= 0), stopping
    at a certificate as soon as |z|^2 >= d.  It is walked first in floats,
    whose tight rivals at the end are solved for exactly and checked; where
    that fails, in exact rationals, which always ends."""

    def __init__(self, layer, n):
        self.layer, self.n = layer, n
        self.own, self.own_bias = layer.rows[n], layer.biases[n]
        self.rivals = [m for m in range(len(layer.rows)) if m != n]

    def normal(self, m):
        return [a - b for a, b in zip(self.own, self.layer.rows[m])]

    def offset(self, m):
        return self.own_bias - self.layer.biases[m]

    def worst(self, z):
        """The most violated rival at z (exact), or None."""
        witness = Witness.of(z)
        numerators, q = witness.numerators, witness.denominator
        own = dot(self.own, numerators) + self.own_bias * q
        worst, value = None, 0
        for m in self.rivals:
            slack = own - dot(self.layer.rows[m], numerators) - self.layer.biases[m] * q
            if slack < value:
                worst, value = m, slack
        return worst

    def found(self):
        """(z*, None) with z* nearest the origin where class n ties or beats
        every rival, inside the ball; or (None, terms), terms proving that
        it never wins on the ball, in the moved layer's positions."""
        floats = _FloatWalk(self)
        try:
            active = _walk(floats)[0]
        except (ArithmeticError, _Stuck):
            active = None
        answer = active is not None and self._from_tight(active)
        if answer:
            return answer
        active, mu, z = _walk(_ExactWalk(self))
        if z is not None:
            return z, None
        return None, self._terms(active, mu)

    def _from_tight(self, active):
        """The answer of the rivals ``active`` held tight, solved exactly,
        if it checks: z* = sum_k mu_k a_k with a_k . z* + c_k = 0, mu >= 0,
        and either |z*|^2 >= d (a certificate) or every rival satisfied."""
        normals = [self.normal(k) for k in active]
        mu = _ExactWalk.solve(normals, [-self.offset(k) for k in active])
        if mu is None or any(v < 0 for v in mu):
            return None
        z = [sum(v * a[q] for v, a in zip(mu, normals)) for q in range(self.layer.dim)]
        if sum(v * v for v in z) >= self.layer.dim:
            terms = self._combination(dict(zip(active, mu)))
            return terms and (None, terms)
        return None if self.worst(z) is not None else (z, None)

    def _combination(self, mu):
        """lam = mu / sum mu over the tight rivals, if it certifies; else None."""
        total = sum(mu.values())
        if not total:
            return None
        terms = tuple(sorted((k, v / total) for k, v in mu.items() if v))
        return terms if self._certifies(terms) else None

    def _terms(self, active, mu):
        terms = self._combination(mu)
        if terms is None:
            raise InputError("class %d: the combination found on the norm's ball does not"
                             " hold; no certificate" % self.layer.kept[self.n])
        return terms

    def _certifies(self, terms):
        """c <= 0 and c^2 >= d |P u|^2 for u, c of the terms (the moved rows
        are centred already for a LayerNorm)."""
        u = [Fraction(0)] * self.layer.dim
        c = Fraction(0)
        for m, weight in terms:
            for q, a in enumerate(self.normal(m)):
                u[q] += weight * a
            c += weight * self.offset(m)
        return c <= 0 and c * c >= self.layer.dim * sum(v * v for v in u)


class _Stuck(Exception):
    """The float walk went on past its steps, or its normals were dependent."""


def _walk(numbers):
    """(active rivals, their multipliers, z or None): Goldfarb and Idnani's
    dual method in ``numbers`` (_ExactWalk or _FloatWalk): z is the nearest
    point where class n ties or beats every rival, inside the ball, or
    None where the tight rivals' multipliers certify that it is outside."""
    dim = numbers.dim
    z = [numbers.zero] * dim
    active, mu = [], {}
    while True:
        p = numbers.worst(z)
        if p is None:
            return active, mu, z
        normal = numbers.normal(p)
        added = numbers.zero
        while True:
            normals = [numbers.normal(k) for k in active]
            r = numbers.solve(normals, [_dot(u, normal) for u in normals]) if normals else []
            if r is None:
                raise InputError("the tight rivals' normals are dependent; no certificate")
            step = [a - sum(rk * nk[q] for rk, nk in zip(r, normals))
                    for q, a in enumerate(normal)]
            partial, drop = None, None
            for k, rk in zip(active, r):
                if rk > numbers.tiny and (partial is None or mu[k] / rk < partial):
                    partial, drop = mu[k] / rk, k
            full = None
            length = _dot(step, normal)
            if length > numbers.tiny:
                full = -(_dot(normal, z) + numbers.offset(p)) / length
            if full is None and partial is None:
                raise InputError("class %d: no point of R^d beats every rival; no certificate"
                                 % numbers.index)
            t = full if partial is None or (full is not None and full <= partial) else partial
            for k, rk in zip(active, r):
                mu[k] -= t * rk
            added += t
            if full is not None:
                z = [v + t * s for v, s in zip(z, step)]
            if t == full:
                active.append(p)
                mu[p] = added
                break
            active.remove(drop)
            del mu[drop]
        if _dot(z, z) >= dim:
            return active, mu, None


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


class _ExactWalk:
    """The walk's numbers in exact rationals: it always ends."""

    zero, tiny = Fraction(0), 0

    def __init__(self, nearest):
        self.nearest, self.dim = nearest, nearest.layer.dim
        self.index = nearest.layer.kept[nearest.n]
        self.normal, self.offset, self.worst = nearest.normal, nearest.offset, nearest.worst

    @staticmethod
    def solve(normals, right):
        """r with Gram(normals) r = right, exactly, or None if singular."""
        columns = [[_dot(u, v) for u in normals] for v in normals]
        return solve_square(columns, right)


class _FloatWalk:
    """The walk's numbers in floats, the layer scaled by one power of two
    to entries of at most 1: only a proposal of which rivals are tight,
    checked exactly; it stops after a few steps a rival."""

    zero, tiny = 0.0, 1e-12

    def __init__(self, nearest):
        layer = nearest.layer
        self.dim, self.index = layer.dim, layer.kept[nearest.n]
        bits = max(max(abs(v) for row in layer.rows for v in row).bit_length(),
                   max(map(abs, layer.biases)).bit_length())
        drop = max(0, bits - 60)

        def scale(v):
            return math.ldexp(float(v >> drop), drop - bits)
        self.rows = [[scale(v) for v in row] for row in layer.rows]
        self.biases = [scale(v) for v in layer.biases]
        self.own, self.own_bias = self.rows[nearest.n], self.biases[nearest.n]
        self.rivals = nearest.rivals
        self.steps = 10 * len(self.rows) + 100

    def normal(self, m):
        return [a - b for a, b in zip(self.own, self.rows[m])]

    def offset(self, m):
        return self.own_bias - self.biases[m]

    def worst(self, z):
        self.steps -= 1
        if self.steps < 0:
            raise _Stuck
        own = _dot(self.own, z) + self.own_bias
        worst, value = None, -self.tiny
        for m in self.rivals:
            slack = own - _dot(self.rows[m], z) - self.biases[m]
            if slack < value:
                worst, value = m, slack
        return worst

    @staticmethod
    def solve(normals, right):
        """r with Gram(normals) r = right, by Gaussian elimination with
        partial pivoting; _Stuck where the Gram matrix is near singular."""
        size = len(normals)
        rows = [[_dot(u, v) for v in normals] + [b] for u, b in zip(normals, right)]
        for k in range(size):
            pivot = max(range(k, size), key=lambda i: abs(rows[i][k]))
            if abs(rows[pivot][k]) < 1e-300:
                raise _Stuck
            rows[k], rows[pivot] = rows[pivot], rows[k]
            for i in range(k + 1, size):
                factor = rows[i][k] / rows[k][k]
                rows[i] = [a - factor * b for a, b in zip(rows[i], rows[k])]
        solution = [0.0] * size
        for k in reversed(range(size)):
            solution[k] = (rows[k][size] - _dot(rows[k][k + 1:size], solution[k + 1:])) / rows[k][k]
        return solution
