"""Tests of the Appendix C.3 claims: every verdict and every printed number."""

import os
import unittest
import xml.etree.ElementTree as ET

from reviews.claims import BY_PAPER, BY_SUITE, FAIL, NOT_CHECKED, PASS
from reviews.report.svg import SVG_NAMESPACE
from reviews.rounded import REFERENCE_DIGITS
import decimal
from fractions import Fraction

from reviews.papers.memorization_problem import (
    CLAIMS, PAPER, approximating_logits, draw_positivity, table_line,
)
from tests.support import ROOT
from tests.support.claims import run_once

# Each check runs once in the test process (the command's tests share them).
OUTCOMES = {result.claim.id: result.outcome for result in run_once(CLAIMS)}


def values(claim_id, label):
    return [row.value for row in OUTCOMES[claim_id].evidence if row.label == label]


class TestReviewTable(unittest.TestCase):

    def test_table_lines_reproduce_the_review_byte_for_byte(self):
        self.assertEqual(values("memorization.every-distribution", "table"), [
            "softmax([50, 0]) = (1.000000000000000, 1.93e-22)",
            "softmax([200, 0]) = (1.000000000000000, 1.38e-87)",
            "softmax([700, 0]) = (1.000000000000000, 9.86e-305)",
        ])

    def test_table_line_helper(self):
        self.assertEqual(table_line(700), "softmax([700, 0]) = (1.000000000000000, 9.86e-305)")

    def test_p2_beside_its_exact_value(self):
        self.assertEqual(values("memorization.every-distribution", "gap 50: p2"), [
            "1.9287498479639178e-22 (exact 1.9287498479639177830E-22; 0.16 ulp)"])

    def test_a_gap_of_a_million_is_written_1e6(self):
        self.assertEqual(values("memorization.underflow", "gap 1e6: log p2"),
                         ["-1000000.0 (exact -1000000.0000000000000; 0.00 ulp)"])

    def test_log_p1_is_minus_p2_not_zero(self):
        self.assertEqual(values("memorization.every-distribution", "gap 50: log p1"), [
            "-1.9287498479639178e-22 (exact -1.9287498479639177830E-22; 0.16 ulp)"])

    def test_log_p2_is_finite_at_gap_700(self):
        self.assertEqual(values("memorization.every-distribution", "gap 700: log p2"), [
            "-700.0 (exact -700.00000000000000000; 0.00 ulp)"])


class TestVerdicts(unittest.TestCase):

    def test_every_verdict_is_the_review_s(self):
        expected = {
            "memorization.every-distribution": FAIL,
            "memorization.interior": PASS,
            "memorization.boundary-limits": PASS,
            "memorization.masking": PASS,
            "memorization.underflow": PASS,
            "memorization.repaired": NOT_CHECKED,
            "memorization.construction-independent": NOT_CHECKED,
            "memorization.result-independent": NOT_CHECKED,
            "memorization.non-identification": NOT_CHECKED,
            "memorization.minor-repairable": NOT_CHECKED,
        }
        self.assertEqual({key: o.verdict for key, o in OUTCOMES.items()}, expected)
        self.assertEqual({c.id: c.expected for c in CLAIMS}, expected)

    def test_every_claim_cites_its_place_in_the_paper(self):
        for claim in CLAIMS:
            self.assertEqual(claim.paper, PAPER)
        self.assertEqual({c.id: c.where for c in CLAIMS if c.where != "Appendix C.3"}, {
            "memorization.construction-independent":
                "Deterministic observational-equivalence construction",
            "memorization.result-independent": "Non-identification result",
            "memorization.non-identification": "Non-identification result"})
        self.assertEqual((PAPER.arxiv, PAPER.version), ("2504.14765", "v2"))
        self.assertEqual(PAPER.title, "The Memorization Problem: Can We Trust LLMs' Economic"
                                      " Forecasts?")
        self.assertEqual(PAPER.review, "Softmax reaches only the interior of the simplex")


class TestWhoseStatements(unittest.TestCase):
    """Only the surjectivity of Appendix C.3 is the paper's, as the review states it;
    underflow is this suite's own; the rest is the review's."""

    def test_the_paper_s_only_statement_is_that_every_distribution_is_realized(self):
        self.assertEqual([c.id for c in CLAIMS if c.source == BY_PAPER],
                         ["memorization.every-distribution"])
        self.assertEqual(CLAIMS[0].whose, "The paper's claim as the review states it, in this"
                                          " suite's paraphrase")
        self.assertEqual([c.id for c in CLAIMS if c.source == BY_SUITE],
                         ["memorization.underflow"])

    def test_the_review_s_missing_statements_are_claims(self):
        statements = {c.id: c.statement for c in CLAIMS}
        self.assertEqual(statements["memorization.result-independent"],
                         "The paper's central non-identification result does not depend on the"
                         " C.3 step.")
        self.assertEqual(statements["memorization.minor-repairable"],
                         "The error in Appendix C.3 is local, minor and repairable.")

    def test_repaired_is_not_checked_and_says_what_it_computes_on_how_many_points(self):
        # Its argument is not computed: NOT CHECKED, its premises as evidence.
        self.assertEqual(OUTCOMES["memorization.repaired"].summary,
                         "the extension argument is not computed; its numerical premises hold"
                         " where computed: finite logits within each of the 9 eps checked (1e-1"
                         " to 1e-300) of 4 boundary targets, and z_i = ln p_i at the 7 interior"
                         " p of memorization.interior")
        self.assertIn("is read from the paper", values("memorization.repaired", "not checked")[0])

    def test_a_statement_about_every_case_decided_on_a_few_says_so(self):
        sampled = {key: o.sampled for key, o in OUTCOMES.items() if o.sampled}
        self.assertEqual(sorted(sampled), ["memorization.boundary-limits",
                                           "memorization.every-distribution",
                                           "memorization.interior", "memorization.underflow"])
        self.assertEqual(sampled["memorization.every-distribution"],
                         "the 3 gaps checked (50, 200, 700); every finite logit vector by"
                         " exp(t) > 0, a fact not computed here")
        self.assertEqual(OUTCOMES["memorization.every-distribution"].summary,
                         "p2 > 0 at the 3 gaps checked, as at every finite gap (exp(t) > 0); at"
                         " gap 700 p2 = 9.860e-305, log p2 = -700.0")
        self.assertEqual(OUTCOMES["memorization.boundary-limits"].summary,
                         "p2 = eps within 0.48 ulp at the 9 eps checked, 1e-1 to 1e-300; never 0")
        self.assertIn("at the 7 and 9 points they check",
                      values("memorization.minor-repairable", "why")[0])
        self.assertNotIn("show numerically", values("memorization.minor-repairable", "why")[0])

    def test_underflow_says_it_is_this_suite_s_own_test(self):
        claim = [c for c in CLAIMS if c.id == "memorization.underflow"][0]
        self.assertIn("this suite's own test of the review's point", claim.statement)
        self.assertIn("the review's text does not discuss float underflow",
                      values("memorization.underflow", "whose")[0])

    def test_no_review_statement_is_quoted_as_the_paper_s(self):
        for claim in CLAIMS[1:]:
            self.assertIn(claim.whose, ("The review's own statement, in this suite's"
                                        " paraphrase",
                                        "This suite's own finding (stated by no paper or"
                                        " review)"))

    def test_the_statements_that_are_no_numbers_say_why(self):
        for claim in CLAIMS:
            if claim.expected == NOT_CHECKED and claim.id != "memorization.repaired":
                self.assertEqual([row.label for row in OUTCOMES[claim.id].evidence], ["why"])


class TestEvidence(unittest.TestCase):

    def test_interior_round_trip_worst_case(self):
        self.assertEqual(OUTCOMES["memorization.interior"].summary,
                         "softmax(log p) == p within 0.40 ulp for 7 interior p")

    def test_boundary_reaches_eps_1e_300(self):
        self.assertEqual(values("memorization.boundary-limits", "eps = 1e-300"),
                         ["gap 690.77552789821370521: p2 = 1e-300 (0.15 ulp from eps)"])

    def test_masking_rows(self):
        self.assertEqual(values("memorization.masking", "softmax([inf, 0])"),
                         ["[1.0, 0.0]; log_softmax [0.0, -inf]"])

    def test_an_infinite_logit_s_value_is_this_suite_s_convention(self):
        self.assertIn("[1.0, 0.0] at [inf, 0] is this suite's convention",
                      values("memorization.masking", "an infinite logit")[0])
        self.assertIn("the max-shifted formula gives [nan, nan] there (inf - inf is nan)",
                      values("memorization.masking", "an infinite logit")[0])
        self.assertTrue(OUTCOMES["memorization.masking"].summary.endswith(
            "softmax([inf, 0]) == [1.0, 0.0] by this suite's convention, the limit as"
            " z1 -> inf (the max-shifted formula gives nan)"))

    def test_underflow_is_said_of_finite_logits(self):
        [claim] = [c for c in CLAIMS if c.id == "memorization.underflow"]
        self.assertIn("with finite logits, a float softmax coordinate of 0.0 stands for a"
                      " positive value", claim.statement)
        self.assertEqual(values("memorization.underflow", "infinite logits"),
                         ["softmax([0, -inf])[1] = 0.0 stands for 0 exactly"
                          " (memorization.masking): the statement is about finite logits"])

    def test_underflow_rows(self):
        self.assertEqual(values("memorization.underflow", "gap 750: p2"),
                         ["0.0 (exact 1.9016849634750064400E-326)"])
        self.assertEqual(values("memorization.underflow", "naive at [710, 0]"),
                         ["[nan, 0.0]"])
        self.assertEqual(values("memorization.underflow", "softmax([745.13, 0])[1]"),
                         ["5e-324 (exact 2.4782932808827278844E-324; 0.50 ulp)"])
        self.assertEqual(values("memorization.underflow", "softmax([745.14, 0])[1]"),
                         ["0.0 (exact 2.4536338507196473037E-324; 0.50 ulp)"])


class TestRepaired(unittest.TestCase):

    def test_logits_are_finite_integers_at_the_zeros(self):
        z = approximating_logits((Fraction(7, 10), Fraction(3, 10), Fraction(0), Fraction(0)),
                                 300)
        self.assertEqual(z[0], 0)
        self.assertEqual(z[2:], (-693, -693))
        self.assertTrue(all(zi.is_finite() for zi in z))

    def test_the_softmax_of_the_logits_is_within_eps_checked_in_decimal(self):
        ctx = decimal.Context(prec=350)
        z = approximating_logits((Fraction(1), Fraction(0), Fraction(0)), 300)
        p2 = ctx.divide(ctx.exp(z[1]), ctx.add(1, ctx.multiply(2, ctx.exp(z[1]))))
        self.assertLess(p2, decimal.Decimal("1e-300"))
        self.assertGreater(p2, decimal.Decimal("1e-301"))

    def test_rows_give_the_logits_and_the_bound(self):
        self.assertEqual(values("memorization.repaired", "p = (1, 0), eps = 1e-300"),
                         ["z = (0, -692): max |softmax(z) - p| <= 2.94e-301"])
        self.assertEqual(values("memorization.repaired", "p = (1/2, 1/2, 0), eps = 1e-1"),
                         ["z = (0, 0, -3): max |softmax(z) - p| <= 2.43e-2"])

    def test_the_interior_refers_to_its_claim(self):
        self.assertEqual(values("memorization.repaired", "interior"),
                         ["memorization.interior: softmax(log p) == p within 0.40 ulp for 7"
                          " interior p"])


def overlap(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def label_boxes(root, ns):
    """The boxes of the upper panel's point labels (as wide as the layout
    reckons text: 0.68 of the size per character), rule labels and markers."""
    boxes = {"mark": [], "rule": [], "marker": []}
    for group in root.findall(".//svg:g[@class='mark']", ns):
        text = group.find("svg:text", ns)
        x, y, size = float(text.get("x")), float(text.get("y")), float(text.get("font-size"))
        boxes["mark"].append((x, y - size, x + len(text.text) * size * 0.68, y + 3))
        dot = group.find("svg:circle", ns)
        cx, cy = float(dot.get("cx")), float(dot.get("cy"))
        boxes["marker"].append((cx - 5, cy - 5, cx + 5, cy + 5))
    for group in root.findall(".//svg:g[@class='rule']", ns):
        text = group.find("svg:text", ns)
        x, y = float(text.get("x")), float(text.get("y"))
        boxes["rule"].append((x - 11, y, x + 2, y + len(text.text) * 11 * 0.68))
    for marker in root.findall(".//svg:g[@class='markers']/*", ns):
        if marker.get("cx") is not None:
            cx, cy = float(marker.get("cx")), float(marker.get("cy"))
        else:
            points = [tuple(map(float, p.split(","))) for p in marker.get("points").split()]
            cx = sum(p[0] for p in points) / len(points)
            cy = sum(p[1] for p in points) / len(points)
        if cy < 346:   # the upper panel
            boxes["marker"].append((cx - 5, cy - 5, cx + 5, cy + 5))
    return boxes


class TestPositivityFigure(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        # Drawn once (a tenth of a second a draw); no test changes the tree.
        cls.svg = draw_positivity()
        cls.root = ET.fromstring(cls.svg)
        cls.ns = {"svg": SVG_NAMESPACE}

    def texts(self, path):
        return [t.text for t in self.root.findall(path, self.ns)]

    def test_title_axes_and_legend(self):
        self.assertEqual(self.texts(".//svg:text[@class='title']"),
                         ["Softmax positivity: p2 = softmax([g, 0])[1] > 0 for every finite g"])
        self.assertEqual(self.texts(".//svg:text[@class='x-label']"),
                         ["logit gap g = z1 - z2 (nats)"])
        self.assertEqual(self.texts(".//svg:text[@class='y-label']"),
                         ["log10 p2 (decades)", "worst error (ulp)"])
        self.assertEqual(self.texts(".//svg:g[@class='legend']//svg:text"), [
            "exact (decimal, 40 digits)", "this suite, float64",
            "naive exp(z)/sum(exp(z)), float64"])

    def test_the_legend_gives_the_reference_s_own_digits(self):
        legend = self.texts(".//svg:g[@class='legend']//svg:text")
        self.assertEqual(legend[0], "exact (decimal, %d digits)" % REFERENCE_DIGITS)

    def test_each_series_has_its_own_marker(self):
        shapes = [m.get("class") for m in self.root.findall(".//svg:g[@class='legend']//*",
                                                            self.ns)
                  if (m.get("class") or "").startswith("marker")]
        self.assertEqual(shapes, ["marker circle", "marker square", "marker triangle"])

    def test_the_review_s_three_points_and_both_edges_are_marked(self):
        self.assertEqual(self.texts(".//svg:g[@class='mark']/svg:text"), [
            "g = 50: p2 = 1.93e-22", "g = 200: p2 = 1.38e-87", "g = 700: p2 = 9.86e-305"])
        self.assertEqual(self.texts(".//svg:g[@class='rule']/svg:text"),
                         ["g > 709.7827: exp(g) overflows", "g > 745.1332: float p2 = 0.0"])

    def test_float_series_stop_where_floats_give_out(self):
        last_x = [float(s.findall("svg:polyline", self.ns)[-1].get("points").split()[-1]
                        .split(",")[0])
                  for s in self.root.findall(".//svg:g[@class='series']", self.ns)]
        # Upper panel: g = 1000, the last float below 1075 ln 2 (p2 = 5e-324) and
        # the last float below ln(2**1024 - 2**970); the lower panel: the suite's
        # error until its p2 is 0.0 (a 100% relative error, which "0 ulp"
        # would hide), the naive one's until its p1 is nan.
        self.assertEqual(last_x, [582.0, 453.55, 435.73, 453.55, 435.73])

    def test_where_the_float_p2_is_0_a_band_says_100_percent_relative_error(self):
        bands = self.root.findall(".//svg:g[@class='band']", self.ns)
        self.assertEqual(len(bands), 2)   # one per panel, from 1075 ln 2 to g = 1000
        for band in bands:
            shade = band.find("svg:rect", self.ns)
            self.assertEqual((shade.get("x"), shade.get("width")), ("453.55", "128.45"))
        self.assertEqual([t.text for t in bands[1].findall("svg:text", self.ns)],
                         ["float p2 = 0.0:", "100% relative error"])

    def test_the_lower_panel_s_series_are_apart_at_every_step(self):
        # Worst error per 50 of g: the suite's never above 0.5 ulp, the naive
        # formula's never below 0.6, so the two steps never touch.
        from reviews.papers.memorization_problem import (
            _FIGURE_GAPS, EXP_OVERFLOW_EXACT, P2_UNDERFLOW_EXACT, _below, _worst_errors)
        from reviews.rounded import softmax, softmax_exact, softmax_naive
        exact = {g: softmax_exact([g, 0])[1] for g in _FIGURE_GAPS}
        suite = _worst_errors(_FIGURE_GAPS, {g: softmax([g, 0]) for g in _FIGURE_GAPS}, exact)
        naive = _worst_errors(_FIGURE_GAPS, {g: softmax_naive([g, 0]) for g in _FIGURE_GAPS},
                              exact)
        self.assertLessEqual(max(e for _, e in suite), 0.5)
        self.assertGreater(min(e for _, e in naive), 0.6)
        self.assertEqual((suite[-1][0], naive[-1][0]),
                         (_below(P2_UNDERFLOW_EXACT), _below(EXP_OVERFLOW_EXACT)))

    def test_no_label_touches_the_frame_a_marker_or_another_label(self):
        boxes = label_boxes(self.root, self.ns)
        plot = (78, 46, 582, 346)
        for box in boxes["mark"]:
            self.assertTrue(plot[0] + 3 <= box[0] and box[2] <= plot[2] - 3
                            and plot[1] + 3 <= box[1] and box[3] <= plot[3] - 3, box)
            for other in boxes["marker"] + boxes["rule"] + [b for b in boxes["mark"]
                                                            if b is not box]:
                self.assertFalse(overlap(box, other), (box, other))

    def test_the_second_threshold_label_stands_outside_the_gap_between_the_lines(self):
        rules = self.root.findall(".//svg:g[@class='rule']", self.ns)
        sides = [float(r.find("svg:text", self.ns).get("x"))
                 - float(r.find("svg:line", self.ns).get("x1")) for r in rules]
        self.assertEqual([side > 0 for side in sides], [False, True])

    def test_the_edges_are_exact_in_the_evidence(self):
        self.assertEqual(values("memorization.underflow", "exp(g) overflows for g >"), [
            "ln(2**1024 - 2**970) = 709.782712893383996787734541142; naive at"
            " [709.782712893384, 0]: [1.0, 5.562684646268137e-309], at"
            " [709.7827128933841, 0]: [nan, 0.0]"])
        self.assertEqual(values("memorization.underflow", "float p2 = 0.0 for g >"), [
            "1075 ln 2 = 745.133219101941207623524530568; softmax([745.1332191019411, 0])[1]"
            " = 5e-324, softmax([745.1332191019412, 0])[1] = 0.0"])

    def test_two_draws_give_identical_bytes(self):
        self.assertEqual(self.svg, draw_positivity())

    def test_the_caption_gives_the_naive_formula_s_worst_as_a_sample_not_a_bound(self):
        # Off the grid of 5 the naive formula is 2.25 ulp off, over its 1.21
        # at the gaps drawn; this suite's p2 is correctly rounded everywhere.
        from reviews.papers.memorization_problem import (OFF_GRID_GAP, positivity_description,
                                                         positivity_errors)
        from reviews.rounded import softmax_exact, softmax_naive, ulp_distance
        ours, _, theirs, drawn, off_grid = positivity_errors()
        self.assertEqual([round(float(v), 2) for v in (ours, theirs, off_grid)],
                         [0.5, 1.21, 2.25])
        self.assertLessEqual(ours, 0.5)
        self.assertEqual(drawn, 143)
        self.assertEqual(off_grid, ulp_distance(softmax_naive([OFF_GRID_GAP, 0])[1],
                                                softmax_exact([OFF_GRID_GAP, 0])[1]))
        caption = positivity_description()
        self.assertIn("the naive formula's worst at the 143 gaps drawn (every 5 of g up to the"
                      " overflow) is 1.21 ulp, not a bound: at g = 36.74634400389438, between"
                      " them, it is 2.25 ulp off", caption)
        self.assertNotIn("within 1.21", caption)
        with open(os.path.join(ROOT, "docs", "claims.md"), encoding="utf-8") as handle:
            self.assertIn("the naive formula 0.6 to 1.21 there, a sample and not a bound (at"
                          " g = 36.74634400389438, between two gaps drawn, it is 2.25 ulp off;",
                          handle.read())


if __name__ == "__main__":
    unittest.main()
