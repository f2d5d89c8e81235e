"""Checks of the low-rank paper's released detector, as its source says it works.

The released code (andreasgrv/unargmaxable, MIT; ``stollen/__init__.py``,
``bin/stollen_hugging`` and the experiment scripts) decides a class in
stages: its Braid-reflect search (``candidate_is_bounded``, patience 100 by
default, 2500 in the paper's runs) accepts a class wherever the float
argmax, a tie going to the lowest index, is the class inside [-100, 100]^d,
with no tolerance; only the classes it misses go to ``lp_chebyshev`` (a
Chebyshev ball in Gurobi: barrier method, FeasibilityTol 1e-9, radius
r >= 1e-8), and that stage is off by default (``--exact-algorithm
none``).  The search's rule is followed here in exact arithmetic by this
suite's own code (reviews.argmax.released); the released code is never run.
The checks are used by reviews.papers.low_rank_softmax, whose CLAIMS hold
them.

    check_tie_rule          the search's tie rule calls unargmaxable classes argmaxable
    check_released_count    its counts differ from --box 100 --tolerance 1e-8, both ways
    STAGES                  the evidence row that says how the released detector decides
"""

import random
from fractions import Fraction

from reviews.argmax.strategy.braid import braid_reflect

from reviews.argmax.check import check_layer

from reviews.argmax.verify import verify
from reviews.argmax.released import BOX, released_search
from reviews.argmax.tolerance import radii
from reviews.claims import FAIL, PASS, Outcome, Row, written
from reviews.exact import exact_text

__all__ = ["check_tie_rule", "check_released_count", "STAGES"]

HALF = Fraction(1, 2)
# Class 0 is the mean of classes 1 and 2; its logit ties theirs at x = w_0.
MEAN_LAYER = ((HALF, HALF), (1, 0), (0, 1), (-1, -1))
# Rows 0 and 3 are equal.
TWIN_LAYER = ((1, 0), (0, 1), (-1, -1), (1, 0))
# Row 0 is zero, as an embedding's padding row starts; no bias.
ZERO_ROW_LAYER = ((0, 0), (1, 0), (0, 1), (-1, -1))
# d = 1: class 1 wins only for |x - 1| < 3e-9, where the search starts.
THIN_WEIGHTS = ((0,), (1,), (2,))
THIN_BIAS = (1 - 3e-9, 0, -1 - 3e-9)
# Integer layer on which the search, 100 reflections long, misses class 0.
MISSED_SEED, MISSED_SHAPE, MISSED_CLASS = 36, (12, 2), 0
PAPER_PATIENCE = 2500
TOLERANCE = Fraction(1, 10 ** 8)

STAGES = Row("the detector", "stollen/__init__.py: 1. Braid reflect (candidate_is_bounded; patience"
             " 100 by default, 2500 in the paper's runs) from x = w_i, the argmax np.argmax(W x"
             " + b) in the layer's float dtype, a tie to the lowest index; a class whose last"
             " argmax is itself, x in [-100, 100]^d, is argmaxable, with no tolerance. 2. Only"
             " the classes it misses go to lp_chebyshev: a Chebyshev ball in Gurobi (barrier,"
             " FeasibilityTol 1e-9, radius r >= 1e-8), OPTIMAL meaning argmaxable, the question"
             " --box 100 --tolerance 1e-8 answers exactly. 3. That stage is off by default"
             " (--exact-algorithm none: the search's misses are printed as potentially"
             " bounded); the paper's runs pass --exact-algorithm lp_chebyshev")


def _vectors(rows):
    return "; ".join("(%s)" % ", ".join(exact_text(v) for v in row) for row in rows)


def _terms(result):
    return " + ".join("w%d" % j if v == 1 else "%s w%d" % (v, j) for j, v in result.terms)


def _logits(rows, x):
    return ", ".join(exact_text(sum(Fraction(w) * v for w, v in zip(row, x))) for row in rows)


def _unargmaxable(rows, bias=None, **question):
    """check_layer's results, each checked by verify, and whether they all hold."""
    results = check_layer(rows, bias, **question)
    return results, all(verify(rows, bias, r, **question) for r in results)


def check_tie_rule():
    """The search's tie rule on three small layers, in exact arithmetic."""
    rows, holds = [Row("the rule", "stollen/__init__.py (candidate_is_bounded,"
                       " get_swap_target, swap): x = w_i; a = np.argmax(W x + b), a tie to the"
                       " lowest index; reflect x across the tie of i and a until a = i, at most"
                       " patience times; argmaxable when the last a is i and x is in [-100,"
                       " 100]^d. Followed here in exact arithmetic by this suite's own code"
                       " (reviews.argmax.released); every value below is exact in binary, so"
                       " float32 and float64 compute the same logits and ties")], True
    for label, layer in (("mean", MEAN_LAYER), ("zero row", ZERO_ROW_LAYER)):
        exact, checked = _unargmaxable(layer)
        found = released_search(layer, None, 0)
        holds = holds and checked and not exact[0].argmaxable and found.accepted \
            and found.reflections == 0 and found.margin == 0
        holds = holds and braid_reflect(layer, None, 0) is None
        rows += [
            Row("%s: W" % label, "%s, no bias" % _vectors(layer)),
            Row("%s: exact" % label, "class 0 unargmaxable: w0 = %s (checked)"
                % _terms(exact[0])),
            Row("%s: the rule" % label, "at x = w0 = (%s) the logits are %s: class 0 ties the"
                " largest, np.argmax gives 0, so after %d reflections it is called argmaxable"
                % (", ".join(exact_text(v) for v in found.point), _logits(layer, found.point),
                   found.reflections)),
        ]
    rows.append(Row("zero row: why", "a zero row is how an embedding's padding row starts"
                       " (PyTorch's padding_idx: zero at initialisation, and the lookup gives"
                       " it no gradient); without a bias its logit is 0 at every x, and at x ="
                       " w0 = 0 so is every other: a zero row at index 0 is always accepted"))
    exact, checked = _unargmaxable(TWIN_LAYER)
    first, second = released_search(TWIN_LAYER, None, 0), released_search(TWIN_LAYER, None, 3)
    alone, alone_checked = _unargmaxable(TWIN_LAYER[1:], box=BOX, tolerance=TOLERANCE)
    holds = (holds and checked and alone_checked and not exact[0].argmaxable
             and not exact[3].argmaxable and first.accepted and not second.accepted
             and second.stop == "zero normal" and alone[2].argmaxable)
    rows += [
        Row("twins: W", "%s, no bias: rows 0 and 3 equal" % _vectors(TWIN_LAYER)),
        Row("twins: exact", "classes 0 and 3 unargmaxable: w0 = w3, whose logits tie at"
            " every x (checked)"),
        Row("twins: class 0", "at x = w0 the logits are %s: a tie of classes 0 and 3,"
            " np.argmax gives 0: called argmaxable" % _logits(TWIN_LAYER, first.point)),
        Row("twins: class 3", "at x = w3 np.argmax gives 0, and the reflection's normal w3 - w0"
            " is zero (numpy's division gives NaN): the search never accepts class 3, whose"
            " logit equals class 0's at every x"),
        Row("twins: its LP", "with --exact-algorithm lp_chebyshev class 3 goes to the LP, whose"
            " row for class 0 reads 0 <= 0: it is class 3's program without its twin, which"
            " is feasible (class 3 passes --box 100 --tolerance 1e-8 on the layer without row"
            " 0: witness x = (%s), checked); at any point it returns, rows 0 and 3 have equal"
            " logits, so np.argmax is not 3 and the released assert np.argmax(W x + b) == i"
            " stops the run" % ", ".join(exact_text(v) for v in alone[2].witness)),
        Row("this suite", "low-rank.braid-reflect's search accepts a strict win only: it calls"
            " neither class 0 above argmaxable"),
    ]
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "the released search calls class 0 of three unargmaxable layers"
                   " argmaxable at a tie (x = w0), and meets a zero normal at the second of two"
                   " equal rows; check_layer proves every such class unargmaxable",
                   tuple(rows))


def _short(value):
    """A small positive number to 3 significant digits, as a person writes it: 3e-9."""
    return written(float("%.3g" % value))


def _count(results):
    return sum(not r.argmaxable for r in results)


def _missed_layer():
    rng = random.Random(MISSED_SEED)
    classes, dim = MISSED_SHAPE
    weights = [[rng.randint(-9, 9) for _ in range(dim)] for _ in range(classes)]
    return weights, [rng.randint(-9, 9) for _ in range(classes)]


def check_released_count():
    """Counts by the released rule against --box 100 --tolerance 1e-8, on three layers."""
    rows, holds = [STAGES], True
    # Fewer: a thin class found by the search, accepted without a tolerance.
    searched = [released_search(THIN_WEIGHTS, THIN_BIAS, i) for i in range(3)]
    asked, checked = _unargmaxable(THIN_WEIGHTS, THIN_BIAS, box=BOX, tolerance=TOLERANCE)
    thin = radii(THIN_WEIGHTS, THIN_BIAS, check_layer(THIN_WEIGHTS, THIN_BIAS, box=BOX))[1]
    holds = holds and checked and all(s.accepted for s in searched) and _count(asked) == 1 \
        and not asked[1].argmaxable and thin.exact
    rows += [
        Row("thin: layer", "d = 1, W = (0, 1, 2), b = (1 - 3e-9, 0, -1 - 3e-9), float64"),
        Row("thin: the rule", "accepts classes 0, 1 and 2 at x = w_i, class 1 by a margin of"
            " %s (exact; float64 rounds these logits by less than 2.3e-16): count 0"
            % _short(searched[1].margin)),
        Row("thin: --box 100 --tolerance 1e-8", "class 1 unargmaxable, lam = %s (checked):"
            " count 1; its largest radius is %s (exact maximum, rounded down)"
            % (" + ".join("%s on class %d" % (v, j) for j, v in asked[1].terms),
               _short(thin.value))),
    ]
    # Fewer: an unargmaxable class accepted at a tie.
    tied = [released_search(MEAN_LAYER, None, i) for i in range(4)]
    asked, checked = _unargmaxable(MEAN_LAYER, box=BOX, tolerance=TOLERANCE)
    holds = holds and checked and all(s.accepted for s in tied) and _count(asked) == 1
    rows.append(Row("tie", "low-rank.released-tie-rule's layer %s: the rule accepts all 4"
                    " classes (count 0), --box 100 --tolerance 1e-8 counts 1 (class 0)"
                    % _vectors(MEAN_LAYER)))
    # More: with the exact stage off, a class the search misses is counted.
    weights, bias = _missed_layer()
    missed = [released_search(weights, bias, i) for i in range(len(weights))]
    longer = released_search(weights, bias, MISSED_CLASS, patience=PAPER_PATIENCE)
    asked, checked = _unargmaxable(weights, bias, box=BOX, tolerance=TOLERANCE)
    radius = radii(weights, bias, check_layer(weights, bias, box=BOX))[MISSED_CLASS]
    counted = [i for i, s in enumerate(missed) if not s.accepted]
    target = missed[MISSED_CLASS]
    holds = (holds and checked and not target.accepted and target.stop == "patience"
             and asked[MISSED_CLASS].argmaxable and _count(asked) == len(counted) - 1
             and not longer.accepted
             and all(asked[i].argmaxable == (i not in counted) for i in range(len(weights))
                     if i != MISSED_CLASS))
    rows += [
        Row("missed: layer", "C = %d, d = %d, weights and biases random.Random(%d).randint(-9,"
            " 9), in that order" % (MISSED_SHAPE + (MISSED_SEED,))),
        Row("missed: the rule", "class %d is not the argmax after %d reflections (at each"
            " point the largest logit led the next by at least %s, so floats make the same"
            " choices): with the exact stage off the rule counts %d (classes %s)"
            % (MISSED_CLASS, target.reflections, exact_text(target.closest), len(counted),
               ", ".join(map(str, counted)))),
        Row("missed: patience 2500", "class %d is the argmax after %d reflections (leads of at"
            " least %.3g), at a point outside the box (|x|_inf = %.4g): still not accepted"
            % (MISSED_CLASS, longer.reflections, longer.closest,
               float(max(map(abs, longer.point))))),
        Row("missed: --box 100 --tolerance 1e-8", "class %d passes, witness x = (%s), its"
            " largest radius at least %s (checked): count %d"
            % (MISSED_CLASS, ", ".join("%.4g" % v for v in asked[MISSED_CLASS].witness),
               exact_text(radius.value), _count(asked))),
        Row("so", "the released count is the count of its stages, not of one question: a count"
            " to compare with the paper's must follow them (search first, its patience, ties"
            " to the lowest index, then the LP for the classes left); --box 100 --tolerance"
            " 1e-8 answers the LP stage's question, exactly, for every class"),
    ]
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "fewer than --box 100 --tolerance 1e-8 counts where the search"
                   " accepts a thin class (d = 1: 0 against 1) or a tie (0 against 1); more"
                   " where only the search runs and misses (%d against %d)"
                   % (len(counted), _count(asked)), tuple(rows))
