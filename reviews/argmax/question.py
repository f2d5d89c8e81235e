"""The question a check asks of every class of a layer, as one value.

Class i is asked whether some input x makes it strictly the largest logit;
the question narrows where x may be and how robustly i must win:

* the box R > 0: x only with |x_k| <= R (None: all of R^d);
* the tolerance T >= 0: a ball of radius above T, its centre in the box
  (or the inputs), where i wins (0: a single point is enough);
* the inputs [low, high]: x only with low <= x_k <= high
  (reviews.argmax.domain moves them to a box or the orthant).  The
  interval [-R, R] is the box R, and (-inf, inf) all of R^d: either is
  asked as such, so that one question has one form;
* or the inputs a final norm gives the head (LayerNorm, RMSNorm): x only
  of the form beta + g * z with z in the open ball of radius sqrt(d), in
  the hyperplane sum z = 0 for a LayerNorm (reviews.argmax.normed decides
  classes there).  Any eps > 0 gives that same set.

Each is taken exactly and checked once, where a public function is called
(check_layer, verify, verify_all, radii, or the command line), then passed
down whole as this one value, and each result carries the question it
answers (reviews.argmax.result).  What a domain means for a certificate
lives here too: whether a witness lies in it (``contains``) and the
largest value of a linear function over it (``largest``), which is all a
combination's check needs of it.

    Question        box (a Fraction, or None), tolerance (a Fraction),
                    inputs (Inputs, LayerNorm, RMSNorm or None)
    Inputs          the interval [low, high] of every coordinate (None: no end)
    LayerNorm       the outputs of a LayerNorm: beta + g * z, z in the ball in sum z = 0
    RMSNorm         the outputs of an RMSNorm: g * z, z in the ball of R^d
    ANYWHERE        Question(): all of R^d, at tolerance 0
    box_value       the bound R of the box, validated, as a Fraction
    tolerance_value the tolerance T, validated, as a Fraction
    inputs_value    Inputs from two numbers (None or an infinity: no end), taken exactly
"""

import decimal
import math
import numbers
from collections import namedtuple
from fractions import Fraction

from reviews.argmax.kernels.layer_input import finite
from reviews.errors import InputError
from reviews.exact import exact_text, real_number

__all__ = ["Question", "Inputs", "LayerNorm", "RMSNorm", "ANYWHERE", "box_value",
           "tolerance_value", "inputs_value"]


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


def box_value(box):
    """The bound R of the box |x_k| <= R: a positive number, taken exactly.

    >>> box_value(100), box_value(0.1), box_value(decimal.Decimal("2.5"))
    (Fraction(100, 1), Fraction(3602879701896397, 36028797018963968), Fraction(5, 2))
    >>> box_value(-1)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: box is negative; the box's bound R must be positive
    """
    if isinstance(box, bool) or not isinstance(box, (numbers.Real, decimal.Decimal)):
        raise TypeError("box must be a positive number (the bound R of |x_k| <= R), not %s"
                        % type(box).__name__)
    bound = Fraction(finite(box, "box", "the box's bound R"))
    if bound <= 0:
        raise InputError("box is %s; the box's bound R must be positive"
                         % ("0" if bound == 0 else "negative"))
    return bound


def tolerance_value(tolerance):
    """The tolerance T >= 0, any real number taken exactly, as a Fraction.

    >>> tolerance_value(0), tolerance_value(decimal.Decimal("1e-8"))
    (Fraction(0, 1), Fraction(1, 100000000))
    >>> tolerance_value(-1)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: tolerance is negative; it must be 0 or more
    """
    if isinstance(tolerance, bool) or not isinstance(tolerance, (numbers.Real, decimal.Decimal)):
        raise TypeError("tolerance must be a number of 0 or more, not %s"
                        % type(tolerance).__name__)
    value = Fraction(finite(tolerance, "tolerance", "the tolerance"))
    if value < 0:
        raise InputError("tolerance is negative; it must be 0 or more")
    return value


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
    (low) and inf (high) leave that side open.  A LayerNorm or an RMSNorm
    is taken with its numbers exact, and so are the names "layernorm" and
    "rmsnorm" (a norm of weight 1 and bias 0).

    >>> inputs_value((0, float("inf")))
    Inputs(low=Fraction(0, 1), high=None)
    >>> inputs_value((1, -1))
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: inputs: the low end 1 is not below the high end -1
    """
    if isinstance(inputs, _Norm):
        return inputs.exact()
    if isinstance(inputs, str) and inputs in _NORMS:
        return _NORMS[inputs]()
    if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__len__") or len(inputs) != 2:
        raise TypeError("inputs must be a pair (low, high), a LayerNorm or an RMSNorm, not %s"
                        % (repr(inputs)[:40] if isinstance(inputs, str)
                           else type(inputs).__name__))
    low, high = _end(inputs[0], "low", -1), _end(inputs[1], "high", 1)
    if low is not None and high is not None and low >= high:
        raise InputError("inputs: the low end %s is not below the high end %s"
                         % (exact_text(low), exact_text(high)))
    return Inputs(low, high)


def _norm_values(values, what):
    """A norm's weight or bias as a tuple of Fractions (None stays None)."""
    if values is None:
        return None
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError("the norm's %s must be a sequence of numbers, not %s"
                        % (what, type(values).__name__))
    if not len(values):
        raise InputError("the norm's %s is empty" % what)
    return tuple(Fraction(finite(v, "the norm's %s[%d]" % (what, k), "a norm's numbers"))
                 for k, v in enumerate(values))


class _Norm(namedtuple("_Norm", "weight bias eps names")):
    """A final norm's outputs, the head's inputs: y = beta + g * z with z
    in the open ball of radius sqrt(d) (in the hyperplane sum z = 0 for a
    LayerNorm).  weight: g, d Fractions (None: every g_k is 1); bias: beta
    (None: 0); eps: the norm's epsilon, a positive Fraction, or None where
    it is not known (any eps > 0 gives the same set: it changes only how
    far from the sphere a given h lands); names: (the weight's name, the
    bias's name), each text or None, as a report shows where they came
    from.  Take it exactly with ``exact`` (Question does)."""

    __slots__ = ()
    kind = None

    def __new__(cls, weight=None, bias=None, eps=None, names=(None, None)):
        return super().__new__(cls, weight, bias, eps, names)

    def exact(self):
        """The same norm, its numbers validated and exact."""
        eps = self.eps
        if eps is not None:
            if isinstance(eps, bool) or not isinstance(eps, (numbers.Real, decimal.Decimal)):
                raise TypeError("the norm's eps must be a positive number, not %s"
                                % type(eps).__name__)
            eps = Fraction(finite(eps, "the norm's eps", "a norm's eps"))
            if eps <= 0:
                raise InputError("the norm's eps is %s; a norm's eps must be positive (with 0 a"
                                 " constant h would divide by 0)" % exact_text(eps))
        names = tuple(self.names) if self.names is not None else (None, None)
        if len(names) != 2 or not all(n is None or isinstance(n, str) for n in names):
            raise TypeError("the norm's names must be (the weight's, the bias's), each text"
                            " or None")
        return self._make((_norm_values(self.weight, "weight"), _norm_values(self.bias, "bias"),
                           eps, names))

    def dimension_error(self, dim):
        """The message for a weight or bias whose length is not ``dim``, or None."""
        for what, values in (("weight", self.weight), ("bias", self.bias)):
            if values is not None and len(values) != dim:
                return ("the norm's %s has %d values, and the head's inputs %d"
                        % (what, len(values), dim))
        return None

    def shown(self):
        """The set as a report says it: "the outputs of a LayerNorm (weight
        'ln_f.weight', bias 'ln_f.bias', eps 1e-05): beta + g * z, z in the
        open ball |z|^2 < d in sum z = 0"."""
        weight, bias = self.names
        parts = [("weight %r" % weight if weight is not None else
                  "weight 1" if self.weight is None else "its weight"),
                 ("bias %r" % bias if bias is not None else
                  None if not self.centred else "bias 0" if self.bias is None else "its bias"),
                 None if self.eps is None else "eps %s" % exact_text(self.eps)]
        where = ("beta + g * z, z in the open ball |z|^2 < d in sum z = 0" if self.centred
                 else "g * z, z in the open ball |z|^2 < d")
        return "the outputs of %s (%s): %s" % (
            "a LayerNorm" if self.centred else "an RMSNorm",
            ", ".join(part for part in parts if part), where)

    def gain(self, k):
        return 1 if self.weight is None else self.weight[k]

    def shift(self, k):
        return 0 if self.bias is None else self.bias[k]

    def contains(self, y):
        """Whether y (Fractions) is an output of the norm: some z with
        beta + g * z = y in the open ball (in sum z = 0 for a LayerNorm).
        A coordinate where g_k = 0 must be beta_k, its z_k free; the least
        |z|^2 over the free ones is then |z_F|^2 + (sum z_F)^2 / m for a
        LayerNorm (m free coordinates share -sum z_F), |z_F|^2 else."""
        fixed, free = [], 0
        for k, value in enumerate(y):
            gain, shift = self.gain(k), self.shift(k)
            if gain:
                fixed.append((value - shift) / gain)
            elif value != shift:
                return False
            else:
                free += 1
        square, total = sum(v * v for v in fixed), sum(fixed)
        if self.centred:
            if free:
                square += total * total / free
            elif total:
                return False
        return square < len(y)

    def covers(self, combined, constant):
        """Whether constant + A . y >= 0 for every output y of the norm, A
        the coordinates ``combined``: with K = constant + A . beta and
        v = g * A, K >= sqrt(d) |P v| (P the projection onto sum z = 0 for
        a LayerNorm, the identity else), decided by squaring."""
        dim = len(combined)
        lowest = constant + sum(a * self.shift(k) for k, a in enumerate(combined) if a)
        v = [a * self.gain(k) for k, a in enumerate(combined)]
        square = dim * sum(x * x for x in v) - (sum(v) ** 2 if self.centred else 0)
        return lowest >= 0 and lowest * lowest >= square


class LayerNorm(_Norm):
    """The outputs of a LayerNorm of weight g and bias beta (either None
    for 1 and 0), any eps > 0: beta + g * z with sum z = 0 and |z|^2 < d.

    >>> norm = LayerNorm(bias=[1, 0]).exact()
    >>> norm.contains([Fraction(3, 2), Fraction(-1, 2)]), norm.contains([2, -1])
    (True, False)
    """

    __slots__ = ()
    kind = "layernorm"
    centred = True


class RMSNorm(_Norm):
    """The outputs of an RMSNorm of weight g (None for 1), any eps > 0:
    g * z with |z|^2 < d (Gemma's 1 + weight is the g to give).

    >>> RMSNorm([2, 0]).exact().contains([Fraction(2), 0])
    True
    """

    __slots__ = ()
    kind = "rmsnorm"
    centred = False

    def __new__(cls, weight=None, eps=None, names=(None, None)):
        return super().__new__(cls, weight, None, eps, names)

    def exact(self):
        if self.bias is not None:
            raise InputError("an RMSNorm has no bias")
        return super().exact()


_NORMS = {"layernorm": LayerNorm, "rmsnorm": RMSNorm}


class Question(namedtuple("Question", "box tolerance inputs")):
    """The box R (a positive Fraction, or None for R^d), the tolerance T
    (a Fraction >= 0) and the inputs (Inputs, a LayerNorm or an RMSNorm,
    or None for the box or R^d), from any real numbers taken exactly.  A
    norm's outputs are asked at tolerance 0 only.

    >>> Question(100, 1e-8).box, Question(None).tolerance
    (Fraction(100, 1), Fraction(0, 1))
    >>> Question(inputs=(-2, 2)), Question(inputs=(0, float("inf"))).inputs
    (Question(box=Fraction(2, 1)), Inputs(low=Fraction(0, 1), high=None))
    >>> Question(0)
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: box is 0; the box's bound R must be positive
    """

    __slots__ = ()

    def __new__(cls, box=None, tolerance=0, inputs=None):
        box = None if box is None else box_value(box)
        tolerance = tolerance_value(tolerance)
        if inputs is not None:
            if box is not None:
                raise InputError("ask for the box or for the inputs, not both (the box R is"
                                 " the inputs -R to R)")
            inputs = inputs_value(inputs)
            if isinstance(inputs, _Norm):
                if tolerance:
                    raise InputError("a tolerance is not asked of a norm's outputs (a ball in a"
                                     " sphere's inside, not a box): ask the norm's outputs at"
                                     " tolerance 0, or a box or interval at a tolerance")
            elif inputs.low is None and inputs.high is None:
                inputs = None
            elif inputs.bounded and inputs.low == -inputs.high:
                box, inputs = inputs.high, None
        return super().__new__(cls, box, tolerance, inputs)

    @property
    def normed(self):
        """Whether the inputs are a norm's outputs (a LayerNorm or an RMSNorm)."""
        return isinstance(self.inputs, _Norm)

    @classmethod
    def exact(cls, box=None, tolerance=Fraction(0), inputs=None):
        """The Question of values validated already (Fractions, Inputs), as
        a moved question's are: no conversion, no check."""
        return super().__new__(cls, box, tolerance, inputs)

    def __repr__(self):
        shown = ["%s=%r" % (name, value) for name, value, plain
                 in zip(self._fields, self, (None, 0, None)) if value != plain]
        return "Question(%s)" % ", ".join(shown)

    def at(self, tolerance):
        """The same domain at the tolerance ``tolerance`` (a Fraction)."""
        return self._replace(tolerance=tolerance)

    def contains(self, x):
        """Whether the point x (Fractions) lies in the domain.

        >>> Question(1).contains([Fraction(1), Fraction(-1)]), Question(inputs=(0, None)).contains([-1])
        (True, False)
        """
        if self.box is not None:
            return max(map(abs, x)) <= self.box
        if self.inputs is None:
            return True
        if self.normed:
            return self.inputs.contains(x)
        low, high = self.inputs
        return all((low is None or low <= v) and (high is None or v <= high) for v in x)

    def largest(self, combined):
        """The largest value of -A . x over the domain, A the coordinates
        ``combined``, or None where it has none (a linear function is
        bounded above on R^d only where it is 0, on a half-line only where
        it does not grow towards the open end).  A norm's outputs are no
        polyhedron: their combinations are checked by the norm's ``covers``.

        >>> Question().largest([0, 0]), Question().largest([1, 0]), Question(2).largest([1, -3])
        (0, None, Fraction(8, 1))
        >>> Question(inputs=(0, None)).largest([1, 2]), Question(inputs=(0, None)).largest([-1])
        (Fraction(0, 1), None)
        """
        if self.box is not None:
            return self.box * sum(map(abs, combined))
        if self.inputs is None:
            return None if any(combined) else 0
        if self.normed:
            raise ValueError("a norm's outputs have no largest linear value of this form")
        low, high = self.inputs
        largest = 0
        for v in combined:
            end = low if v > 0 else high
            if v:
                if end is None:
                    return None
                largest -= v * end
        return largest


ANYWHERE = Question.exact()
