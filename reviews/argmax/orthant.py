"""Classes decided on the orthant y >= 0: a half-line's question, moved.

reviews.argmax.domain moves a question on x >= l (or x <= h) to one on
y >= 0.  There the box [0, M]^d is asked first, which the checker decides
fast: its witnesses are the orthant's, and so are its combinations whose
linear part has no negative coordinate; the classes it leaves are asked in
a second box, [0, M']^d with M' past the layer's largest bias over its
smallest weight, and what is left then by Clarkson's rounds of the exact
program with the rows y_k > 0 added (reviews.argmax.tolerance's Geometry,
at T = 0 first).

    Orthant     the classes of a moved layer decided on y >= 0
"""

from fractions import Fraction

from reviews.argmax.domain import layer_fraction, moved_layer
from reviews.argmax.kernels.layer_input import integer_layer
from reviews.argmax.kernels.norms import holds_at
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.question import Inputs, Question
from reviews.argmax.reductions.masked import Masks
from reviews.argmax.strategy.bounded import BOUNDED_FROM, ScaledLayer, decide_bounded
from reviews.argmax.tolerance import Geometry

__all__ = ["Orthant"]

# Rivals a round of the orthant's program adds at most, the most violated first.
_ADDED_PER_ROUND = 8
# Half the side M of the box [0, M]^d asked first on the orthant.  The box
# decides g2pM's head (876 x 32) over x >= 0 in 6.7 s where the rounds alone
# took 40 s (2 jobs); a class that wins only farther out is left to the rounds.
_HALF_BOX = Fraction(500)
# Bits past the largest bias over the smallest weight of the second box's side.
_FAR_MARGIN_BITS = 8
# The orthant y >= 0, where a combination must hold.
_ORTHANT = Question.exact(inputs=Inputs(Fraction(0), None))


class Orthant:
    """The classes of a moved layer decided on y >= 0, the layer made exact
    once as integers over one denominator.

    The box [0, M]^d is asked first, as the box [-M/2, M/2]^d of the layer
    moved by M/2 (``boxed``), which the checker decides fast, at the
    tolerance if any: a witness there is one on the orthant, and so is a
    combination that holds there too; the rest are decided by the exact
    program's rounds (``decided``), and radii are measured on the orthant
    (``radius``).

    >>> from reviews.argmax.result import ClassResult
    >>> orthant = Orthant([[0, 0], [1, 0], [0, 1]], [1, 0, 0])
    >>> orthant.decided(ClassResult(1, True, (-488, -500), None, 3)).witness
    (Fraction(12, 1), Fraction(0, 1))
    >>> orthant.decided(ClassResult(0, False, None, ((1, Fraction(1)),), 3)).argmaxable
    True
    """

    def __init__(self, weights, bias):
        self.weights, self.bias = weights, bias
        self.class_count, self.dim = len(weights), len(weights[0])
        self._masks = Masks(weights, bias)
        self._geometry = None
        self._scaled = None

    def geometry(self):
        """The layer's Geometry on the orthant (reviews.argmax.tolerance), the
        masked classes left out, made when a class first needs it (where the
        box decides every class and no radius is asked, never)."""
        if self._geometry is None:
            masks = self._masks
            self._finite = masks.kept or list(range(self.class_count))
            self._position = {j: n for n, j in enumerate(self._finite)}
            weights, bias = ((masks.select(self.weights), masks.select(self.bias))
                             if masks.masked else (self.weights, self.bias))
            self._geometry = Geometry(*integer_layer(weights, bias)[:2], None, orthant=True)
        return self._geometry

    def boxed(self, half=_HALF_BOX):
        """(weights, bias, box) of the box [0, 2 half]^d moved to [-half, half]^d."""
        return moved_layer(self.weights, self.bias, Inputs(Fraction(0), 2 * half))[:3]

    def far_half(self):
        """Half the side of a second box [0, M]^d, asked where the first
        leaves a class: past the layer's largest bias over its smallest
        weight, where classes that win only far out (biases of 1e300 over
        weights of 1) have their witnesses; None where that is no farther
        than the first box."""
        masks = self._masks
        kept = masks.select(self.bias) if masks.masked else self.bias or ()
        biases = [abs(layer_fraction(v)) for v in kept]
        weights = [abs(layer_fraction(v)) for row in self.weights for v in row if v]
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
                        _ORTHANT.at(tolerance))

    def _bounded(self, n, terms, tolerance):
        """(witness, None) or (None, terms in positions) for the class at
        position n on y >= 0 by the bounded program
        (reviews.argmax.strategy.bounded), from the rivals of ``terms``; a
        witness only where it clears the tolerance (a combination at T = 0
        holds at every T); None where the program leaves it, or in fewer
        dimensions than it is used in."""
        if self.dim < BOUNDED_FROM:
            return None
        geometry = self.geometry()
        if self._scaled is None:
            biggest = max(map(abs, geometry.biases))
            self._scaled = ScaledLayer(geometry.rows, geometry.biases, geometry.largest or 1,
                                       biggest or geometry.largest or 1)

        def check(point):
            witness = Witness.of(point)
            short = geometry.short(n, witness.numerators, witness.denominator, 0)
            return (None, short) if short else (witness, None)
        working = [self._position[j] for j, _ in terms]
        found = decide_bounded(self._scaled, n, working, _ORTHANT, check)
        if found is None or found[1] is not None or not tolerance:
            return found
        witness = found[0]
        if geometry.short(n, witness.numerators, witness.denominator, tolerance):
            return None
        return found

    def decided(self, result, far=None):
        """The result on y >= 0 of the result in the box [0, M]^d (module
        docstring), at the result's tolerance; ``far``, if given, is a
        function of a class giving (half, its result in the box
        [0, 2 half]^d moved to [-half, half]^d), or None where there is no
        such box, asked before the rounds."""
        if result.masked:
            return result
        if result.argmaxable:
            return result._replace(witness=Witness.of(result.witness).moved(_HALF_BOX))
        geometry, tolerance = self.geometry(), result.tolerance
        n = self._position[result.index]
        if self._holds(n, result.terms, tolerance):
            return result
        quick = self._bounded(n, result.terms, tolerance)
        if quick is not None:
            witness, terms = quick
            if terms is None:
                return result._replace(argmaxable=True, terms=None, witness=witness)
            return result._replace(terms=tuple((self._finite[m], v) for m, v in terms))
        found = far and far(result.index)
        if found:
            half, farther = found
            if farther.argmaxable:
                return result._replace(argmaxable=True, terms=None,
                                       witness=Witness.of(farther.witness).moved(half))
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
