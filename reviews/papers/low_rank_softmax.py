"""Claims of Low-Rank Softmax Can Have Unargmaxable Classes in Theory but
Rarely in Practice (Grivas, Bogoychev & Lopez, ACL 2022; arXiv 2203.06462).

Every verdict rests on certificates checked in exact arithmetic
(reviews.argmax.check, reviews.argmax.strategy.feasibility, reviews.argmax.kernels.packed): a witness input
for an argmaxable class or ranking, a convex combination for an
unargmaxable one.
Random layers are seeded; each seed is printed with its evidence.  The
checks of the released detector's rules are reviews.papers.low_rank_released,
those of trained layers reviews.papers.low_rank_trained; their claims are
here, in the paper's order.
"""

import math
import random
from fractions import Fraction

from reviews.argmax.certified import verify_all
from reviews.argmax.strategy.braid import braid_reflect
from reviews.argmax.check import check_layer
from reviews.argmax.result import ClassResult
from reviews.argmax.verify import verify
from reviews.claims import (BY_SUITE, NOT_CHECKED, PASS, FAIL, Claim, Figure, Outcome, Paper,
                            Row)
from reviews.argmax.regions import realized_rankings, region_count
from reviews.argmax.tolerance import radii
from reviews.papers.low_rank_released import (RELEASED, STAGES, check_released_count,
                                              check_tie_rule, filter_row, float32)
from reviews.papers.low_rank_trained import check_trained_layers, check_very_infrequent

__all__ = ["PAPER", "CLAIMS", "FIGURE_1", "region_table", "simplex_with_centroid",
           "rational_unit_vector", "draw_figure_1", "draw_region_tables"]

PAPER = Paper(
    title="Low-Rank Softmax Can Have Unargmaxable Classes in Theory but Rarely in Practice",
    authors=("Grivas", "Bogoychev", "Lopez"),
    year=2022,
    arxiv="2203.06462",
    version="v2",
)

# The weights of Figure 1, as the released plot script draws them (its
# coordinates, in decimals); classes are numbered from 0 here, as check-layer
# numbers them: the paper's w1..w4 are w0..w3.
FIGURE_1 = ((Fraction(-2), Fraction(-2)), (Fraction(1), Fraction(2)),
            (Fraction("1.8"), Fraction("-0.8")), (Fraction("0.9"), Fraction("0.2")))
TABLE_SIZE = 10
ENUMERATED_UP_TO = 5
SEED = 2203


def _vector(values):
    return "(%s)" % ", ".join(str(Fraction(v)) for v in values)


def _gaussian_layer(rng, classes, dim, bias):
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)


def _check_figure_1():
    results = check_layer(FIGURE_1)
    rows = [Row("W", "; ".join(_vector(w) for w in FIGURE_1) + " (no bias)")]
    for r in results:
        if r.argmaxable:
            rows.append(Row("class %d" % r.index, "argmaxable, witness x = %s"
                            % _vector(r.witness)))
        else:
            terms = " + ".join("w%d" % j if v == 1 else "%s w%d" % (v, j)
                               for j, v in enumerate(r.combination) if v)
            rows.append(Row("class %d" % r.index, "unargmaxable: w%d = %s" % (r.index, terms)))
    rows.append(Row("numbering", "classes from 0, as check-layer numbers them: the paper's"
                    " w1..w4 are w0..w3 here"))
    checked = all(verify(FIGURE_1, None, r) for r in results)
    pattern = [r.argmaxable for r in results]
    verdict = PASS if checked and pattern == [True, True, True, False] else FAIL
    return Outcome(verdict, "class 3 (the paper's w4) is a convex combination of classes"
                   " 0-2; classes 0-2 have witnesses (all checked exactly)", tuple(rows))


def simplex_with_centroid(dim):
    """d + 2 weight vectors: a simplex's vertices e_1..e_d, -(1,..,1), and its centroid 0.

    >>> simplex_with_centroid(2)
    [[1, 0], [0, 1], [-1, -1], [0, 0]]
    """
    vertices = [[int(k == q) for k in range(dim)] for q in range(dim)]
    return vertices + [[-1] * dim, [0] * dim]


def _check_general_position():
    rng = random.Random(SEED)
    rows = []
    holds = True
    sampled = 0
    for dim in range(1, 7):
        fully = 0
        for classes in range(2, dim + 2):
            for bias in (False, True):
                weights, biases = _gaussian_layer(rng, classes, dim, bias)
                results = check_layer(weights, biases)
                fully += all(r.argmaxable and verify(weights, biases, r) for r in results)
        expected = 2 * dim
        sampled += expected
        smallest = simplex_with_centroid(dim)
        centroid = check_layer(smallest)[-1]
        uniform = centroid.combination == tuple([Fraction(1, dim + 1)] * (dim + 1) + [0])
        holds = holds and fully == expected and not centroid.argmaxable and uniform \
            and verify(smallest, None, centroid)
        rows.append(Row("d = %d" % dim, "%d of %d random layers with C <= d + 1 fully argmaxable;"
                        " C = %d: centroid unargmaxable, lam = 1/%d on each vertex"
                        % (fully, expected, dim + 2, dim + 1)))
    rows.append(Row("seed", "random.Random(%d), Gaussian weights and biases" % SEED))
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "every class argmaxable in %d sampled layers with C <= d + 1"
                   " (d = 1..6), not a proof for every layer; a simplex plus its centroid has"
                   " an unargmaxable class at C = d + 2" % sampled, tuple(rows),
                   "the first part, every class argmaxable with C <= d + 1, on the %d random"
                   " layers checked, not on every layer in general position" % sampled)


def region_table(bias):
    """Rows C = 1..10 of region counts for d = 1..10, as lists of ints."""
    return [[region_count(c, d, bias) for d in range(1, TABLE_SIZE + 1)]
            for c in range(1, TABLE_SIZE + 1)]


def _check_region_counts():
    rows = []
    factorial_everywhere = True
    for bias in (True, False):
        label = "with bias" if bias else "no bias"
        for c, counts in enumerate(region_table(bias), 1):
            factorial_everywhere = factorial_everywhere and all(
                counts[d - 1] == math.factorial(c) for d in range(max(c - 1, 1), TABLE_SIZE + 1))
            rows.append(Row("%s, C = %d" % (label, c), " ".join(map(str, counts))))
    rng = random.Random(SEED)
    agree = True
    enumerated = []
    layers = 0
    for c in range(1, ENUMERATED_UP_TO + 1):
        for d in range(1, c + 1):
            for bias in (True, False):
                weights, biases = _gaussian_layer(rng, c, d, bias)
                found = sum(1 for r in realized_rankings(weights, biases) if r.witness)
                layers += 1
                agree = agree and found == region_count(c, d, bias)
                enumerated.append("%d%s" % (found, "" if found == region_count(c, d, bias)
                                            else "(formula %d)" % region_count(c, d, bias)))
        rows.append(Row("enumerated, C = %d" % c, "d = 1..%d, with/no bias: %s"
                        % (c, " ".join(enumerated))))
        enumerated = []
    rows.append(Row("columns", "d = 1..%d; rankings of a seeded Gaussian layer (random.Random(%d)),"
                    " each decided with a witness or a combination" % (TABLE_SIZE, SEED)))
    verdict = PASS if factorial_everywhere and agree else FAIL
    return Outcome(verdict, "C! for every d >= C - 1 in the tables; formula == exact"
                   " enumeration on one seeded layer each for C <= %d" % ENUMERATED_UP_TO,
                   tuple(rows),
                   "that a generic layer produces the tabulated count, on the %d seeded layers"
                   " enumerated (one for each C <= %d, d <= C, with and without bias), not on"
                   " every generic layer" % (layers, ENUMERATED_UP_TO))


def rational_unit_vector(t):
    """A point of the unit sphere with rational coordinates (inverse stereographic).

    >>> rational_unit_vector([Fraction(1, 2)])
    (Fraction(4, 5), Fraction(-3, 5))
    """
    s = sum(v * v for v in t)
    return tuple(2 * v / (s + 1) for v in t) + ((s - 1) / (s + 1),)


def _witnesses_hold(weights, biases, points):
    """For each (i, x) of ``points``: does x make class i strictly the largest logit?

    Exact, as verify's check of a witness, the layer read once (verify_all).
    """
    return verify_all(weights, biases, [ClassResult(i, True, x) for i, x in points])


def _witness_is_own_weight(weights, biases):
    return all(_witnesses_hold(weights, biases, enumerate(weights)))


# Unit rows, the first repeated last: what the prevention leaves out.
REPEATED_UNIT_ROWS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 0))


def _check_prevention():
    rng = random.Random(SEED)
    dim, classes = 3, 200
    drawn = [rational_unit_vector([Fraction(rng.randint(-99, 99), rng.randint(1, 99))
                                   for _ in range(dim - 1)]) for _ in range(classes)]
    unit = list(dict.fromkeys(drawn))
    unit_ok = _witness_is_own_weight(unit, None)
    weights, _ = _gaussian_layer(rng, classes, dim, False)
    distinct = len(set(map(tuple, weights))) == classes
    plain = check_layer(weights)
    unargmaxable = sum(not r.argmaxable for r in plain)
    exact = [[Fraction(v) for v in w] for w in weights]
    prevented = [-sum(v * v for v in w) / 2 for w in exact]
    bias_ok = _witness_is_own_weight(exact, prevented)
    after = check_layer(weights, prevented)
    repeated = [row.index for row in check_layer(REPEATED_UNIT_ROWS) if not row.argmaxable]
    twin_bias = [-Fraction(sum(v * v for v in w), 2) for w in REPEATED_UNIT_ROWS]
    still = [row.index for row in check_layer(REPEATED_UNIT_ROWS, twin_bias)
             if not row.argmaxable]
    rows = [
        Row("unit norm", "%d rational unit vectors drawn in d = %d, %d distinct (a repeat would"
            " be dropped): x = w_i is a witness for every class: %s"
            % (len(drawn), dim, len(unit), unit_ok)),
        Row("no prevention", "Gaussian layer C = %d, d = %d, no bias, its rows distinct: %s; %d"
            " classes unargmaxable" % (classes, dim, distinct, unargmaxable)),
        Row("b_i = -|w_i|^2/2", "same weights: x = w_i is a witness for every class: %s;"
            " check_layer finds %d unargmaxable" % (bias_ok, sum(not r.argmaxable for r in after))),
        Row("seed", "random.Random(%d)" % SEED),
        Row("every layer", "at x = w_i, l_i - l_j = |w_i|^2 - w_i . w_j, which is"
            " |w_i - w_j|^2/2 where |w_i| = |w_j| = 1, and with b_i = -|w_i|^2/2 it is"
            " |w_i - w_j|^2/2 for any rows: positive for every row w_j != w_i (an identity,"
            " not computed here)"),
        Row("what it leaves out", "a repeated row: unit rows %s, no bias: check_layer finds"
            " %d unargmaxable (classes %s), and with b_i = -|w_i|^2/2 still %d: two equal rows"
            " have equal logits at every x, so neither is ever strictly the largest"
            % ("; ".join("(%s)" % ", ".join(map(str, w)) for w in REPEATED_UNIT_ROWS),
               len(repeated), " and ".join(map(str, repeated)), len(still))),
    ]
    verdict = PASS if unit_ok and bias_ok and distinct and unargmaxable > 0 and all(
        r.argmaxable for r in after) and repeated == still == [0, len(REPEATED_UNIT_ROWS) - 1] \
        else FAIL
    return Outcome(verdict, "both preventions make every class of distinct rows argmaxable"
                   " (witness x = w_i); without them %d of %d are not; a repeated row stays"
                   " unargmaxable with either (%d of %d)"
                   % (unargmaxable, classes, len(repeated), len(REPEATED_UNIT_ROWS)),
                   tuple(rows),
                   "%d rational unit vectors and one Gaussian layer of %d rows; every layer"
                   " of distinct rows by the identity under \"every layer\", not computed"
                   " here" % (len(unit), classes))


_BRAID_LAYERS = ((60, 2, False), (60, 3, True), (80, 4, False), (80, 4, True))


def _check_braid_reflect():
    rng = random.Random(SEED)
    rows = []
    sound = True
    for classes, dim, bias in _BRAID_LAYERS:
        weights, biases = _gaussian_layer(rng, classes, dim, bias)
        exact = check_layer(weights, biases)
        points = [(r.index, braid_reflect(weights, biases, r.index)) for r in exact]
        points = [(i, x) for i, x in points if x is not None]
        checked = _witnesses_hold(weights, biases, points)
        found = len(points)
        wrong = sum(not (holds and exact[i].argmaxable) for (i, _), holds in zip(points, checked))
        argmaxable = sum(r.argmaxable for r in exact)
        sound = sound and wrong == 0
        rows.append(Row("C = %d, d = %d, %s" % (classes, dim, "bias" if bias else "no bias"),
                        "search found %d of %d argmaxable classes; %d of its points fail"
                        " the exact check; %d unargmaxable (proved)"
                        % (found, argmaxable, wrong, classes - argmaxable)))
    rows.append(Row("search", "this suite's own (reviews.argmax.strategy.braid.braid_reflect): x = w_i,"
                    " reflect across the tie with the winner, patience 50, a class accepted"
                    " only where its float logit is strictly the largest; seed"
                    " random.Random(%d)" % SEED))
    rows.append(Row("not the released rule", "the released search takes np.argmax, a tie to"
                    " the lowest index, and so calls an unargmaxable class argmaxable where, at"
                    " a point it visits, the class ties the largest logit with the lowest index"
                    " of the tied classes (low-rank.released-tie-rule)"))
    verdict = PASS if sound else FAIL
    return Outcome(verdict, "in %d sampled layers every point the search returns checks"
                   " exactly: it called no unargmaxable class argmaxable" % len(_BRAID_LAYERS),
                   tuple(rows))


# The released detector bounds inputs to [-BOX, BOX]^d.  Small seeded
# Gaussian layers keep the claim fast; at these sizes the box changes a
# verdict in only a few layers, and the first one found is shown.
BOX = 100
_BOX_SHAPES = ((30, 3), (40, 2))
_BOX_SEEDS = range(12)


def _approximate(values):
    return "(%s)" % ", ".join("%.6g" % v for v in values)


def _boxed_answers(weights, biases):
    """(R^d results, box results, classes that differ, whether the box only took some away).

    Only a class whose R^d witness lies outside the box can differ (a
    witness in the box is one for the box), so the box is checked only
    where there is one; check_layer checks every certificate it returns.
    """
    plain = check_layer(weights, biases)
    if all(not r.argmaxable or max(map(abs, r.witness)) <= BOX for r in plain):
        return plain, plain, [], True
    boxed = check_layer(weights, biases, box=BOX)
    differ = [p.index for p, q in zip(plain, boxed) if p.argmaxable != q.argmaxable]
    return plain, boxed, differ, all(p.argmaxable or not q.argmaxable
                                     for p, q in zip(plain, boxed))


def _box_example(weights, biases, plain, boxed, i):
    """Rows showing class i's witness over R^d and its combination for the box, re-checked."""
    free, bounded = plain[i], boxed[i]
    dim = len(weights[0])
    size = max(map(abs, free.witness))
    # The boxed combination proves the box only: verify for R^d must refuse it.
    checked = (verify(weights, biases, free) and verify(weights, biases, bounded, box=BOX)
               and not verify(weights, biases, bounded) and size > BOX)
    lam = bounded.terms
    residual = [sum(v * (Fraction(weights[j][q]) - Fraction(weights[i][q])) for j, v in lam)
                for q in range(dim)]
    lead = sum(v * (Fraction(biases[j]) - Fraction(biases[i])) for j, v in lam)
    return checked, [
        Row("over R^%d" % dim, "class %d is argmaxable: witness x = %s, |x|_inf = %.6g,"
            " outside the box (exact, checked)" % (i, _approximate(free.witness), size)),
        Row("in the box", "class %d is not: lam = %s; sum lam_j (b_j - b_i) = %.6g >="
            " %d * |sum lam_j (w_j - w_i)|_1 = %.6g (exact, checked)"
            % (i, " + ".join("%.6g on class %d" % (v, j) for j, v in lam),
               lead, BOX, BOX * sum(map(abs, residual)))),
    ]


def _check_box():
    rows, example, sound = [], [], True
    for classes, dim in _BOX_SHAPES:
        found = []
        for seed in _BOX_SEEDS:
            weights, biases = _gaussian_layer(random.Random(seed), classes, dim, True)
            plain, boxed, differ, only_removed = _boxed_answers(weights, biases)
            sound = sound and only_removed
            found += ["seed %d: class %d" % (seed, j) for j in differ]
            if differ and not example:
                example = [Row("example", "C = %d, d = %d, random.Random(%d); box [-%d, %d]^%d;"
                               " classes numbered from 0, as check-layer numbers them"
                               % (classes, dim, seed, BOX, BOX, dim))]
                checked, shown = _box_example(weights, biases, plain, boxed, differ[0])
                sound = sound and checked
                example += shown
        rows.append(Row("C = %d, d = %d" % (classes, dim), "%d layers (seeds %d..%d): %d of %d"
                        " classes argmaxable over R^%d but not in the box%s"
                        % (len(_BOX_SEEDS), _BOX_SEEDS[0], _BOX_SEEDS[-1], len(found),
                           classes * len(_BOX_SEEDS), dim,
                           " (%s)" % "; ".join(found) if found else "")))
    rows += example
    rows.append(Row("meaning", "verdicts in the box, where both stages of the released detector"
                    " look, are verdicts about the box: a class unargmaxable there may still"
                    " win for inputs outside [-%d, %d]^d. Unargmaxable over R^d implies"
                    " unargmaxable in the box, not the converse: a count of the box question"
                    " is at least the count of classes that no input at all selects (the"
                    " released detector's own count is not that question's:"
                    " low-rank.released-count)" % (BOX, BOX)))
    rows.append(Row("layers", "Gaussian weights and biases, random.Random(seed); small, so that"
                    " the claim runs in well under a second (the box is checked where some"
                    " R^d witness lies outside it; every certificate checked exactly)"))
    verdict = PASS if example and sound else FAIL
    return Outcome(verdict, "a class that wins only outside [-%d, %d]^d is unargmaxable in the"
                   " box; in the %d layers checked the box made no class argmaxable, as it"
                   " cannot: a witness in the box is one over R^d"
                   % (BOX, BOX, len(_BOX_SHAPES) * len(_BOX_SEEDS)), tuple(rows))


# This suite's own finding: a layer of 12 classes in d = 4 whose class 6
# (from 0) is, in exact arithmetic, 0.2 w0 + 0.3 w3 + 0.5 w8 (so "should"
# be unargmaxable); stored in float64 it wins on a sliver, in float32 nowhere.
_TOLERANCE_SEED = 13
_TOLERANCE_SHAPE = (12, 4)
_MIXED, _MIXTURE = 6, ((0, 0.2), (3, 0.3), (8, 0.5))
_TOLERANCES = ("0", "1e-12", "1e-8", "1e-4")


def _terms_text(terms, symbol="l"):
    """ "0.2 l0 + 0.3 l3": the terms (class, weight), each class's logit
    (or, with ``symbol`` "w", its weights)."""
    return " + ".join("%.6g %s%d" % (v, symbol, j) for j, v in terms)


def _check_tolerance():
    classes, dim = _TOLERANCE_SHAPE
    weights, _ = _gaussian_layer(random.Random(_TOLERANCE_SEED), classes, dim, False)
    weights[_MIXED] = [sum(share * weights[j][k] for j, share in _MIXTURE) for k in range(dim)]
    single = [[float32(v) for v in row] for row in weights]
    rows = [Row("layer", "C = %d, d = %d, no bias, random.Random(%d).gauss(0, 1) in float64;"
                " row %d = %s computed in float64; centres in the detector's box [-%d,"
                " %d]^%d; classes numbered from 0, as check-layer numbers them"
                % (classes, dim, _TOLERANCE_SEED, _MIXED, _terms_text(_MIXTURE, "w"), BOX,
                   BOX, dim))]
    checked, counts, verdicts = True, [], []
    for text in _TOLERANCES:
        tolerance = Fraction(text)
        results = check_layer(weights, None, box=BOX, tolerance=tolerance)
        checked = checked and all(verify(weights, None, r, box=BOX, tolerance=tolerance)
                                  for r in results)
        failing = [r.index for r in results if not r.argmaxable]
        counts.append(len(failing))
        verdicts.append(results[_MIXED])
        rows.append(Row("T = %s" % text,
                        "%d of %d classes unargmaxable%s" % (
                            len(failing), classes,
                            " (class %s)" % ", ".join(map(str, failing)) if failing else "")))
    radius = radii(weights, None, check_layer(weights, None, box=BOX))[_MIXED]
    largest = "%.3g" % radius.value if radius and radius.exact else "unknown"
    plain, thin = verdicts[0], verdicts[1]
    rows.append(Row("class %d, float64" % _MIXED,
                    "argmaxable at T = 0: witness x = %s; its largest radius is %s (exact"
                    " maximum, rounded down)" % (_approximate(plain.witness)
                                                 if plain.argmaxable else "none", largest)))
    rows.append(Row("class %d, T = 1e-12" % _MIXED,
                    "unargmaxable: sum_j lam_j (l_j - l_%d + T |w_j - w_%d|_2) >= 0"
                    " everywhere in the box, lam = %s" % (_MIXED, _MIXED,
                                                          _terms_text(thin.terms or ()))))
    stored = check_layer(single, None, box=BOX)
    checked = checked and all(verify(single, None, r, box=BOX) for r in stored)
    rows.append(Row("class %d, float32" % _MIXED,
                    "the same weights rounded to float32: %s at T = 0%s" % (
                        "argmaxable" if stored[_MIXED].argmaxable else "unargmaxable",
                        "" if stored[_MIXED].argmaxable
                        else ": l%d <= %s in the box" % (_MIXED,
                                                         _terms_text(stored[_MIXED].terms)))))
    rows.append(Row("certificates", "every witness and combination above checked exactly by"
                    " verify at its T, the norms |w_j - w_i|_2 bounded by rationals from"
                    " math.isqrt on the safe side"))
    rows.append(Row("meaning", "both exact verdicts are right about the numbers stored; the"
                    " released detector's LP stage asks nearly the tolerance question (a ball"
                    " of radius at least 1e-8, within its solver's feasibility tolerance:"
                    " low-rank.released-count), so a count made at T = 1e-8 and one made"
                    " exactly at T = 0 need not agree, and a class this thin can change verdict with the"
                    " rounding of its weights. This is this suite's own finding, not the"
                    " paper's"))
    differs = (counts[0] != counts[1] and plain.argmaxable and not thin.argmaxable
               and stored[_MIXED].argmaxable != plain.argmaxable)
    verdict = PASS if checked and differs else FAIL
    return Outcome(verdict, "class %d of a seeded layer: argmaxable at T = 0 stored in float64"
                   " (largest radius %s), unargmaxable from T = 1e-12 and in float32; counts"
                   " %s at T = %s" % (_MIXED, largest, ", ".join(map(str, counts)),
                                      ", ".join(_TOLERANCES)),
                   tuple(rows))


def _check_models():
    return Outcome(NOT_CHECKED, "needs the weights of 150 public LM/MT models, not available"
                   " offline", (
                       Row("why", "the count is an empirical result over downloaded model"
                           " weights; this suite runs offline with the standard library"),
                       Row("instead", "check a model yourself: check-layer PATH, PATH a model"
                           " folder (config.json and weights), .safetensors, .bin, .pt or"
                           " .pth (read without running code), .npz, .npy, .json or .csv;"
                           " --vocab names its tokens"),
                       STAGES,
                       filter_row(),
                       Row("to compare", "the paper's counts are the released detector's"
                           " stages (%s), run with --patience 2500 --exact-algorithm"
                           " lp_chebyshev on the model's float32 weights. Its Hugging Face MT"
                           " runs (Helsinki-NLP opus-mt, facebook/wmt19) pass --filter-lang,"
                           " which checks only the tokens of the target language's script and"
                           " the special tokens, each against all rows (above); its LM runs"
                           " (search_bounded_language_models.sh: BERT, RoBERTa, XLM-R, GPT-2)"
                           " pass none and check every class, as the Bergamot and Edinburgh"
                           " WMT17 models do through stollen_numpy. So match the classes"
                           " (check-layer --classes LIST) and the question: --box 100"
                           " --tolerance 1e-8 asks the LP stage's question with a strict"
                           " radius, r > 1e-8, exactly; the released program asks r >= 1e-8"
                           " and takes what its solver's feasibility tolerance (Gurobi's"
                           " FeasibilityTol 1e-9) accepts, so the two part at a radius of"
                           " exactly 1e-8 and within that tolerance. The detector counts fewer"
                           " where its search accepts a class at a tie or on a region thinner"
                           " than 1e-8, and more where only its search runs"
                           " (low-rank.released-count): compare class by class, not the totals"
                           " alone" % RELEASED),
                   ))


FIGURE_BOX = (-3, 3)


def draw_figure_1():
    """figure1.svg: the input plane coloured by the argmax, regions as exact polygons."""
    # Imported here: a run without figures need not load them (nor xml.etree).
    from reviews.report.svg import Arrow, Axis, region_map
    from reviews.argmax.planar import argmax_regions, convex_hull
    results = check_layer(FIGURE_1)
    regions = argmax_regions(FIGURE_1, box=FIGURE_BOX)
    if [bool(r) for r in regions] != [r.argmaxable for r in results]:
        raise AssertionError("argmax regions disagree with the exact decisions")
    labels = []
    for r in results:
        labels.append("c%d region" % r.index if r.argmaxable
                      else "c%d: no region, unargmaxable (its point crossed out)" % r.index)
    lam = results[3].combination
    return region_map(
        "Figure 1 of arXiv 2203.06462v2: argmax regions, exact (classes from 0)",
        Axis("x1 (input feature 1); the weights are drawn in the same plane",
             FIGURE_BOX[0], FIGURE_BOX[1], 1),
        Axis("x2 (input feature 2); weights in the same plane",
             FIGURE_BOX[0], FIGURE_BOX[1], 1),
        [(label, [(float(x), float(y)) for x, y in polygon])
         for label, polygon in zip(labels, regions)],
        [Arrow("c%d" % r.index, tuple(float(v) for v in FIGURE_1[r.index]),
               None if r.argmaxable else "unargmaxable") for r in results],
        [(float(x), float(y)) for x, y in convex_hull(FIGURE_1)],
        "w3 = %s w0 + %s w1 + %s w2 lies inside the hull: no input makes c3 the argmax"
        % tuple(lam[:3]), arrow_legend="weight vectors w0..w3 (the paper's w1..w4), drawn"
        " from the origin",
        hull_legend="convex hull of the weights")


def draw_region_tables():
    """regions.svg: the region-count tables, shaded by count / C!, C! cells outlined."""
    from reviews.report.svg import Panel, shaded_table
    panels = []
    for bias in (True, False):
        cells = region_table(bias)
        totals = [math.factorial(c) for c in range(1, TABLE_SIZE + 1)]
        panels.append(Panel(
            "With bias" if bias else "Without bias", "C", list(range(1, TABLE_SIZE + 1)),
            "d", list(range(1, TABLE_SIZE + 1)), cells,
            [[count / total for count in row] for row, total in zip(cells, totals)],
            [[count == total for count in row] for row, total in zip(cells, totals)]))
    return shaded_table("Region counts: rankings a generic softmax layer can produce", panels,
                        "Outlined: every one of the C! rankings (d >= C - 1). Shade: count / C!.",
                        scale="count / C!")


CLAIMS = (
    Claim("low-rank.unargmaxable-exists", PAPER, "Figure 1",
          "A low-rank softmax can have unargmaxable classes.", PASS, _check_figure_1,
          (Figure("figure1.svg", draw_figure_1,
                  "The input plane coloured by the class with the largest logit, the weights"
                  " w0..w3 (the paper's w1..w4) drawn in the same plane: c0, c1 and c2 each"
                  " own a region; w3 lies inside the triangle of the other three, so c3 owns"
                  " none."),)),
    Claim("low-rank.general-position", PAPER, "Theory of low-rank classifiers",
          "With C <= d + 1 classes in general position every class is argmaxable;"
          " from C = d + 2 one can be unargmaxable.", PASS, _check_general_position),
    Claim("low-rank.region-counts", PAPER, "Appendix, region-count tables",
          "Region counts: a generic layer produces the tabulated number of rankings"
          " (C! once d >= C - 1).", PASS, _check_region_counts,
          (Figure("regions.svg", draw_region_tables,
                  "Two tables, with and without bias: for C = 1..10 classes and d = 1..10"
                  " dimensions, how many of the C! rankings a generic softmax layer can"
                  " produce, shaded by count / C!, outlined where it is all C! (d >= C - 1)."),)),
    Claim("low-rank.prevention", PAPER, "Appendix D",
          "Where no two rows are equal, unit-norm weights (no bias), or bias"
          " b_i = -|w_i|^2/2, make every class argmaxable.",
          PASS, _check_prevention),
    Claim("low-rank.braid-reflect", PAPER, "Braid-reflect search (this suite's own, a strict"
          " win only)",
          "This suite's Braid-reflect search, which accepts a class only where its logit is"
          " strictly the largest, called no unargmaxable class argmaxable in %d sampled"
          " layers." % len(_BRAID_LAYERS),
          PASS, _check_braid_reflect, source=BY_SUITE),
    Claim("low-rank.released-tie-rule", PAPER, "Released detector, %s (stollen/__init__.py,"
          " candidate_is_bounded)" % RELEASED,
          "The released search takes np.argmax, which gives a tie to the lowest index, and so"
          " calls an unargmaxable class argmaxable where, at a point the search visits, its"
          " logit ties the largest and its index is the lowest of the tied classes; a tied"
          " class with a lower twin it never accepts.",
          PASS, check_tie_rule, source=BY_SUITE),
    Claim("low-rank.box", PAPER, "Released detector (inputs bounded to [-100, 100]^d)",
          "Bounding the inputs to the detector's box [-100, 100]^d changes which classes are"
          " unargmaxable.", PASS, _check_box, source=BY_SUITE),
    Claim("low-rank.tolerance", PAPER, "Released detector (its LP's radius bound 1e-8)",
          "The count of the tolerance question, a ball of radius above T (near the question"
          " of the released detector's LP), depends on T and on the rounding of the stored"
          " weights.",
          PASS, _check_tolerance, source=BY_SUITE),
    Claim("low-rank.released-count", PAPER, "Released detector, %s (stollen/__init__.py,"
          " bin/stollen_hugging)" % RELEASED,
          "The released detector's count is not that of the question --box 100 --tolerance"
          " 1e-8 answers: it is lower where its search accepts a thin class without a"
          " tolerance or an unargmaxable class at a tie, or its LP a radius of exactly 1e-8,"
          " and higher where only the search runs (its default) and misses an argmaxable"
          " class.",
          PASS, check_released_count, source=BY_SUITE),
    Claim("low-rank.13-of-150", PAPER, "Abstract; experiments",
          "13 of 150 public LM/MT models have unargmaxable tokens.",
          NOT_CHECKED, _check_models,
          quoted="We find that 13 out of 150 models do indeed have such tokens"),
    Claim("low-rank.very-infrequent", PAPER, "Abstract",
          "In those models the unargmaxable tokens are very infrequent and unlikely to impact"
          " model quality.", NOT_CHECKED, check_very_infrequent,
          quoted="however, they are very infrequent and unlikely to impact model quality."),
    Claim("low-rank.trained-layers", PAPER, "Abstract (\"very infrequent\"), on trained layers"
          " outside the paper's models",
          "Exactly, on trained softmax classifiers' heads shipped in PyPI packages: no class"
          " of a 753-tag morphology tagger's head (d = 64) is unargmaxable; 225 of the 876"
          " readings of a Mandarin grapheme-to-phoneme model's head (d = 32) are, and 229 over"
          " the inputs its ReLU gives it (x >= 0).",
          PASS, check_trained_layers, source=BY_SUITE, by_default=False),
)
