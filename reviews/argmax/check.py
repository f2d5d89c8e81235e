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
  rank + 2 of them (Caratheodory; rank + 1 without a bias), so memory
  grows with C, not C**2.

How it stays fast in pure Python: every number is scaled to an integer by
one common denominator; a candidate x is checked against all C classes at
once by a few big-integer products (the C logits, rounded to a few bits,
packed into 2-byte fields of one integer, with a rigorous bound on the
rounding: reviews.argmax.kernels.packed), and only the classes whose margin is within
that bound are checked one by one in exact integers.  In 32 dimensions
or more, candidates come first from a few coordinates of w_i - mean
(reviews.argmax.strategy.supports), x zero elsewhere, each checked in as
many additions of the layer's packed columns (reviews.argmax.kernels.sparse);
then from x = w_i and a few reflections; in 12 dimensions or more, then from
the point nearest the origin of the hull of the rivals' constraints
(Wolfe's algorithm, in floats: reviews.argmax.strategy.nearest), over the classes
that beat the last candidate (Clarkson's idea), whose combination, where
the hull holds the origin, is solved exactly by p-adic lifting
(reviews.argmax.kernels.lifting); then from a small linear program over the same
growing set of rivals, in floats, then where floats fail in Decimals of as many digits as the layer's
numbers span (a layer of numbers from 1e-300 to 1e300 loses its small
ones in floats); the same program in exact integers decides what both
leave open, and always decides (reviews.argmax.strategy.feasibility proves that it ends).  With fewer
classes than dimensions (C - 1 < d), the program runs on at most C - 1
input coordinates that carry the whole question (reviews.argmax.strategy.span); witnesses
are exact there, and a combination is checked on the whole layer.

Floats and Decimals only propose: a number past the float range is still
taken at its exact value, and every certificate is checked exactly.

The box.  The paper's released detector looks only in a box: is class i
the strict argmax somewhere in |x_k| <= R (R = 100 in its code)?
``check_layer(..., box=R)`` answers it exactly, with R a positive int,
Fraction, Decimal or float taken at its exact value, and certificates
(``ClassResult.box`` = R records the question):

* argmaxable in the box: a witness x as above with max_k |x_k| <= R;
* not argmaxable in the box: terms lam >= 0 over the other classes with
  sum(lam) = 1 and sum_j lam_j (b_j - b_i) >= R * |sum_j lam_j (w_j - w_i)|_1.
  For x in the box, v . x >= -R * |v|_1 with v = sum_j lam_j (w_j - w_i),
  so the lam-weighted mean of the rival logits is at least logit i.

By LP duality over the compact box, one of the two always exists: the
program of reviews.argmax.strategy.feasibility with its penalty fixed at R.  Without a bias
the box changes nothing (a witness scaled towards 0 stays one), so the
answers are those for R^d with witnesses scaled into the box.  With a bias
the reduction to a few coordinates is not used (a boxed combination's
condition is not kept by it) and every candidate is clamped into the box.  An answer for
R^d is also one for the box where it holds: a combination with
sum_j lam_j w_j = w_i proves every box, a witness proves R^d; but a boxed
combination proves nothing about R^d, and ``verify`` with box=None says so.

    check_layer         one ClassResult per class
    iter_check_layer    a Checked per class, as they come, with radii if asked

The layer is validated and reduced here (masked classes, twins), split
across worker processes (reviews.argmax.workers), and each class decided
by reviews.argmax.strategy.decide; ``verify`` (reviews.argmax.verify) checks a
certificate independently, and the paper's own search is
reviews.argmax.strategy.braid.
"""

from collections import namedtuple

from reviews.argmax.strategy.decide import PreparedLayer, decide
from reviews.argmax.kernels.layer_input import asked_classes, check_spread, integer_layer
from reviews.argmax.strategy.lines import upper_envelope
from reviews.argmax.reductions.masked import Masks
from reviews.argmax.normed import NormedLayer
from reviews.argmax.question import ANYWHERE, Question
from reviews.argmax.result import Checked, ClassResult, decoded, encoded
from reviews.argmax.tolerance import Geometry, Radius
from reviews.argmax.reductions.twins import Twins
from reviews.argmax.domain import moved_back, moved_layer, shown_inputs
from reviews.argmax.orthant import Orthant
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.workers import iter_items, job_count, start_method
from reviews.errors import InputError

__all__ = ["check_layer", "iter_check_layer", "iter_checked"]


def check_layer(weights, bias=None, progress=None, *, box=None, jobs=1, tolerance=0,
                classes=None, inputs=None):
    """Decide every class of the layer exactly; one ClassResult per class.

    ``progress``, if given, is called as progress(done, total) while the
    check runs, in this process.  ``box`` = R (a positive number, taken
    exactly) asks about inputs with |x_k| <= R only (module docstring);
    None asks about R^d.  ``jobs`` worker processes (a positive int, or
    None for every usable CPU) share the classes; the results are the same
    for every ``jobs``.  With jobs > 1 under the ``spawn`` start method
    (macOS, Windows), call it from under ``if __name__ == "__main__":``.
    ``tolerance`` = T > 0 (taken exactly) asks whether class i is the
    argmax on a ball of radius above T, its centre in the box if any (the
    question of the released detector's linear program, which its search
    stage does not ask: reviews.argmax.tolerance); 0 asks check_layer's own.
    A class whose bias is -inf is masked: never argmaxable, with
    ``masked`` True, and the others are decided without it
    (reviews.argmax.reductions.masked).  ``classes`` (an iterable of class ids)
    decides only those, each against every row of the layer, and returns
    their results in increasing class order; None decides every class.
    ``inputs`` = (low, high) asks about inputs with low <= x_k <= high only
    (either end None or infinite for no end; reviews.argmax.domain): (0,
    inf) for the image of a ReLU; (-R, R) is the box R.  A tolerance with
    inputs of two finite ends asks for a ball with its centre in them, as
    in the box.

    >>> from fractions import Fraction
    >>> W = [[-2, -2], [1, 2], [Fraction(9, 5), Fraction(-4, 5)], [Fraction(9, 10), Fraction(1, 5)]]
    >>> [r.argmaxable for r in check_layer(W)]
    [True, True, True, False]
    >>> check_layer(W)[3].terms
    ((0, Fraction(43, 290)), (1, Fraction(61, 145)), (2, Fraction(25, 58)))

    Class 1 wins only for x > 2, outside the box [-1, 1]:

    >>> [r.argmaxable for r in check_layer([[0], [1]], [0, -2], box=1)]
    [True, False]
    >>> check_layer([[0], [1]], [0, -2], box=1)[1].terms
    ((0, Fraction(1, 1)),)
    >>> [(r.index, r.argmaxable) for r in check_layer(W, classes=[3, 1])]
    [(1, True), (3, False)]

    Over x >= 0, class 1 never beats class 0 by enough:

    >>> [r.argmaxable for r in check_layer([[0], [-1]], [0, 1], inputs=(0, None))]
    [True, True]
    >>> [r.argmaxable for r in check_layer([[0], [-1]], [0, -1], inputs=(0, None))]
    [True, False]
    """
    return [checked.result for checked in iter_checked(
        weights, bias, Question(box, tolerance, inputs), progress, jobs=jobs, classes=classes)]


def iter_check_layer(weights, bias=None, progress=None, *, box=None, jobs=1, tolerance=0,
                     classes=None, radii=False, inputs=None):
    """check_layer's results as they come: an iterator of a Checked per class
    asked, in increasing class order, each as soon as it and every class
    before it are decided.

    The layer is read, validated and prepared before this returns (its
    errors are raised here); the classes are decided while the iterator is
    read, by ``jobs`` worker processes, which end when it is exhausted or
    closed.  With ``radii``, each argmaxable class's Radius (a certified
    lower bound, or its exact largest radius where that is below 1e-8:
    reviews.argmax.tolerance.radii) is found where the class was decided,
    for its result (at the tolerance, if any).

    Class 1 wins for 0 < x < 2, at x = 1 by 1 over either neighbour:

    >>> W, b = [[0], [1], [2]], [0, 1, 0]
    >>> [c.result.argmaxable for c in iter_check_layer(W, b)]
    [True, True, True]
    >>> next(c.radius for c in iter_check_layer(W, b, radii=True) if c.result.index == 1)
    Radius(value=Fraction(1, 1), exact=False, upper=None)
    """
    return iter_checked(weights, bias, Question(box, tolerance, inputs), progress, jobs=jobs,
                        classes=classes, radii=radii)


def iter_checked(weights, bias, question, progress=None, *, jobs=1, classes=None, radii=False):
    """iter_check_layer's iterator for the Question ``question``
    (reviews.argmax.question), taken as it is: what the public functions
    call once they have converted their keywords, and what a run of the
    command passes its one question to."""
    if progress is not None and not callable(progress):
        raise TypeError("progress must be a function called as progress(done, total), not %s"
                        % type(progress).__name__)
    # Masked classes and twins are settled by a Reduction each
    # (reviews.argmax.reductions.reduction); the rest is decided on the smaller layer.
    masks = Masks(weights, bias, validate=True)
    jobs = job_count(jobs)
    if question.normed:
        asked = None if classes is None else asked_classes(classes, len(weights))
        return _on_norm(weights, bias, progress, jobs, asked, question)
    if question.inputs is not None:
        # The classes asked and the spread (the inputs' ends beside the
        # layer's numbers) are checked here, so that only the moved layer's
        # own errors are said to be the moved layer's.
        asked = None if classes is None else asked_classes(classes, len(weights))
        if masks.kept != []:
            kept = (masks.select(weights), masks.select(bias)) if masks.masked else (weights, bias)
            check_spread(*integer_layer(*kept), question)
        return _on_inputs(weights, bias, progress, jobs, asked, question, radii)
    if masks.masked:
        asked = asked_classes(classes, masks.class_count)
        if not any(i in masks.position for i in asked):
            return _in_order(asked, masks, None, question, None)
        weights, bias = masks.select(weights), masks.select(bias)
    rows, biases, denominator = integer_layer(weights, bias)
    if not masks.masked:
        asked = asked_classes(classes, len(rows))
    # Repeated rows are settled by a twin; the rest on one representative per row.
    twins = Twins(rows, biases)
    reduced = (twins.select(rows), twins.select(biases), denominator)
    check_spread(*reduced, question)
    # Only representatives that stand for a class without a twin need deciding.
    unmasked = asked if not masks.masked else [masks.position[i] for i in asked
                                               if i in masks.position]
    needed = sorted({twins.position[i] for i in unmasked if i not in twins.twin})
    plan = _Plan(reduced, question, twins,
                 (rows, biases) if question.tolerance or radii else None, radii)
    return _in_order(asked, masks, twins, question, _decided(plan, needed, jobs, progress))


def _on_inputs(weights, bias, progress, jobs, classes, question, radii):
    """iter_check_layer's Checked per class for the question's inputs: the
    moved layer's question asked (at the same tolerance, with the same
    radii: moving x changes no margin and no distance), its results moved
    back (reviews.argmax.domain)."""
    inputs = question.inputs
    try:
        weights, bias, box, orthant = moved_layer(weights, bias, inputs)
        if orthant:
            orthant = Orthant(weights, bias)
            weights, bias, box = orthant.boxed()
        # On the orthant, radii are measured there, not in the box asked first.
        decided = iter_checked(weights, bias, Question.exact(box, question.tolerance), progress,
                               jobs=jobs, classes=classes, radii=radii and not orthant)
        far = orthant and _far_box(orthant, question.tolerance)
    except InputError as error:
        # The layer itself was read and validated: what fails is the moved one.
        raise InputError("for the inputs %s, the layer moved to them (each bias b_j plus"
                         " w_j . m, m a point of the inputs: reviews.argmax.domain): %s"
                         % (shown_inputs(inputs), error)) from None
    return _moved_back(decided, orthant or None, question, radii, far)


def _on_norm(weights, bias, progress, jobs, classes, question):
    """iter_check_layer's Checked per class for a norm's outputs: the layer
    moved to the norm's z asked over R^d, each result carried to the ball
    (reviews.argmax.normed); no radii (a ball in a sphere's inside has no
    box to centre them in)."""
    layer = NormedLayer(weights, bias, question.inputs)
    try:
        decided = iter_checked(*layer.moved, ANYWHERE, progress, jobs=jobs, classes=classes)
    except InputError as error:
        raise InputError("for the outputs of the norm, the layer moved to them (w_j times"
                         " the norm's weight, b_j plus w_j . its bias: reviews.argmax.normed):"
                         " %s" % error) from None
    try:
        for checked in decided:
            yield Checked(layer.decided(checked.result)._replace(question=question), None)
    finally:
        decided.close()


def _far_box(orthant, tolerance):
    """Orthant.decided's ``far``: a function of a class giving (half, its
    result in the second box), or None where the first box is as far; the
    box is found when a class first needs it (most layers never do)."""
    box = []

    def decided(i):
        if not box:
            half = orthant.far_half()
            box.append(None if half is None else (half,) + orthant.boxed(half))
        if box[0] is None:
            return None
        half, weights, bias, moved_half = box[0]
        [checked] = iter_checked(weights, bias, Question.exact(moved_half, tolerance),
                                 classes=[i])
        return half, checked.result
    return decided


def _moved_back(decided, orthant, question, radii, far):
    try:
        for checked in decided:
            if orthant is not None:
                result = orthant.decided(checked.result, far)
                checked = Checked(result, orthant.radius(result) if radii else None)
            yield checked._replace(result=moved_back(checked.result, question))
    finally:
        decided.close()


def _in_order(asked, masks, twins, question, decided):
    """A Checked per class asked: a masked class's or a twin's at once, the
    others' from ``decided`` in turn (None where every class asked is masked)."""
    try:
        for i in asked:
            if masks.masked:
                settled = masks.settled(i, question)
                if settled is not None:
                    yield Checked(settled, None)
                    continue
                i = masks.position[i]
            settled = twins.settled(i, question)
            checked = Checked(settled, None) if settled is not None else next(decided)
            if masks.masked:
                checked = checked._replace(result=masks.expanded(checked.result))
            yield checked
    finally:
        if decided is not None:
            decided.close()


def _decided(plan, needed, jobs, progress):
    """A Checked for each of the representatives ``needed``, in order, from
    this process or from ``jobs`` workers."""
    reduced = plan.reduced
    lines = None
    if len(reduced[0][0]) == 1 and (plan.question.box is None or reduced[1] is None):
        # One dimension: the upper envelope of lines decides every class at once.
        envelope = upper_envelope([w for w, in reduced[0]], reduced[1] or [0] * len(reduced[0]))
        lines = [ClassResult(n, not terms, witness, terms)
                 for n, (witness, terms) in enumerate(envelope)]
    if lines is not None or jobs == 1 or len(needed) < 2:
        decider = _Decider(plan)
        for done, n in enumerate(needed, 1):
            checked = decider.finished(n, lines and lines[n])
            if progress is not None:
                progress(done, len(needed))
            yield checked
        return
    if start_method() == "fork":
        # Forked workers inherit the layer built here once, instead of each
        # building its own copy side by side, slower for sharing the CPUs.
        start, arguments, work = None, (), _Decider(plan).chunk
    else:
        start, arguments, work = _chunk_decider, (plan,), None
    yield from iter_items(start, arguments, work, needed, jobs, progress, _decoded)


# What a worker is sent: the layer of representatives (integer rows,
# biases, denominator), the Question, the Twins, the whole integer layer
# (rows, biases) where a tolerance or radii need it, and whether radii are
# asked.
_Plan = namedtuple("_Plan", "reduced question twins integer radii", defaults=(None, False))


class _Decider:
    """What a process needs to decide classes of the layer: the packed
    layer of representatives, and, for a tolerance or radii, the whole
    integer layer's geometry (reviews.argmax.tolerance), made when first
    needed."""

    def __init__(self, plan):
        self.layer = PreparedLayer(*plan.reduced, box=plan.question.box)
        self.question = plan.question
        self.twins, self.integer, self.radii = plan.twins, plan.integer, plan.radii
        self._geometry = None

    def geometry(self):
        if self._geometry is None:
            self._geometry = Geometry(*self.integer, self.question.box)
        return self._geometry

    def finished(self, n, result=None):
        """The Checked of representative n: decided (unless ``result`` is
        given), in the box, in the layer's classes, at the tolerance, with
        its radius if asked."""
        if result is None:
            result = decide(self.layer, n)
        box, tolerance = self.question.box, self.question.tolerance
        if box is not None:
            result = _into_box(result, box)
        result = self.twins.expanded(result)._replace(question=self.question)
        if tolerance:
            result = self.geometry().carried(result, tolerance)
        return Checked(result, self.geometry().radius(result) if self.radii else None)

    def chunk(self, indices):
        """The Checked of a chunk of representatives, in plain integers (cheap to send)."""
        return [(encoded(checked.result), checked.radius and tuple(checked.radius))
                for checked in map(self.finished, indices)]


def _chunk_decider(plan):
    """A worker's start: the function that decides its chunks, its
    _Decider built there from ``plan``."""
    return _Decider(plan).chunk


def _decoded(chunk):
    """The Checked of a chunk from _Decider.chunk."""
    return [Checked(decoded(result), radius and Radius(*radius)) for result, radius in chunk]


def _into_box(result, box):
    """The result for the box: a witness scaled into it.

    Only a layer without bias, decided for R^d, has witnesses outside the
    box, and there a positive multiple of a witness is one.
    """
    if result.argmaxable:
        witness = Witness.of(result.witness)
        size = witness.size()
        if size > box:
            result = result._replace(witness=witness.scaled(box / size))
    return result
