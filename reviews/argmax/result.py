"""The decision for one class, and its plain-integer form for a pipe.

    ClassResult   index, argmaxable, witness, terms, class_count, question, masked
    encoded       a ClassResult as a tuple of ints (cheap to pickle, no Fraction)
    decoded       the ClassResult of ``encoded``'s tuple
    Checked       a ClassResult and its radius, as iter_check_layer gives them
"""

from collections import namedtuple
from fractions import Fraction

from reviews.errors import InputError
from reviews.shown import shown_value
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.question import ANYWHERE, Inputs, Question

__all__ = ["ClassResult", "encoded", "decoded", "Checked"]

# A dense combination past this many classes would not fit in memory.
_DENSE_LIMIT = 2 ** 26


class ClassResult(namedtuple("ClassResult",
                             "index argmaxable witness terms class_count question masked")):
    """The decision for one class, and the question it answers.

    index: the class; argmaxable: bool; witness: d Fractions (a tuple, or a
    reviews.argmax.kernels.witness.Witness, which reads and compares as one) or
    None; terms: the nonzero weights of the combination as
    ((j, Fraction), ...) in increasing j, or None; class_count: C, the
    layer's number of classes (needed only for ``combination``); question:
    the Question answered (reviews.argmax.question: the box, the tolerance,
    the inputs; all of R^d at tolerance 0 unless given), whose ``box``,
    ``tolerance`` and ``inputs`` the result reads as its own (the terms are
    a combination for that question: reviews.argmax.check).  masked: True
    for a class whose bias is -inf (never argmaxable; its certificate is
    its bias).

    >>> ClassResult(2, False, None, ((0, Fraction(1, 2)), (1, Fraction(1, 2))), 3).combination
    (Fraction(1, 2), Fraction(1, 2), 0)
    >>> ClassResult(1, False, None, ((0, Fraction(1)),), 2, Question(inputs=(0, 1)))
    ... # doctest: +NORMALIZE_WHITESPACE
    ClassResult(index=1, argmaxable=False, witness=None, terms=((0, Fraction(1, 1)),),
                class_count=2,
                question=Question(inputs=Inputs(low=Fraction(0, 1), high=Fraction(1, 1))),
                masked=False)
    """

    __slots__ = ()

    def __new__(cls, index, argmaxable, witness=None, terms=None, class_count=None,
                question=ANYWHERE, masked=False):
        return super().__new__(cls, index, argmaxable, witness, terms, class_count, question,
                               masked)

    @property
    def box(self):
        """The question's box R (a Fraction), or None."""
        return self.question.box

    @property
    def tolerance(self):
        """The question's tolerance T (a Fraction; 0 for check_layer's own)."""
        return self.question.tolerance

    @property
    def inputs(self):
        """The question's inputs (reviews.argmax.question.Inputs), or None."""
        return self.question.inputs

    @property
    def combination(self):
        """The combination as a dense tuple of length C (0 off the terms), or None."""
        if self.terms is None:
            return None
        if self.class_count is None:
            raise InputError("class %d: a dense combination needs the number of classes"
                             % self.index)
        if self.class_count > _DENSE_LIMIT:
            raise InputError("class %d: a dense combination has at most 2**26 classes, not %s;"
                             " use its terms" % (self.index, shown_value(self.class_count)))
        dense = [0] * self.class_count
        for j, value in self.terms:
            if not 0 <= j < self.class_count:
                raise InputError("class %d: its terms name class %d of only %d"
                                 % (self.index, j, self.class_count))
            dense[j] = value
        return tuple(dense)


def _pair(fraction):
    return None if fraction is None else (fraction.numerator, fraction.denominator)


def _fraction(pair):
    return None if pair is None else Fraction(*pair)


def encoded(result):
    """A ClassResult as plain ints, tuples and bools (what ``decoded`` reads).

    >>> decoded(encoded(ClassResult(1, False, None, ((0, Fraction(1)),), 2)))
    ClassResult(index=1, argmaxable=False, witness=None, terms=((0, Fraction(1, 1)),), class_count=2, question=Question(), masked=False)
    """
    witness = result.witness and Witness.of(result.witness)
    witness = witness and (witness.numerators, witness.denominator)
    terms = result.terms and tuple((j, v.numerator, v.denominator) for j, v in result.terms)
    question = result.question
    inputs = question.inputs and tuple(map(_pair, question.inputs))
    return (result.index, result.argmaxable, witness, terms, result.class_count,
            (_pair(question.box), _pair(question.tolerance), inputs), result.masked)


def decoded(plain):
    """The ClassResult that ``encoded`` gave ``plain`` for."""
    index, argmaxable, witness, terms, class_count, (box, tolerance, inputs), masked = plain
    question = Question.exact(_fraction(box), _fraction(tolerance),
                              inputs and Inputs(*map(_fraction, inputs)))
    return ClassResult(index, argmaxable, witness and Witness(*witness),
                       terms and tuple((j, Fraction(n, q)) for j, n, q in terms),
                       class_count, question, masked)


Checked = namedtuple("Checked", "result radius")
Checked.__doc__ = """A class's ClassResult, and its Radius (reviews.argmax.tolerance.radii)
when iter_check_layer was asked for radii, else None (and None for a class
that is not argmaxable)."""
