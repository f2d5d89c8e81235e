"""Classes masked by a bias of -inf: never the argmax, and not there for
the others.

A class whose bias is -inf has the logit -inf at every input: it is never
argmaxable, and it never stands in another class's way.  So the other
classes are decided, and their certificates checked, on the layer without
the masked ones, and their class numbers mapped back: a Reduction
(reviews.argmax.reductions.reduction).  A masked class's certificate is its bias.

    Masks            the masked classes of a layer, as a Reduction
    masked_classes   the classes whose bias is -inf
"""

from decimal import Decimal

from reviews.argmax.kernels.layer_input import sequence, validated
from reviews.argmax.reductions.reduction import Reduction
from reviews.argmax.result import ClassResult
from reviews.errors import InputError
from reviews.exact import real_number

__all__ = ["Masks", "masked_classes"]

_MINUS_INFINITY = float("-inf")


def masked_classes(bias):
    """The classes whose bias is -inf, in order: a float, a Decimal or any
    other real number (a numpy float32) that is -inf, in any sequence (a
    list, a tuple, an array.array, a memoryview, a numpy array).

    A Decimal is tested as a Decimal: -3E+391 is finite, though float()
    of it is -inf.  An iterable that cannot be read twice (a generator)
    masks nothing: it is read once, by the check.

    >>> masked_classes([0, float("-inf"), Decimal("-Infinity"), Decimal("-3E+391")])
    [1, 2]
    """
    if bias is None or not (hasattr(bias, "__len__") and hasattr(bias, "__getitem__")):
        return []
    try:
        bias = sequence(bias, "bias")
    except InputError as error:
        raise InputError(str(error), input="bias") from None
    return [j for j, value in enumerate(bias) if _minus_infinity(value)]


def _minus_infinity(value):
    if type(value) is float:
        return value == _MINUS_INFINITY
    if isinstance(value, Decimal):
        return value.is_infinite() and value < 0
    try:
        return real_number(value, "bias") == _MINUS_INFINITY
    except InputError:
        return False   # not a number: the check names it


class Masks(Reduction):
    """The classes of a layer masked by a bias of -inf (``masked``), as a
    Reduction: each is settled as never argmaxable, and the others are kept.

    ``validate`` checks a masked layer's numbers whole, its masked biases
    aside, so that a bad entry is named by its own class.

    >>> from reviews.argmax.question import ANYWHERE
    >>> masks = Masks([[0], [1], [2]], [0, float("-inf"), 1])
    >>> masks.masked, masks.kept, masks.settled(1, ANYWHERE).masked
    ([1], [0, 2], True)
    """

    def __init__(self, weights, bias, validate=False):
        self.masked = masked_classes(bias)
        if not self.masked:
            self.class_count, self.kept, self.position = None, None, None
            return
        if validate:
            validated(weights, [0 if j in self.masked else b for j, b in enumerate(bias)])
        masked = set(self.masked)
        super().__init__(len(bias), [j for j in range(len(bias)) if j not in masked])

    def settled(self, i, question):
        """The result of masked class i for ``question`` (its certificate is
        its bias, in any domain and at any tolerance); None for a class
        that is kept."""
        if i in self.position:
            return None
        return ClassResult(i, False, class_count=self.class_count, question=question,
                           masked=True)

    def restricted(self, result):
        """A result of a kept class on the layer without the masked ones;
        None for one that names a masked class, or is itself masked."""
        return None if result.masked else super().restricted(result)
