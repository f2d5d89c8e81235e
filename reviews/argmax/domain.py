"""Input domains: every coordinate of x in [low, high], decided by moving x.

A head's input is rarely all of R^d: after a ReLU it is x >= 0, after tanh
in (-1, 1)^d, after a sigmoid in (0, 1)^d.  For the product [l, h]^d the
question of class i (is there an x in it where i's logit is strictly the
largest?) is moved, exactly, to one the checker already answers:

* l and h finite: x = m + y with m = (l + h) / 2 and y in the box
  [-r, r]^d, r = (h - l) / 2: the layer W, b + m W 1 in that box;
* l finite, h = inf: x = l + y, y >= 0: the layer W, b + l W 1 on the
  orthant y >= 0;
* l = -inf, h finite: x = h - y, y >= 0: the layer -W, b + h W 1 on the
  orthant.

The logits' differences are the same functions of x before and after, so
a witness y gives the witness x, and a combination of rivals is one of the
original layer's too.  On the orthant the box [0, M]^d is asked first,
which the checker decides fast: its witnesses are the orthant's, and so
are its combinations whose linear part has no negative coordinate; the
classes it leaves are asked in a second box, [0, M']^d with M' past the
layer's largest bias over its smallest weight (classes of biases 1e300
win only that far out), and what is left then is decided by Clarkson's
rounds of the exact program with the rows y_k > 0 added, against a working set of rivals that beat the
last point (Orthant, through the rounds reviews.argmax.tolerance runs at a
tolerance, which ask for T = 0 too).  A tolerance moves with the question
(no margin and no distance changes), and so do radii.  Open and closed
intervals give the same verdicts: the points where i wins strictly form an
open set, so one on the boundary has others just inside.

A certificate is checked against the domain itself
(reviews.argmax.kernels.norms.holds_at): a witness inside it, or weights
lam >= 0 on rivals j, summing to 1, with

    sum_j lam_j (b_i - b_j) + max over the domain of sum_j lam_j (w_i - w_j) . x <= 0

(then some rival's logit is at least i's everywhere in the domain); the
maximum is infinite where a coordinate of the combination has the sign of
an infinite end (Farkas: the domain's multipliers are that coordinate).

    Inputs        the interval [low, high] of every coordinate (None: no end)
    inputs_value  Inputs from two numbers (None or an infinity: no end), taken exactly
    moved_layer   the layer, box and orthant of the moved question
    Orthant       the classes of a moved layer decided on y >= 0
    moved_back    a result of the moved layer as one of the layer
    moved         a result of the layer as one of the moved layer in its box
    shown_inputs  the domain as a report says it: "x >= 0", "-1 <= x <= 1"
"""

import array
import decimal
import math
import operator
import numbers
from collections import namedtuple
from fractions import Fraction

from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.kernels.layer_input import integer_layer
from reviews.argmax.reductions.masked import Masks, masked_classes
from reviews.argmax.result import ClassResult
from reviews.errors import InputError
from reviews.exact import exact_text, real_number

__all__ = ["Inputs", "inputs_value", "moved_layer", "Orthant", "moved_back", "moved",
           "shown_inputs"]

class Inputs(namedtuple("Inputs", "low high")):
    """Every coordinate of x in [low, high]: each end a Fraction, or None
    where the interval has no end on that side.

    >>> Inputs(Fraction(0), Fraction(2)).middle, Inputs(Fraction(0), None).bounded
    (Fraction(1, 1), False)
    """

    __slots__ = ()

    @property
    def bounded(self):
        """Whether both ends are finite (a box about ``middle``)."""
        return self.low is not None and self.high is not None

    @property
    def middle(self):
        return (self.low + self.high) / 2


# Rivals a round of the orthant's program adds at most, the most violated first.
_ADDED_PER_ROUND = 8
# Half the side M of the box [0, M]^d asked first on the orthant.  The box
# decides g2pM's head (876 x 32) over x >= 0 in 6.7 s where the rounds alone
# took 40 s (2 jobs); a class that wins only farther out is left to the rounds.
_HALF_BOX = Fraction(500)
# Bits past the largest bias over the smallest weight of the second box's side.
_FAR_MARGIN_BITS = 8


def _end(value, what, infinity):
    """An end of the interval: a Fraction, or None for ``infinity`` (-1 or 1)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        raise TypeError("inputs' %s end must be a number, or None for no end, not %s"
                        % (what, type(value).__name__))
    exact = real_number(value, "inputs' %s end" % what)
    if isinstance(exact, float) and math.isinf(exact):
        if (exact > 0) != (infinity > 0):
            raise InputError("inputs' %s end is %s: no x is there" % (what, exact))
        return None
    return Fraction(exact)


def inputs_value(inputs):
    """Inputs(low, high) of a pair of numbers, taken exactly; None, -inf
    (low) and inf (high) leave that side open.

    >>> inputs_value((0, float("inf")))
    Inputs(low=Fraction(0, 1), high=None)
    >>> inputs_value((1, -1))
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: inputs: the low end 1 is not below the high end -1
    """
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__len__") or len(inputs) != 2:
        raise TypeError("inputs must be a pair (low, high), not %s" % type(inputs).__name__)
    low, high = _end(inputs[0], "low", -1), _end(inputs[1], "high", 1)
    if low is not None and high is not None and low >= high:
        raise InputError("inputs: the low end %s is not below the high end %s"
                         % (exact_text(low), exact_text(high)))
    return Inputs(low, high)


def _exact(value):
    """A number of a validated layer as a Fraction (a numpy float32 too)."""
    return Fraction(real_number(value, "a layer's number"))


def _moved_bias(weights, bias, shift):
    """b + shift W 1, exactly; a bias of -inf (a masked class: a float, a
    Decimal, a numpy scalar) stays -inf; no bias moved by 0 stays none (a
    layer without bias keeps its unbounded radii on x >= 0)."""
    if bias is None and not shift:
        return None
    masked = set(masked_classes(bias))
    return [-math.inf if j in masked else
            (0 if bias is None else _exact(bias[j])) + shift * sum(map(_exact, row))
            for j, row in enumerate(weights)]


def moved_layer(weights, bias, inputs):
    """(weights, bias, box, orthant) of the question moved from ``inputs``
    (module docstring): a box r (or None), and whether y >= 0 is asked.

    >>> moved_layer([[1, 2]], [3], Inputs(Fraction(0), Fraction(2)))
    ([[1, 2]], [Fraction(6, 1)], Fraction(1, 1), False)
    >>> moved_layer([[1, 2]], None, Inputs(None, Fraction(1)))
    ([[-1, -2]], [Fraction(3, 1)], None, True)
    >>> moved_layer([[1, 2]], None, Inputs(Fraction(0), None))
    ([[1, 2]], None, None, True)
    """
    low, high = inputs
    if inputs.bounded:
        return weights, _moved_bias(weights, bias, inputs.middle), (high - low) / 2, False
    if low is not None:
        return weights, _moved_bias(weights, bias, low), None, True
    return [_negated(row) for row in weights], _moved_bias(weights, bias, high), None, True


def _negated(row):
    """-row, an array.array of floats kept one (a list of floats would take
    4 to 8 times its memory)."""
    if isinstance(row, array.array) and row.typecode in "fd":
        return array.array(row.typecode, map(operator.neg, row))
    return [-v for v in row]


def _point(witness):
    """A witness (tuple or Witness) as a list of Fractions."""
    if isinstance(witness, Witness):
        return [Fraction(n, witness.denominator) for n in witness.numerators]
    return [Fraction(v) for v in witness]


def moved(result, inputs, box):
    """A result of the layer for ``inputs`` as one of the moved layer, in
    its ``box`` (None on the orthant): moved_back's inverse, its witness x
    moved to y = x - m, x - l or h - x."""
    result = result._replace(box=box)
    if not result.argmaxable or result.witness is None:
        return result
    x = _point(result.witness)
    if inputs.bounded:
        y = [v - inputs.middle for v in x]
    elif inputs.low is not None:
        y = [v - inputs.low for v in x]
    else:
        y = [inputs.high - v for v in x]
    return result._replace(witness=tuple(y))


def moved_back(result, inputs):
    """The ClassResult of the layer for a result of the moved layer: its
    witness y moved to x, its box (the moved question's) left out."""
    result = result._replace(box=None)
    if not result.argmaxable or result.masked:
        return result
    y = _point(result.witness)
    if inputs.bounded:
        x = [inputs.middle + v for v in y]
    elif inputs.low is not None:
        x = [inputs.low + v for v in y]
    else:
        x = [inputs.high - v for v in y]
    return result._replace(witness=tuple(x))


class Orthant:
    """The classes of a moved layer decided on y >= 0, the layer made exact
    once as integers over one denominator.

    The box [0, M]^d is asked first, as the box [-M/2, M/2]^d of the layer
    moved by M/2 (``boxed``), which the checker decides fast, at the
    tolerance if any: a witness there is one on the orthant, and so is a
    combination that holds there too; the rest are decided by the exact
    program's rounds (``decided``), and radii are measured on the orthant
    (``radius``).

    >>> orthant = Orthant([[0, 0], [1, 0], [0, 1]], [1, 0, 0])
    >>> orthant.decided(ClassResult(1, True, (-488, -500), None, 3)).witness
    (Fraction(12, 1), Fraction(0, 1))
    >>> orthant.decided(ClassResult(0, False, None, ((1, Fraction(1)),), 3)).argmaxable
    True
    """

    def __init__(self, weights, bias):
        self.weights, self.bias = weights, bias
        self.classes, self.dim = len(weights), len(weights[0])
        self._geometry = None

    def geometry(self):
        """The layer's Geometry on the orthant (reviews.argmax.tolerance), the
        masked classes left out, made when a class first needs it (where the
        box decides every class and no radius is asked, never)."""
        if self._geometry is None:
            # Imported here: reviews.argmax.tolerance moves its own questions
            # with this module's functions.
            from reviews.argmax.tolerance import Geometry
            masks = Masks(self.weights, self.bias)
            self._finite = masks.kept or list(range(self.classes))
            self._position = {j: n for n, j in enumerate(self._finite)}
            weights, bias = ((masks.select(self.weights), masks.select(self.bias))
                             if masks.masked else (self.weights, self.bias))
            self._geometry = Geometry(*integer_layer(weights, bias)[:2], None, orthant=True)
        return self._geometry

    def boxed(self, half=_HALF_BOX):
        """(weights, bias, box) of the box [0, 2 half]^d moved to [-half, half]^d."""
        return self.weights, _moved_bias(self.weights, self.bias, half), half

    def far_half(self):
        """Half the side of a second box [0, M]^d, asked where the first
        leaves a class: past the layer's largest bias over its smallest
        weight, where classes that win only far out (biases of 1e300 over
        weights of 1) have their witnesses; None where that is no farther
        than the first box."""
        masks = Masks(self.weights, self.bias)
        biases = [abs(_exact(v)) for v in (masks.select(self.bias) if masks.masked else
                                          self.bias or ())]
        weights = [abs(_exact(v)) for row in self.weights for v in row if v]
        if not biases or not weights or not max(biases):
            return None
        # Powers of two from bit lengths (a float would overflow past 1e308),
        # so that the box's numbers stay short.
        largest, smallest = max(biases), min(weights)
        bits = (largest.numerator.bit_length() - largest.denominator.bit_length() + 1
                - smallest.numerator.bit_length() + smallest.denominator.bit_length()
                + _FAR_MARGIN_BITS)
        half = Fraction(2) ** bits
        return half if half > _HALF_BOX else None

    def _holds(self, n, terms, tolerance):
        """Whether the combination ``terms`` (of classes) holds on y >= 0 for
        the class at position n."""
        geometry, position = self.geometry(), self._position
        own, biases = geometry.rows[n], geometry.biases
        rivals = [position[j] for j, _ in terms]
        return holds_at([[a - b for a, b in zip(geometry.rows[m], own)] for m in rivals],
                        [biases[m] - biases[n] for m in rivals], [v for _, v in terms],
                        tolerance, inputs=(0, None))

    def decided(self, result, far=None):
        """The result on y >= 0 of the result in the box [0, M]^d (module
        docstring), at the result's tolerance; ``far``, if given, is a
        function of a class giving (half, its result in the box
        [0, 2 half]^d moved to [-half, half]^d), or None where there is no
        such box, asked before the rounds."""
        if result.masked:
            return result
        if result.argmaxable:
            return result._replace(witness=tuple(v + _HALF_BOX for v in _point(result.witness)))
        geometry, tolerance = self.geometry(), result.tolerance
        n = self._position[result.index]
        if self._holds(n, result.terms, tolerance):
            return result
        found = far and far(result.index)
        if found:
            half, farther = found
            if farther.argmaxable:
                return result._replace(argmaxable=True, terms=None, witness=tuple(
                    v + half for v in _point(farther.witness)))
            if self._holds(n, farther.terms, tolerance):
                return result._replace(terms=farther.terms)
        # Decided at T = 0 first, as Geometry.carried does in a box: a
        # combination there holds at every T, and a witness whose margins
        # clear T holds at T; only the rest is asked again at T, whose
        # norms' bounds make every number of the program longer.
        witness, terms = tuple([Fraction(0)] * self.dim), None
        working = geometry.short(n, [0] * self.dim, 1, 0)[:_ADDED_PER_ROUND]
        if working:
            witness, terms = geometry.decide_at(n, 0, working)
        if terms is None and tolerance:
            point = Witness.of(witness)
            working = geometry.short(n, point.numerators, point.denominator,
                                     tolerance)[:_ADDED_PER_ROUND]
            if working:
                witness, terms = geometry.decide_at(n, tolerance, working)
        if terms is None:
            return result._replace(argmaxable=True, witness=tuple(witness), terms=None)
        return result._replace(terms=tuple((self._finite[m], v) for m, v in terms))

    def radius(self, result):
        """The Radius on y >= 0 of a result ``decided`` gave (None for a
        class that is not argmaxable): reviews.argmax.tolerance.radii's."""
        if not result.argmaxable:
            return None
        return self.geometry().radius(result._replace(index=self._position[result.index]))


def shown_inputs(inputs):
    """The domain as a report says it.

    >>> shown_inputs(Inputs(Fraction(0), None)), shown_inputs(Inputs(Fraction(-1), Fraction(1)))
    ('x >= 0', '-1 <= x <= 1')
    >>> shown_inputs(Inputs(None, Fraction(1, 2)))
    'x <= 0.5'
    """
    low, high = inputs
    if high is None:
        return "x >= %s" % exact_text(low)
    if low is None:
        return "x <= %s" % exact_text(high)
    return "%s <= x <= %s" % (exact_text(low), exact_text(high))
