"""Claims of Appendix C.3 of The Memorization Problem (arXiv 2504.14765 v2),
as the review of it states them.

The paper's one statement checked here is the appendix's stochastic
extension: finite real logits realize every probability distribution on a
finite label set.  Every other claim is the review's own: interior
distributions are realized by z_i = log p_i; boundary distributions are
reachable only as limits, or with explicit masking or infinite logits;
and, not numerical, so NOT CHECKED, the repaired extension holds (its
numerical premises are computed, its argument is not) and what survives
(the deterministic construction does not use the step, the
non-identification argument stands under its unrestricted-model
assumption, the error is minor and repairable).  memorization.underflow is
this suite's own test of the review's point, in no text of the review.

Each check decides its verdict from exact values (``decimal``); floats are
shown beside them, with their distance in ulp.  The statements speak of
every distribution and every gap; the checks compute a few, and each
outcome says which (``Outcome.sampled``) and why the statement holds
beyond them where a reason is known.
"""

import decimal
import functools
import math
from fractions import Fraction

from reviews.claims import (BY_REVIEW, BY_SUITE, FAIL, NOT_CHECKED, PASS, Claim, Figure, Outcome, Paper,
                            Row, float_row, written)
from reviews.exact import to_decimal
from reviews.rounded import (
    REFERENCE_DIGITS,
    log_softmax,
    log_softmax_exact,
    softmax,
    softmax_exact,
    softmax_naive,
    ulp_distance,
)

__all__ = ["PAPER", "CLAIMS", "TABLE_GAPS", "table_line", "draw_positivity",
           "positivity_description", "positivity_errors", "approximating_logits",
           "threshold_rows"]

PAPER = Paper(
    title="The Memorization Problem: Can We Trust LLMs' Economic Forecasts?",
    authors=("Lopez-Lira", "Tang", "Zhu"),
    year=2025,
    arxiv="2504.14765",
    version="v2",
    review="Softmax reaches only the interior of the simplex",
    scope="These are counterexamples to particular claims; they do not reproduce the papers'"
          " training experiments.",
)
WHERE = "Appendix C.3"

TABLE_GAPS = (50, 200, 700)
ULP_BOUND = 2
UNDERFLOW_GAPS = (745.2, 750, 1000, 1e6)
# Where float exp overflows (naive formula) and where e**-g rounds to 0.0.
OVERFLOW_EDGE = (709.78, 710)
UNDERFLOW_EDGE = (745.13, 745.14)
_WORK = decimal.Context(prec=60)
_HALF_ULP_BELOW_ONE = 2.0 ** -54
_SHOWN = decimal.Context(prec=20)
_SHOWN_SHORT = decimal.Context(prec=3)
_SHOWN_EDGE = decimal.Context(prec=30)


def table_line(gap):
    """The review's table row for softmax([gap, 0]), in its own format.

    >>> table_line(50)
    'softmax([50, 0]) = (1.000000000000000, 1.93e-22)'
    """
    p = softmax([gap, 0])
    return "softmax([%s, 0]) = (%.15f, %.2e)" % (gap, p[0], p[1])


def _exact_log(fraction):
    """ln of a positive rational, to 60 digits, as an exact Fraction."""
    return Fraction(_WORK.ln(to_decimal(fraction, _WORK)))


def _check_every_distribution():
    rows = []
    positive = True
    for gap in TABLE_GAPS:
        p = softmax([gap, 0])
        logp = log_softmax([gap, 0])
        exact = softmax_exact([gap, 0])
        exact_log = log_softmax_exact([gap, 0])
        positive = positive and exact[1] > 0 and math.isfinite(logp[1])
        rows += [
            Row("table", table_line(gap)),
            float_row("gap %d: p2" % gap, p[1], exact[1]),
            float_row("gap %d: log p2" % gap, logp[1], exact_log[1]),
            float_row("gap %d: log p1" % gap, logp[0], exact_log[0]),
            Row("gap %d: p1 prints 1.0" % gap, "1 - p1 = p2 = %.3e < 2**-54 = %.3e, half an ulp below 1.0"
                % (exact[1], _HALF_ULP_BELOW_ONE)),
        ]
    rows.append(Row("so", "(1, 0) has no finite-logit preimage: exp(t) > 0 for every real t,"
                    " so every softmax coordinate of finite logits is positive (a fact, not"
                    " computed here)"))
    verdict = FAIL if positive else PASS
    return Outcome(verdict, "p2 > 0 at the %d gaps checked, as at every finite gap (exp(t) > 0);"
                   " at gap %d p2 = %.3e, log p2 = %r"
                   % (len(TABLE_GAPS), TABLE_GAPS[-1], softmax([TABLE_GAPS[-1], 0])[1],
                      log_softmax([TABLE_GAPS[-1], 0])[1]), tuple(rows),
                   "the %d gaps checked (%s); every finite logit vector by exp(t) > 0, a fact"
                   " not computed here" % (len(TABLE_GAPS), ", ".join(map(str, TABLE_GAPS))))


_INTERIOR = (
    (Fraction(1, 2), Fraction(1, 2)),
    (Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)),
    (Fraction(1, 10), Fraction(2, 10), Fraction(7, 10)),
    (Fraction(1, 1000), Fraction(9, 1000), Fraction(99, 1000), Fraction(891, 1000)),
    (1 - Fraction(1, 10 ** 15), Fraction(1, 10 ** 15)),
    (1 - Fraction(1, 10 ** 100), Fraction(1, 10 ** 100)),
    (1 - Fraction(1, 10 ** 300), Fraction(1, 10 ** 300)),
)


def _show(fraction):
    if fraction.denominator == 1 or fraction.denominator < 10 ** 4:
        return str(fraction)
    return "%.3e" % fraction if fraction < Fraction(1, 2) else "1 - %.3e" % (1 - fraction)


def _check_interior():
    rows = []
    worst = decimal.Decimal(0)
    for p in _INTERIOR:
        logits = [_exact_log(q) for q in p]
        got = softmax(logits)
        distances = [ulp_distance(f, to_decimal(q, _WORK)) for f, q in zip(got, p)]
        worst = max(worst, *distances)
        rows.append(Row("p = (%s)" % ", ".join(map(_show, p)),
                        "softmax(log p) = (%s); worst %.2f ulp"
                        % (", ".join(map(repr, got)), max(distances))))
    rows += [Row("logits", "z_i = ln p_i to 60 digits, taken exactly as rationals"),
             Row("every interior p", "softmax(ln p)_i = p_i / sum_j p_j = p_i, an identity"
                 " (not computed here); the rows show floats keep it within %.2f ulp"
                 % worst)]
    verdict = PASS if worst <= ULP_BOUND else FAIL
    return Outcome(verdict, "softmax(log p) == p within %.2f ulp for %d interior p"
                   % (worst, len(_INTERIOR)), tuple(rows),
                   "the %d interior distributions checked; every interior p by the identity"
                   " softmax(ln p) = p, not computed here" % len(_INTERIOR))


_EPSILONS = (1, 2, 5, 10, 20, 50, 100, 200, 300)


def _check_boundary_limits():
    rows = []
    worst = decimal.Decimal(0)
    previous = None
    decreasing = True
    for power in _EPSILONS:
        eps = Fraction(1, 10 ** power)
        gap = _exact_log((1 - eps) / eps)
        p2 = softmax([gap, 0])[1]
        exact_p2 = softmax_exact([gap, 0])[1]
        distance = ulp_distance(p2, to_decimal(eps, _WORK))
        worst = max(worst, distance)
        decreasing = decreasing and exact_p2 > 0 and (previous is None or exact_p2 < previous)
        previous = exact_p2
        rows.append(Row("eps = 1e-%d" % power, "gap %s: p2 = %r (%.2f ulp from eps)"
                        % (_SHOWN.plus(to_decimal(gap, _WORK)), p2, distance)))
    rows += [Row("exact", "p2 > 0 and strictly decreasing in the gap at the %d gaps checked"
                 " (decimal, 40 digits)" % len(_EPSILONS)),
             Row("every eps", "gap ln((1 - eps)/eps) gives p2 = 1/(1 + e^gap) = eps, and p2 > 0"
                 " at every finite gap: an identity and exp(t) > 0 (not computed here)")]
    verdict = PASS if decreasing and worst <= ULP_BOUND else FAIL
    return Outcome(verdict, "p2 = eps within %.2f ulp at the %d eps checked, 1e-%d to 1e-%d;"
                   " never 0" % (worst, len(_EPSILONS), _EPSILONS[0], _EPSILONS[-1]),
                   tuple(rows),
                   "the %d eps checked (1e-%d to 1e-%d); every eps by the identity and"
                   " exp(t) > 0, not computed here" % (len(_EPSILONS), _EPSILONS[0],
                                                       _EPSILONS[-1]))


_MASKED = (
    ([0, -math.inf], [1.0, 0.0], [0.0, -math.inf]),
    ([math.inf, 0], [1.0, 0.0], [0.0, -math.inf]),
)


def _max_shifted(logits):
    """exp(z - max z) / sum exp(z - max z) in floats: the formula a
    max-shifted numpy softmax and scipy.special.softmax use.  Called only at
    0, -inf and nan, where math.exp is exact on every platform."""
    top = max(logits)
    exps = [math.exp(v - top) for v in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _check_masking():
    rows = []
    exact = True
    for logits, probabilities, logs in _MASKED:
        got, got_log = softmax(logits), log_softmax(logits)
        exact = exact and got == probabilities and got_log == logs
        rows.append(Row("softmax(%r)" % logits, "%r; log_softmax %r" % (got, got_log)))
    masked, infinite = (_max_shifted(logits) for logits, _, _ in _MASKED)
    exact = exact and masked == [1.0, 0.0] and all(map(math.isnan, infinite))
    rows += [
        Row("masking", "exp(-inf) = 0 in IEEE arithmetic, so a masked class gets 0.0 exactly:"
            " the max-shifted exp(z - max z)/sum gives %r too" % masked),
        Row("an infinite logit", "[1.0, 0.0] at [inf, 0] is this suite's convention"
            " (reviews.softmax: a single +inf takes all the mass), the limit as z1 -> inf; the"
            " max-shifted formula gives %r there (inf - inf is nan), and"
            " scipy.special.softmax computes that formula" % infinite),
        Row("the limit", "softmax([g, 0])[1] = 1/(1 + e^g) falls below every eps > 0 as g"
            " grows (memorization.boundary-limits): [1, 0] is the limit, which the convention"
            " takes as the value"),
    ]
    verdict = PASS if exact else FAIL
    return Outcome(verdict, "softmax([0, -inf]) == [1.0, 0.0] exactly (exp(-inf) = 0);"
                   " softmax([inf, 0]) == [1.0, 0.0] by this suite's convention, the limit as"
                   " z1 -> inf (the max-shifted formula gives nan)", tuple(rows))


def _check_underflow():
    rows = []
    holds = True
    for gap in UNDERFLOW_GAPS:
        p2 = softmax([gap, 0])[1]
        exact_p2 = softmax_exact([gap, 0])[1]
        logp2 = log_softmax([gap, 0])[1]
        exact_log = log_softmax_exact([gap, 0])[1]
        holds = holds and p2 == 0.0 and exact_p2 > 0 and math.isfinite(logp2)
        rows += [
            Row("gap %s: p2" % written(gap), "%r (exact %s)" % (p2, _SHOWN.plus(exact_p2))),
            float_row("gap %s: log p2" % written(gap), logp2, exact_log),
        ]
    for gap in UNDERFLOW_EDGE:
        rows.append(float_row("softmax([%r, 0])[1]" % gap, softmax([gap, 0])[1],
                              softmax_exact([gap, 0])[1]))
    below, above = OVERFLOW_EDGE
    naive_below, naive_above = softmax_naive([below, 0]), softmax_naive([above, 0])
    stable = softmax([above, 0])
    holds = (holds and not any(map(math.isnan, naive_below))
             and math.isnan(naive_above[0]) and not any(map(math.isnan, stable)))
    rows += [
        Row("naive at [%r, 0]" % below, repr(naive_below)),
        Row("naive at [%r, 0]" % above, repr(naive_above)),
        float_row("stable at [%r, 0], p2" % above, stable[1], softmax_exact([above, 0])[1]),
    ]
    rows += threshold_rows()
    masked = softmax([0, -math.inf])[1]
    holds = holds and masked == 0.0
    rows.append(Row("infinite logits", "softmax([0, -inf])[1] = %r stands for 0 exactly"
                    " (memorization.masking): the statement is about finite logits" % masked))
    rows.append(Row("whose", "this suite's own test of the review's point that finite logits"
                    " never reach the boundary; the review's text does not discuss float"
                    " underflow"))
    verdict = PASS if holds else FAIL
    return Outcome(verdict, "float p2 = 0.0 at the %d gaps checked past 1075 ln 2 = %.4f (and"
                   " at every gap past it: p2 < 2**-1075), exact p2 > 0, log p2 = -gap; naive"
                   " nan at %s" % (len(UNDERFLOW_GAPS), P2_UNDERFLOW, written(OVERFLOW_EDGE[1])),
                   tuple(rows),
                   "the %d gaps checked past 1075 ln 2 and the floats at each edge, two"
                   " classes; every finite logit vector by exp(t) > 0, not computed here"
                   % len(UNDERFLOW_GAPS))


# Boundary targets: each has a zero coordinate, so no finite logits give
# it exactly; within any eps > 0 explicit finite logits do.
_BOUNDARY = (
    (Fraction(1), Fraction(0)),
    (Fraction(1), Fraction(0), Fraction(0)),
    (Fraction(1, 2), Fraction(1, 2), Fraction(0)),
    (Fraction(7, 10), Fraction(3, 10), Fraction(0), Fraction(0)),
)
_REPAIR_POWERS = (1, 2, 5, 10, 20, 50, 100, 200, 300)
# Digits carried beyond eps's exponent: the rounding of the logits and of the
# check both stay below 1e-(power + 20), far under eps.
_GUARD_DIGITS = 25


def approximating_logits(p, power):
    """Finite logits z, exact decimals, with max_i |softmax(z)_i - p_i| < 10**-power.

    The support keeps z_i = ln(p_i / max p) to power + 25 digits; each zero
    of p gets the integer -L with L = ceil(ln(2 m 10**power)), m zeros, so
    the mass they take, at most m e**-L, is at most half of eps.

    >>> approximating_logits((Fraction(1), Fraction(0)), 1)
    (Decimal('0'), Decimal('-3'))
    """
    ctx = decimal.Context(prec=power + _GUARD_DIGITS)
    top = max(p)
    zeros = sum(1 for q in p if q == 0)
    cut = -ctx.ln(ctx.multiply(2 * zeros, decimal.Decimal(10) ** power)).to_integral_value(
        rounding=decimal.ROUND_CEILING)
    return tuple(cut if q == 0 else ctx.ln(to_decimal(q / top, ctx)) for q in p)


def _approximation_error(z, p, power):
    """An upper bound on max_i |softmax(z)_i - p_i|, from decimal at
    power + 25 digits plus a bound on that computation's rounding."""
    ctx = decimal.Context(prec=power + _GUARD_DIGITS, Emin=decimal.MIN_EMIN,
                          Emax=decimal.MAX_EMAX)
    terms = [ctx.exp(zi) for zi in z]
    total = terms[0]
    for term in terms[1:]:
        total = ctx.add(total, term)
    error = max(abs(ctx.subtract(ctx.divide(term, total), to_decimal(q, ctx)))
                for term, q in zip(terms, p))
    # Every z_i <= 0, so each term is at most 1 and the quotients too: the
    # roundings of exp, of the sum, of the division, of p_i and of the
    # difference are each half an ulp, relative, together under 1e-(prec - 2).
    return ctx.add(error, decimal.Decimal(10) ** -(ctx.prec - 2))


def _shown_logit(value):
    text = str(value)
    return text if len(text) <= 12 else "%s...(%d digits)" % (
        _SHOWN.plus(value), len(value.as_tuple().digits))


def _check_repaired():
    rows = []
    holds = True
    for p in _BOUNDARY:
        for power in _REPAIR_POWERS:
            z = approximating_logits(p, power)
            bound = _approximation_error(z, p, power)
            eps = decimal.Decimal(10) ** -power
            holds = holds and all(zi.is_finite() for zi in z) and bound <= eps
            if power in (1, 10, 300):
                rows.append(Row("p = (%s), eps = 1e-%d" % (", ".join(map(str, p)), power),
                                "z = (%s): max |softmax(z) - p| <= %s"
                                % (", ".join(map(_shown_logit, z)),
                                   format(_SHOWN_SHORT.plus(bound), "e"))))
    interior = _check_interior()
    holds = holds and interior.verdict == PASS
    rows += [
        Row("each eps", "1e-%s for each p: the bound <= eps at each of these %d"
            % (", 1e-".join(map(str, _REPAIR_POWERS)), len(_REPAIR_POWERS))),
        Row("logits", "support: ln(p_i / max p) to (digits of eps) + %d digits;"
            " zeros: -ceil(ln(2 m / eps)), m the number of zeros" % _GUARD_DIGITS),
        Row("check", "softmax(z) - p in decimal at (digits of eps) + %d digits, plus a"
            " bound on its rounding" % _GUARD_DIGITS),
        Row("interior", "memorization.interior: %s" % interior.summary),
        Row("not checked", "the paper's extension argument itself, restricted or stated as an"
            " approximation, is read from the paper; what is computed is its two numerical"
            " premises above, at the points listed"),
    ]
    # The premises are true: were one computed false, so would the statement be.
    verdict = NOT_CHECKED if holds else FAIL
    return Outcome(verdict, "the extension argument is not computed; its numerical premises"
                   " hold where computed: finite logits within each of the %d eps checked"
                   " (1e-%d to 1e-%d) of %d boundary targets, and z_i = ln p_i at the %d"
                   " interior p of memorization.interior"
                   % (len(_REPAIR_POWERS), _REPAIR_POWERS[0], _REPAIR_POWERS[-1],
                      len(_BOUNDARY), len(_INTERIOR)), tuple(rows))


def _not_numerical(summary, why):
    """The outcome of a statement about the paper's arguments: NOT CHECKED, and why."""
    return lambda: Outcome(NOT_CHECKED, summary, (Row("why", why),))


_CONSTRUCTION = _not_numerical(
    "a statement about which steps a proof uses, not a number",
    "whether the deterministic observational-equivalence construction uses the C.3 step is"
    " read from the paper's proofs; no computation decides it")
_NON_IDENTIFICATION = _not_numerical(
    "a reading of the non-identification argument and its assumptions, not a number",
    "the argument's scope (an unrestricted relation between factual and counterfactual"
    " parameters, so no separation without further structure) is read from the paper;"
    " no computation decides it")
_RESULT_INDEPENDENT = _not_numerical(
    "a statement about which steps a proof uses, not a number",
    "whether the central non-identification result depends on the C.3 step is read from"
    " the paper's proofs; no computation decides it")
_MINOR = _not_numerical(
    "a judgement of how much the error matters and how far it reaches, not a number",
    "\"minor\" and \"local\" weigh the error against the paper's results;"
    " memorization.interior and memorization.boundary-limits compute, at the %d and %d points"
    " they check, that finite logits realize interior distributions and come within eps of"
    " boundary ones; that the error is confined to the boundary of the simplex follows from"
    " exp(t) > 0 and softmax(ln p) = p, not from those points; memorization.repaired computes"
    " the repair's numerical premises" % (len(_INTERIOR), len(_EPSILONS)))


# Where float exp(g) overflows: from ln(2**1024 - 2**970), where e**g
# rounds to inf.  Where the float p2 = 1/(1 + e**g) is 0.0: from 1075 ln 2,
# where it drops below 2**-1075, half the smallest subnormal.
EXP_OVERFLOW_EXACT = _WORK.ln(2 ** 1024 - 2 ** 970)
P2_UNDERFLOW_EXACT = _WORK.multiply(1075, _WORK.ln(2))
EXP_OVERFLOW = float(EXP_OVERFLOW_EXACT)
P2_UNDERFLOW = float(P2_UNDERFLOW_EXACT)
_ULP_CAP = 1.5   # the lower panel's top, above the naive formula's worst at the gaps drawn
_ERROR_BIN = 50   # the lower panel shows each float's worst error per this much of g


def _below(threshold):
    """The largest float below the exact ``threshold``."""
    nearest = float(threshold)
    return math.nextafter(nearest, 0) if nearest >= threshold else nearest


# The curves end exactly where floats give out: the last float gap below each edge.
_FIGURE_GAPS = sorted(set(range(0, 1001, 5))
                      | {_below(EXP_OVERFLOW_EXACT), _below(P2_UNDERFLOW_EXACT)})


def _log10(p):
    return float(_WORK.log10(decimal.Decimal(p))) if p > 0 and math.isfinite(p) else None


def threshold_rows():
    """Evidence rows: both float edges, exact, and the floats on either side.

    >>> threshold_rows()[0].value[:50]
    'ln(2**1024 - 2**970) = 709.78271289338399678773454'
    """
    below, above = _below(EXP_OVERFLOW_EXACT), math.nextafter(_below(EXP_OVERFLOW_EXACT), 800)
    low, high = _below(P2_UNDERFLOW_EXACT), math.nextafter(_below(P2_UNDERFLOW_EXACT), 800)
    return (
        Row("exp(g) overflows for g >", "ln(2**1024 - 2**970) = %s; naive at [%r, 0]: %r,"
            " at [%r, 0]: %r" % (_SHOWN_EDGE.plus(EXP_OVERFLOW_EXACT), below,
                                 softmax_naive([below, 0]), above, softmax_naive([above, 0]))),
        Row("float p2 = 0.0 for g >", "1075 ln 2 = %s; softmax([%r, 0])[1] = %r,"
            " softmax([%r, 0])[1] = %r" % (_SHOWN_EDGE.plus(P2_UNDERFLOW_EXACT), low,
                                           softmax([low, 0])[1], high, softmax([high, 0])[1])),
    )


# A gap between the figure's: the naive formula errs more there than at any
# gap drawn, so the errors drawn are samples, not a bound.
OFF_GRID_GAP = 36.74634400389438


@functools.lru_cache(maxsize=None)
def _positivity_values():
    """(exact p2, this suite's floats, the naive formula's floats), each a
    dict by gap of the figure: computed once for the figure and its caption."""
    return ({g: softmax_exact([g, 0])[1] for g in _FIGURE_GAPS},
            {g: softmax([g, 0]) for g in _FIGURE_GAPS},
            {g: softmax_naive([g, 0]) for g in _FIGURE_GAPS})


def _errors_drawn(floats, exact_p2):
    """Each float p2's error in ulp at the gaps the lower panel draws it (its
    p1 a number and its p2 not 0.0)."""
    return [ulp_distance(floats[g][1], exact_p2[g]) for g in _FIGURE_GAPS
            if not any(map(math.isnan, floats[g])) and floats[g][1] != 0.0]


def positivity_errors():
    """(this suite's worst ulp error at the gaps drawn, how many, the naive
    formula's worst there, how many, the naive formula's error at
    OFF_GRID_GAP), as decimals and counts.

    >>> [format(v, ".2f") for v in positivity_errors()[::2]]
    ['0.50', '1.21', '2.25']
    """
    exact_p2, suite, naive = _positivity_values()
    ours, theirs = _errors_drawn(suite, exact_p2), _errors_drawn(naive, exact_p2)
    off_grid = ulp_distance(softmax_naive([OFF_GRID_GAP, 0])[1],
                            softmax_exact([OFF_GRID_GAP, 0])[1])
    return max(ours), len(ours), max(theirs), len(theirs), off_grid


def positivity_description():
    """What positivity.svg shows, its numbers computed (only when it is drawn)."""
    ours, _, theirs, drawn, off_grid = positivity_errors()
    return (
        "log10 of p2 = softmax([g, 0])[1] for logit gaps g from 0 to 1000, exact and in floats,"
        " and below it each float's worst error in ulp per %d of g: the exact p2 falls as"
        " -g / ln 10 and never reaches 0; this suite's float p2 is correctly rounded, so within"
        " 0.5 ulp at every gap (at most %.2f at the gaps drawn); the naive formula's worst at"
        " the %d gaps drawn (every 5 of g up to the overflow) is %.2f ulp, not a bound: at g = %r, between them,"
        " it is %.2f ulp off; the naive p1 is nan past g = %.4f, where exp(g) overflows; past"
        " g = 1075 ln 2 = %.4f (shaded) the float p2 is 0.0, a 100%% relative error, though the"
        " exact p2 is positive." % (_ERROR_BIN, ours, drawn, theirs, OFF_GRID_GAP, off_grid,
                                    EXP_OVERFLOW, P2_UNDERFLOW))


def _worst_errors(gaps, floats, exact_p2):
    """Step points (g, worst ulp error) per _ERROR_BIN of g, from the gaps
    where the float p2 is a number and not 0.0 (an underflow is a 100%
    relative error, which no ulp figure shows); None ends the steps.

    >>> _worst_errors([0, 10, 60, 70], {g: (0.5, 0.5) for g in (0, 10, 60, 70)},
    ...               {g: decimal.Decimal(1) / 2 for g in (0, 10, 60, 70)})
    [(0, 0.0), (50, 0.0), (50, 0.0), (70, 0.0)]
    """
    steps, bins = [], {}
    for g in gaps:
        p = floats[g]
        if any(map(math.isnan, p)) or p[1] == 0.0:
            continue
        bins.setdefault(int(g // _ERROR_BIN), []).append(
            (g, min(_ULP_CAP, float(ulp_distance(p[1], exact_p2[g])))))
    for k in sorted(bins):
        worst = max(error for _, error in bins[k])
        last = k + 1 in bins
        steps += [(k * _ERROR_BIN, worst),
                  ((k + 1) * _ERROR_BIN if last else bins[k][-1][0], worst)]
        if not last:
            steps.append(None)
    return steps[:-1] if steps and steps[-1] is None else steps


def draw_positivity():
    """positivity.svg: log10 softmax([g, 0])[1] for g = 0..1000, exact and in
    floats; below, each float series' distance from the exact value in ulp."""
    # Imported here: a run without figures need not load them (nor xml.etree).
    from reviews.report.svg import Axis, Band, Mark, Rule, Series, Strip, line_chart
    ln10 = _WORK.ln(10)
    exact_p2, suite, naive = _positivity_values()
    exact = [(g, float(_WORK.divide(log_softmax_exact([g, 0])[1], ln10)))
             for g in _FIGURE_GAPS]

    def curve(floats):
        return [(g, _log10(floats[g][1])) if _log10(floats[g][1]) is not None else None
                for g in _FIGURE_GAPS]

    labels = ("exact (decimal, %d digits)" % REFERENCE_DIGITS, "this suite, float64",
              "naive exp(z)/sum(exp(z)), float64")
    marks = [Mark(g, float(_WORK.divide(log_softmax_exact([g, 0])[1], ln10)),
                  "g = %d: p2 = %.2e" % (g, softmax([g, 0])[1])) for g in TABLE_GAPS]
    rules = [Rule(EXP_OVERFLOW, "g > %.4f: exp(g) overflows" % EXP_OVERFLOW),
             Rule(P2_UNDERFLOW, "g > %.4f: float p2 = 0.0" % P2_UNDERFLOW)]
    notes = ["g > %.4f = ln(2**1024 - 2**970): exp(g) overflows; naive p1 = inf/inf = nan"
             % EXP_OVERFLOW,
             "g > %.4f = 1075 ln 2: p2 < 2**-1075, so the float p2 is 0.0; exact p2 > 0"
             % P2_UNDERFLOW,
             "log_softmax stays finite (-g) at every gap"]
    strip = Strip(Axis("worst error (ulp)", 0, _ULP_CAP, 0.5),
                  [Series(labels[1], _worst_errors(_FIGURE_GAPS, suite, exact_p2), "8 5",
                          "square"),
                   Series(labels[2], _worst_errors(_FIGURE_GAPS, naive, exact_p2), "2 4",
                          "triangle")],
                  "Lower panel: worst |float p2 - exact p2| in ulp per %d of g (p1 not nan,"
                  " p2 not 0.0)" % _ERROR_BIN)
    band = Band(P2_UNDERFLOW, 1000, "float p2 = 0.0:\n100% relative error")
    return line_chart(
        "Softmax positivity: p2 = softmax([g, 0])[1] > 0 for every finite g",
        Axis("logit gap g = z1 - z2 (nats)", 0, 1000, 100),
        Axis("log10 p2 (decades)", -450, 0, 50),
        [Series(labels[0], exact, "", "circle"),
         Series(labels[1], curve(suite), "8 5", "square"),
         Series(labels[2], curve(naive), "2 4", "triangle")],
        marks, rules, notes, strip, (band,))


CLAIMS = (
    Claim("memorization.every-distribution", PAPER, WHERE,
          "Finite real logits realize every probability distribution on a finite label set.",
          FAIL, _check_every_distribution,
          (Figure("positivity.svg", draw_positivity, positivity_description),),
          verdict_words="That fails at the boundary.",
          quoted=("Appendix C.3's stochastic extension states that finite real logits can"
                  " realize every probability distribution over a finite label set.")),
    Claim("memorization.interior", PAPER, WHERE,
          "Interior distributions are realized by z_i = log p_i.",
          PASS, _check_interior, source=BY_REVIEW,
          quoted=("So (1, 0) has no finite-logit representation. Interior distributions do,"
                  " by z_i = log p_i")),
    Claim("memorization.boundary-limits", PAPER, WHERE,
          "With finite logits, boundary distributions are reachable only as limits.",
          PASS, _check_boundary_limits, source=BY_REVIEW,
          quoted=("boundary distributions are reachable only as limits, or with explicit"
                  " masking or infinite logits.")),
    Claim("memorization.masking", PAPER, WHERE,
          "Explicit masking or infinite logits reach the boundary.",
          PASS, _check_masking, source=BY_REVIEW,
          quoted=("boundary distributions are reachable only as limits, or with explicit"
                  " masking or infinite logits.")),
    Claim("memorization.underflow", PAPER, WHERE,
          "Float underflow is not reachability: with finite logits, a float softmax coordinate"
          " of 0.0 stands for a positive value (this suite's own test of the review's point).",
          PASS, _check_underflow, source=BY_SUITE),
    Claim("memorization.repaired", PAPER, WHERE,
          "Restricted to the interior, or stated as an approximation, the C.3 extension"
          " holds.", NOT_CHECKED, _check_repaired, source=BY_REVIEW,
          quoted=("Restrict exact reachability to the interior, or state the result as an"
                  " approximation, and the extension goes through.")),
    Claim("memorization.construction-independent", PAPER,
          "Deterministic observational-equivalence construction",
          "The deterministic observational-equivalence construction does not use the C.3"
          " step.", NOT_CHECKED, _CONSTRUCTION, source=BY_REVIEW,
          quoted=("The deterministic observational-equivalence construction does not use"
                  " this step")),
    Claim("memorization.result-independent", PAPER, "Non-identification result",
          "The paper's central non-identification result does not depend on the C.3 step.",
          NOT_CHECKED, _RESULT_INDEPENDENT, source=BY_REVIEW,
          quoted="the paper's central non-identification result does not depend on it."),
    Claim("memorization.non-identification", PAPER, "Non-identification result",
          "The non-identification argument stands; it assumes an unrestricted relation between"
          " factual and counterfactual parameters, so it shows that skill and memorisation"
          " cannot be separated without further structure, not that every additional"
          " assumption or intervention is useless.", NOT_CHECKED, _NON_IDENTIFICATION,
          source=BY_REVIEW,
          quoted=("the non-identification argument stands. That argument does assume an"
                  " unrestricted relation between factual and counterfactual parameters, so"
                  " it shows that skill and memorisation cannot be separated without further"
                  " structure, not that every additional assumption or intervention is"
                  " useless.")),
    Claim("memorization.minor-repairable", PAPER, WHERE,
          "The error in Appendix C.3 is local, minor and repairable.", NOT_CHECKED, _MINOR,
          source=BY_REVIEW,
          quoted=("The error is local and repairable [...] This is a minor repairable"
                  " error.")),
)
