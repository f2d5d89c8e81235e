"""A layer's classes reduced to fewer, and results carried back: one protocol.

Some classes of a layer need no deciding of their own: a class masked by a
bias of -inf (reviews.argmax.reductions.masked), a class whose weight row another
class repeats (reviews.argmax.reductions.twins).  A Reduction settles those at once,
keeps the others as a smaller layer, and carries each result of the
smaller layer back into the classes of the whole one:

    settled(i, question)         the result of class i (for the Question
                                 asked) if the reduction decides it
                                 itself, else None
    kept, position               the classes that stay, in increasing
                                 order, and each one's number among them
    select(values)               the kept classes' rows (or biases)
    expanded(result)             a result of the smaller layer, in the
                                 classes of the whole one
    restricted(result)           the other way: a result of the whole
                                 layer on the smaller one, or None

    Reduction   the protocol, with what its kinds share
"""

from reviews.argmax.kernels.bfloat16 import BFloat16Rows
from reviews.argmax.kernels.layer_input import FloatRows

__all__ = ["Reduction"]


class Reduction:
    """The classes ``kept`` of a layer of ``class_count`` classes.

    >>> kept = Reduction(4, [1, 3])
    >>> kept.select([10, 11, 12, 13]), kept.position
    ([11, 13], {1: 0, 3: 1})
    """

    def __init__(self, class_count, kept):
        self.class_count, self.kept = class_count, kept
        self.position = {j: n for n, j in enumerate(kept)}

    def settled(self, i, question):
        raise NotImplementedError

    def select(self, values):
        """The entries of ``values`` (one per class) of the kept classes;
        None stays None, and so do ``values`` where every class is kept.  A
        FloatRows stays one (reviews.argmax.kernels.layer_input), and so do
        BFloat16Rows (reviews.argmax.kernels.bfloat16)."""
        if values is None or len(self.kept) == self.class_count:
            return values
        if isinstance(values, (FloatRows, BFloat16Rows)):
            return values.select(self.kept)
        return [values[j] for j in self.kept]

    def expanded(self, result):
        """A ClassResult of the smaller layer, in the classes of the whole one."""
        kept = self.kept
        terms = result.terms and tuple((kept[j], value) for j, value in result.terms)
        count = self.class_count if terms or result.class_count is not None else None
        return result._replace(index=kept[result.index], terms=terms, class_count=count)

    def restricted(self, result):
        """A ClassResult of the whole layer on the smaller one: None where it
        names a class that is not kept."""
        position = self.position
        if result.index not in position or (
                result.terms is not None and any(j not in position for j, _ in result.terms)):
            return None
        terms = None if result.terms is None else tuple((position[j], v) for j, v in result.terms)
        return result._replace(index=position[result.index], terms=terms,
                               class_count=None if result.class_count is None
                               else len(self.kept))
