"""Checks of the low-rank paper's released detector, as its source says it works.

The released code (andreasgrv/unargmaxable on GitHub, MIT, read at
d70d30fb0eec92c0989c8b02337c5af0ab1bca85 of 2023-02-07, ``RELEASED``;
``stollen/__init__.py``, ``stollen/utils.py``, ``bin/stollen_hugging`` and
the experiment scripts) decides a class in stages: its Braid-reflect search (``candidate_is_bounded``, patience 100 by
default, 2500 in the paper's runs) accepts a class wherever the float
argmax, a tie going to the lowest index, is the class inside [-100, 100]^d,
with no tolerance; only the classes it misses go to ``lp_chebyshev`` (a
Chebyshev ball in Gurobi: barrier method, FeasibilityTol 1e-9, radius
r >= 1e-8), and that stage is off by default (``--exact-algorithm
none``).  ``find_bounded_classes`` first asserts that the weights have full
rank, and returns no class at all when C < d + 1.  The search's rule is followed here in exact arithmetic by this
suite's own code (reviews.argmax.released); the released code is never run.
The checks are used by reviews.papers.low_rank_softmax, whose CLAIMS hold
them.

    check_tie_rule          the search's tie rule calls unargmaxable classes argmaxable
    check_released_count    its counts differ from --box 100 --tolerance 1e-8, both ways
    STAGES                  the evidence row that says how the released detector decides
    RELEASED                the repository and the commit read
    script_filter_keeps     its --filter-lang rule for one token
    filter_row              the evidence row that says what --filter-lang keeps
    float32                 a float rounded to float32, as the paper's weights are stored
"""

import random
import struct
import unicodedata
from fractions import Fraction

from reviews.argmax.strategy.braid import braid_reflect

from reviews.argmax.check import check_layer

from reviews.argmax.verify import verify
from reviews.argmax.released import BOX, released_search
from reviews.argmax.tolerance import radii
from reviews.claims import FAIL, PASS, Outcome, Row, written
from reviews.exact import exact_text

__all__ = ["check_tie_rule", "check_released_count", "STAGES", "RELEASED", "FILTER_SCRIPTS",
           "script_filter_keeps", "filter_row", "float32"]

# The repository and the commit whose files the claims describe.
RELEASED = "andreasgrv/unargmaxable at d70d30f"

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
# The released LP's Gurobi FeasibilityTol: a tenth of its radius bound.
FEASIBILITY_TOLERANCE = TOLERANCE / 10
# d = 1: class 1's largest radius is its bias, exactly 1e-8 in the first
# layer (the released LP's bound), just below it in the others.
AT_BOUND_WEIGHTS = ((0,), (1,), (2,))
AT_BOUND_BIASES = (Fraction("1e-8"), Fraction("9.9e-9"), Fraction("9.5e-9"))
# --filter-lang's languages and the script each one's tokens must be written in.
FILTER_SCRIPTS = (("en", "LATIN"), ("de", "LATIN"), ("el", "GREEK"), ("ru", "CYRILLIC"),
                  ("he", "HEBREW"), ("ar", "ARABIC"))
# U+2581, the word mark of SentencePiece vocabularies, which the filter strips.
_WORD_MARK = "\u2581"

STAGES = Row("the detector", "%s, stollen/__init__.py: 0. find_bounded_classes asserts that"
             " the weights have full rank (rank W = min(C, d); a rank-deficient layer stops"
             " with an AssertionError) and returns no class at all when C < d + 1. 1. Braid"
             " reflect (candidate_is_bounded; patience 100 by default, 2500 in the paper's runs)"
             " from x = w_i, the argmax np.argmax(W x + b) in the layer's float dtype, a tie to"
             " the lowest index; a class whose last argmax is itself, x in [-100, 100]^d, is"
             " argmaxable, with no tolerance. 2. Only the classes it misses go to"
             " lp_chebyshev: a Chebyshev ball in Gurobi (barrier, one thread, FeasibilityTol"
             " 1e-9, the radius a variable with lower bound r >= 1e-8), OPTIMAL meaning"
             " argmaxable. --box 100 --tolerance 1e-8 asks whether a ball of radius r > 1e-8"
             " exists, strictly and exactly; the released program also accepts r = 1e-8 and"
             " any point its solver's feasibility tolerance accepts (low-rank.released-count)."
             " 3. That stage is off by default (--exact-algorithm none: the search's misses"
             " are printed as potentially bounded); the paper's runs pass --exact-algorithm"
             " lp_chebyshev" % RELEASED)


def float32(value):
    """``value`` rounded to the nearest float32, as a float.

    >>> float32(1 - 3e-9), float32(0.1)
    (1.0, 0.10000000149011612)
    """
    return struct.unpack("<f", struct.pack("<f", value))[0]


def script_filter_keeps(token, language):
    """Whether the released --filter-lang rule (stollen/utils.py,
    token_cleanup and is_valid_token) keeps ``token`` for ``language``:
    stripped of whitespace, a leading U+2581 and a trailing "</w>", every
    character's Unicode name must start with the language's script; a
    character with no name fails.  Written from its source for comparison.

    >>> script_filter_keeps("\u2581Bonjour", "en"), script_filter_keeps("\u25812020", "en")
    (True, False)
    """
    script = dict(FILTER_SCRIPTS)[language]
    token = token.strip()
    if token.startswith(_WORD_MARK):
        token = token[1:]
    if token.endswith("</w>"):
        token = token[:-4]
    return all(unicodedata.name(c, "").split(" ", 1)[0] == script for c in token)


def _first_names(token):
    """The first word of each character's Unicode name, once each: "LATIN"."""
    return "/".join(dict.fromkeys(unicodedata.name(c, "?").split(" ", 1)[0] for c in token))


def filter_row():
    """The evidence row that says what --filter-lang keeps, with its rule
    computed on three tokens."""
    examples = [("Bonjour", "en"), ("2020", "en"), ("", "en")]
    shown = []
    for word, language in examples:
        kept = script_filter_keeps(_WORD_MARK + word, language)
        shown.append("U+2581 %s %s for %s%s" % (
            '"%s"' % word if word else "alone", "kept" if kept else "dropped", language,
            " (%s)" % _first_names(word) if word else " (no character left to test)"))
    return Row("--filter-lang", "%s, stollen/utils.py (token_cleanup, is_valid_token): a"
               " Unicode-script filter, not a language's vocabulary. A token, stripped of"
               " whitespace, a leading U+2581 and a trailing </w>, is kept when the Unicode"
               " name of every character starts with the script of the language (%s): %s."
               " bin/stollen_hugging keeps the tokenizer's special tokens too, and checks each"
               " kept token against all rows" % (
                   RELEASED, ", ".join("%s %s" % pair for pair in FILTER_SCRIPTS),
                   "; ".join(shown)))


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
    rows = [Row("the rule", "%s, stollen/__init__.py (candidate_is_bounded, get_swap_target,"
                " swap): x = w_i; a = np.argmax(W x + b), a tie to the lowest index; reflect x"
                " across the tie of i and a until a = i, at most patience times; argmaxable"
                " when the last a is i and x is in [-100, 100]^d. Followed here in exact"
                " arithmetic by this suite's own code (reviews.argmax.released); every value"
                " below is exact in binary, so float32 and float64 compute the same logits and"
                " ties" % RELEASED)]
    holds = True
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
    return Outcome(verdict, "in each of three layers class 0 is unargmaxable (check_layer"
                   " proves it) and the released search calls it argmaxable at x = w0, where"
                   " it ties the largest logit as the lowest tied index; the second of two"
                   " equal rows, tied with a lower index, it never accepts (a zero normal)",
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


def _tightest(weights, bias, index, x, radius):
    """The largest left side, at the point (x, r), of the released LP's
    constraints for class ``index``, (w_j - w_i) . x + r |w_j - w_i| + b_j -
    b_i <= 0: at most 0 where the point is feasible, else by how much it
    breaks one.  Exact: the layer is one-dimensional, so each norm is an
    absolute value."""
    (w_i,), b_i = weights[index], bias[index]
    return max((w - w_i) * x + radius * abs(w - w_i) + b - b_i
               for j, ((w,), b) in enumerate(zip(weights, bias)) if j != index)


def _at_bound_rows():
    """(whether the layers show it, rows) on layers where class 1's largest
    radius is 1e-8 or just below: --box 100 --tolerance 1e-8 proves it
    unargmaxable in each, while the released program is feasible, or within
    its solver's tolerance of feasible, at x = 0, r = 1e-8."""
    holds, rows, broken = True, [], []
    for b_1 in AT_BOUND_BIASES:
        bias = (0, b_1, 0)
        asked, checked = _unargmaxable(AT_BOUND_WEIGHTS, bias, box=BOX, tolerance=TOLERANCE)
        largest = radii(AT_BOUND_WEIGHTS, bias, check_layer(AT_BOUND_WEIGHTS, bias, box=BOX))[1]
        violation = _tightest(AT_BOUND_WEIGHTS, bias, 1, 0, TOLERANCE)
        holds = (holds and checked and not asked[1].argmaxable and largest.exact
                 and largest.value == b_1 and violation == TOLERANCE - b_1
                 and violation <= FEASIBILITY_TOLERANCE)
        broken.append(violation)
        if b_1 == TOLERANCE:
            searched = released_search(AT_BOUND_WEIGHTS, bias, 1, patience=PAPER_PATIENCE)
            holds = holds and not searched.accepted
            rows += [
                Row("at r = 1e-8: layer", "d = 1, W = (0, 1, 2), b = (0, %s, 0), exact (a JSON"
                    " layer's numbers are read at their decimal value)" % exact_text(b_1)),
                Row("at r = 1e-8: the search", "class 1 is not the argmax after %d reflections"
                    " (patience %d): the LP stage decides it" % (searched.reflections,
                                                                 PAPER_PATIENCE)),
                Row("at r = 1e-8: --box 100 --tolerance 1e-8", "class 1 unargmaxable, lam = %s"
                    " (checked): its largest radius is exactly %s, and the question asks for"
                    " one above 1e-8" % (" + ".join("%s on class %d" % (v, j)
                                                    for j, v in asked[1].terms),
                                         exact_text(largest.value))),
                Row("at r = 1e-8: the released LP", "r >= 1e-8 is a closed bound: x = 0, r ="
                    " 1e-8 meets every constraint, the tightest with a left side of exactly %s,"
                    " so the program is feasible and calls class 1 argmaxable"
                    % exact_text(violation)),
            ]
    rows.append(Row("below 1e-8", "with b_1 = %s class 1's largest radius is b_1, below 1e-8,"
                    " and --tolerance 1e-8 proves it unargmaxable (checked); x = 0, r = 1e-8"
                    " breaks the released program's constraints by %s, within Gurobi's"
                    " FeasibilityTol %s: a solver may return it as feasible, and the class as"
                    " argmaxable" % (" or ".join(exact_text(b) for b in AT_BOUND_BIASES[1:]),
                                     " or ".join(exact_text(v) for v in broken[1:]),
                                     exact_text(FEASIBILITY_TOLERANCE))))
    return holds, rows


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
    # In float32, the paper's dtype, the sliver is gone and the rule agrees.
    single = [float32(b) for b in THIN_BIAS]
    rejected = released_search(THIN_WEIGHTS, single, 1)
    exact, checked = _unargmaxable(THIN_WEIGHTS, single)
    holds = holds and checked and not rejected.accepted and not exact[1].argmaxable \
        and rejected.margin == 0
    rows.append(Row("thin: in float32", "the paper's weights are float32, where b rounds to"
                    " (%s): class 1 ties classes 0 and 2 at x = 1 and wins nowhere (exact,"
                    " checked); the rule does not accept it (after %d reflections the argmax is"
                    " class %d, a tie): count 1, as --box 100 --tolerance 1e-8's. The thin"
                    " class is float64's" % (", ".join(exact_text(b) for b in single),
                                           rejected.reflections, rejected.last)))
    # Fewer: an unargmaxable class accepted at a tie.
    tied = [released_search(MEAN_LAYER, None, i) for i in range(4)]
    asked, checked = _unargmaxable(MEAN_LAYER, box=BOX, tolerance=TOLERANCE)
    holds = holds and checked and all(s.accepted for s in tied) and _count(asked) == 1
    rows.append(Row("tie", "low-rank.released-tie-rule's layer %s: the rule accepts all 4"
                    " classes (count 0), --box 100 --tolerance 1e-8 counts 1 (class 0)"
                    % _vectors(MEAN_LAYER)))
    # Where the two questions part: a radius of exactly 1e-8, and the solver's tolerance.
    at_bound, shown = _at_bound_rows()
    holds, rows = holds and at_bound, rows + shown
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
            " 1e-8 asks every class the LP stage's question with a strict radius, exactly,"
            " and parts from the released program at a radius of exactly 1e-8 and within its"
            " solver's feasibility tolerance"),
    ]
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "fewer than --box 100 --tolerance 1e-8 counts where the search"
                   " accepts a thin class (d = 1: 0 against 1) or a tie (0 against 1); more"
                   " where only the search runs and misses (%d against %d); its LP stage"
                   " accepts a radius of exactly 1e-8, which --tolerance 1e-8 does not"
                   % (len(counted), _count(asked)), tuple(rows))
