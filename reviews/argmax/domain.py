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
rounds of the exact program with the rows y_k > 0 added, against a working
set of rivals that beat the last point (reviews.argmax.orthant, through
the rounds reviews.argmax.tolerance runs at a tolerance, which ask for
T = 0 too).  A tolerance moves with the question
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

    moved_layer   the layer, box and orthant of the moved question
    moved_back    a result of the moved layer as one of the layer
    moved         a result of the layer as one of the moved layer in its box
    shown_inputs  the domain as a report says it: "x >= 0", "-1 <= x <= 1"
    layer_fraction     a number of a validated layer as a Fraction

The orthant's own decisions are reviews.argmax.orthant's.
"""

import array
import decimal
import math
import operator
from fractions import Fraction

from reviews.argmax.kernels.witness import Witness
from reviews.argmax.question import Inputs
from reviews.argmax.reductions.masked import masked_classes
from reviews.exact import exact_text, real_number

__all__ = ["moved_layer", "moved_back", "moved", "shown_inputs",
           "layer_fraction"]

def layer_fraction(value):
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
            (0 if bias is None else layer_fraction(bias[j]))
            + shift * _exact_sum(row)
            for j, row in enumerate(weights)]


def _exact_sum(row):
    """The sum of a row of a validated layer, exactly: a row of floats or
    Decimals (a JSON layer's) through their integer ratios over one common
    denominator (a sum of Fractions reduces by a gcd at every step), others
    as Fractions.

    >>> _exact_sum([0.5, decimal.Decimal("0.2"), 0.125])
    Fraction(33, 40)
    """
    if all(type(v) is float or type(v) is decimal.Decimal for v in row):
        ratios = [v.as_integer_ratio() for v in row]
        common = 1
        for _, denominator in ratios:
            if common % denominator:
                common = common // math.gcd(common, denominator) * denominator
        return Fraction(sum(n * (common // d) for n, d in ratios), common)
    return sum(map(layer_fraction, row))


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


def moved(result, question):
    """A result of the layer for ``question`` (its inputs) as one of the
    moved layer, in its box (none on the orthant): moved_back's inverse,
    its witness x moved to y = x - m, x - l or h - x."""
    inputs = question.inputs
    box = (inputs.high - inputs.low) / 2 if inputs.bounded else None
    result = result._replace(question=question.exact(box, question.tolerance))
    if not result.argmaxable or result.witness is None:
        return result
    shift, sign = _origin(inputs)
    return result._replace(witness=Witness.of(result.witness).moved(-sign * shift, sign))


def moved_back(result, question):
    """The ClassResult of the layer for ``question`` (its inputs) of a
    result of the moved layer: its witness y moved to x (a Witness)."""
    result = result._replace(question=question)
    if not result.argmaxable or result.masked:
        return result
    shift, sign = _origin(question.inputs)
    return result._replace(witness=Witness.of(result.witness).moved(shift, sign))


def _origin(inputs):
    """(shift, sign) of the move x = shift + sign * y from the moved layer's
    inputs y to the layer's x: the middle of a box, a half-line's end."""
    if inputs.bounded:
        return inputs.middle, 1
    if inputs.low is not None:
        return inputs.low, 1
    return inputs.high, -1


def shown_inputs(inputs):
    """The domain as a report says it.

    >>> shown_inputs(Inputs(Fraction(0), None)), shown_inputs(Inputs(Fraction(-1), Fraction(1)))
    ('x >= 0', '-1 <= x <= 1')
    >>> shown_inputs(Inputs(None, Fraction(1, 2)))
    'x <= 0.5'
    """
    if not isinstance(inputs, Inputs):
        return inputs.shown()
    low, high = inputs
    if high is None:
        return "x >= %s" % exact_text(low)
    if low is None:
        return "x <= %s" % exact_text(high)
    return "%s <= x <= %s" % (exact_text(low), exact_text(high))
