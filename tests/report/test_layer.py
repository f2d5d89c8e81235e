"""Tests of reviews.report.layer: a checked layer as text, markdown and JSON."""

import json
import unittest
from fractions import Fraction as F

from reviews.argmax.kernels.witness import Witness
from reviews.argmax.question import Question
from reviews.argmax.result import ClassResult
from reviews.record import LayerReport
from reviews.report.layer import LAYER_FORMATS, layer_json, layer_markdown, layer_text

# Sparse results with no number of classes: a renderer that asked for the
# dense combination would raise.
TINY = F(1, 10 ** 4400)
LAYER = [
    ClassResult(0, True, (F(1, 2), F(-3))),
    ClassResult(1, False, None, ((0, F(1, 3)), (7, F(2, 3)))),
    ClassResult(2, False, None, ((0, 1 - TINY), (1, TINY))),
    ClassResult(3, False, None, ((2, F(1)),)),
]


def combination_line(terms):
    """The text line of class 9 whose combination has ``terms``."""
    report = layer_text(LayerReport("w.csv", [ClassResult(9, False, None, terms)], 1, False))
    return next(line for line in report.splitlines() if line.startswith("  class 9: "))


class TestLayerText(unittest.TestCase):

    def test_whole_text_without_bias(self):
        self.assertEqual(layer_text(LayerReport("w.csv", LAYER, 2, False)).splitlines(), [
            "w.csv: 4 classes, d = 2, no bias; classes numbered from 0",
            "Unargmaxable classes: each one's weights w[i] are a convex combination of",
            "other classes' weights, so its logit is the same weighted mean of theirs for",
            "every input, never strictly the largest.",
            "  class 1: w[1] = 0.333333*w[0] + 0.666667*w[7]",
            "  class 2: w[2] = 1.00000*w[0] + 1e-4400*w[1]",
            "  class 3: w[3] = w[2]",
            "3 of 4 classes unargmaxable, 1 argmaxable.",
            "Coefficients to 6 significant digits. Exact values and witnesses: --format json",
        ])

    def test_with_a_bias_the_text_says_what_the_combination_means_for_it(self):
        report = layer_text(LayerReport("w.csv", LAYER, 2, True))
        self.assertTrue(report.startswith(
            "w.csv: 4 classes, d = 2, with bias; classes numbered from 0\n"
            "Unargmaxable classes: each one's weights w[i] are a convex combination of\n"
            "other classes' weights and its bias b[i] is at most the same combination of\n"
            "their biases, so its logit is at most that weighted mean of theirs for every\n"
            "input, never strictly the largest.\n"), report)

    def test_every_class_argmaxable_leaves_only_the_count(self):
        report = layer_text(LayerReport("w.csv", [ClassResult(0, True, (F(1),))], 1, False))
        self.assertEqual(report, "w.csv: 1 class, d = 1, no bias; classes numbered from 0\n"
                                 "0 of 1 class unargmaxable, 1 argmaxable.\n"
                                 "Exact witnesses: --format json\n")

    def test_coefficients_are_correctly_rounded_from_the_exact_value(self):
        # float(x) of the first is the float below the tie 0.1234565, which
        # '%.6g' rounds down; the exact value is above it.
        above = F(1234565, 10 ** 7) + F(1, 10 ** 40)
        self.assertEqual("%.6g" % float(above), "0.123456")
        self.assertEqual(combination_line(((0, above), (1, 1 - above))),
                         "  class 9: w[9] = 0.123457*w[0] + 0.876543*w[1]")

    def test_an_exact_tie_rounds_half_to_even(self):
        self.assertEqual(combination_line(((0, F(1234565, 10 ** 7)), (1, F(8765435, 10 ** 7)))),
                         "  class 9: w[9] = 0.123456*w[0] + 0.876544*w[1]")

    def test_six_significant_digits_keep_trailing_zeros_and_exact_decimals_are_short(self):
        self.assertEqual(combination_line(((0, F(61, 145)), (1, F(1, 4)), (2, F(95, 290)))),
                         "  class 9: w[9] = 0.420690*w[0] + 0.25*w[1] + 0.327586*w[2]")

    def test_a_coefficient_just_below_1_is_not_shown_as_exactly_1(self):
        self.assertEqual(combination_line(((0, 1 - TINY), (1, TINY))),
                         "  class 9: w[9] = 1.00000*w[0] + 1e-4400*w[1]")

    def test_text_is_ascii(self):
        self.assertTrue(layer_text(LayerReport("w.csv", LAYER, 2, True)).isascii())


class TestLayerMarkdown(unittest.TestCase):

    def test_whole_markdown(self):
        self.assertEqual(layer_markdown(LayerReport("w.csv", LAYER[:2], 2, False)).splitlines(), [
            "### check-layer `w.csv`",
            "",
            "2 classes, d = 2, no bias; classes numbered from 0.",
            "",
            "Unargmaxable classes: each one's weights w[i] are a convex combination of other"
            " classes' weights, so its logit is the same weighted mean of theirs for every"
            " input, never strictly the largest.",
            "",
            "| Class | Combination (coefficients to 6 significant digits) |",
            "| ---: | --- |",
            "| 1 | `w[1] = 0.333333*w[0] + 0.666667*w[7]` |",
            "",
            "1 of 2 classes unargmaxable, 1 argmaxable. Exact values and witnesses:"
            " `--format json`.",
        ])

    def test_no_table_when_every_class_is_argmaxable(self):
        self.assertEqual(layer_markdown(LayerReport("w.csv", LAYER[:1], 2, False)),
                         "### check-layer `w.csv`\n\n"
                         "1 class, d = 2, no bias; classes numbered from 0.\n\n"
                         "0 of 1 class unargmaxable, 1 argmaxable. Exact witnesses:"
                         " `--format json`.\n")

    def test_a_file_name_with_backticks_stays_one_code_span(self):
        for name, span in (("a`b``.csv", "```a`b``.csv```"), ("`w.csv", "`` `w.csv ``")):
            with self.subTest(name=name):
                heading = layer_markdown(LayerReport(name, LAYER[:1], 2, False)).splitlines()[0]
                self.assertEqual(heading, "### check-layer " + span)

    def test_markdown_names_the_bias(self):
        self.assertIn("\n2 classes, d = 2, with bias; classes numbered from 0.\n",
                      layer_markdown(LayerReport("w.csv", LAYER[:2], 2, True)))


class TestLayerJson(unittest.TestCase):

    def test_every_exact_value_has_its_approximation_beside_it(self):
        document = json.loads(layer_json(LayerReport("w.csv", LAYER, 2, False)))
        self.assertEqual(document, {
            "file": "w.csv", "classes": 4, "asked": "0:4", "dim": 2, "bias": False, "box": None,
            "numbered_from": 0,
            "unargmaxable": [1, 2, 3], "tolerance": "0", "certificates": "all",
            "results": [
                {"index": 0, "argmaxable": True, "witness": [["1/2", "0.5"], ["-3", "-3"]]},
                {"index": 1, "argmaxable": False,
                 "terms": [[0, "1/3", "0.333333"], [7, "2/3", "0.666667"]]},
                {"index": 2, "argmaxable": False,
                 "terms": [[0, "9" * 4400 + "/1e4400", "1.00000"],
                           [1, "1/1e4400", "1e-4400"]]},
                {"index": 3, "argmaxable": False, "terms": [[2, "1", "1"]]},
            ],
        })

    def test_keys_in_order(self):
        self.assertEqual(list(json.loads(layer_json(LayerReport("w.csv", LAYER, 2, True)))),
                         ["file", "classes", "asked", "dim", "bias", "box", "numbered_from",
                          "unargmaxable", "tolerance", "certificates", "results"])

    def test_witness_approximations_are_rounded_to_6_digits(self):
        result = ClassResult(0, True, (F(10 ** 12 + 7), F(-2, 3), F(0)))
        document = json.loads(layer_json(LayerReport("w.csv", [result], 3, False)))
        self.assertEqual(document["results"][0]["witness"],
                         [["1000000000007", "1.00000e+12"], ["-2/3", "-0.666667"], ["0", "0"]])

    def test_a_witness_of_numerators_over_a_denominator_is_written_as_its_fractions(self):
        sparse = ClassResult(0, True, Witness((0, -4, 0, 3), 6))
        dense = ClassResult(0, True, (F(0), F(-2, 3), F(0), F(1, 2)))
        written = [json.loads(layer_json(LayerReport("w.csv", [result], 4, False)))
                   for result in (sparse, dense)]
        self.assertEqual(written[0], written[1])
        self.assertEqual(written[0]["results"][0]["witness"],
                         [["0", "0"], ["-2/3", "-0.666667"], ["0", "0"], ["1/2", "0.5"]])


class TestLayerTokens(unittest.TestCase):

    HOSTILE = "x\n<img src=x onerror=alert(1)>|`\u202e"

    def test_text_names_each_class_by_its_token_on_one_line(self):
        report = layer_text(LayerReport("w.csv", LAYER, 2, False, tokens={1: "\u0120the", 2: self.HOSTILE}))
        self.assertIn("  class 1 '\u0120the': w[1] = ", report)
        self.assertIn("  class 2 'x\\n<img src=x onerror=alert(1)>|`\\u202e': w[2] = ", report)
        self.assertIn("  class 3 (no token): w[3] = w[2]", report)
        self.assertEqual(len(report.splitlines()), len(layer_text(LayerReport("w.csv", LAYER, 2,
                                                                  False)).splitlines()))

    def test_markdown_puts_the_token_in_a_code_span_of_its_own_cell(self):
        report = layer_markdown(LayerReport("w.csv", LAYER, 2, False, tokens={2: self.HOSTILE}))
        self.assertIn("| Class | Token | Combination", report)
        row = next(line for line in report.splitlines() if line.startswith("| 2 |"))
        self.assertEqual(row, "| 2 | ``'x\\n<img src=x onerror=alert(1)>\\|`\\u202e'`` |"
                              " `w[2] = 1.00000*w[0] + 1e-4400*w[1]` |")
        self.assertIn("| 1 | (no token) |", report)

    def test_json_has_a_token_per_result_null_for_none(self):
        document = json.loads(layer_json(LayerReport("w.csv", LAYER, 2, False, tokens={0: self.HOSTILE})))
        self.assertEqual([r["token"] for r in document["results"]],
                         [self.HOSTILE, None, None, None])
        self.assertNotIn("token", json.loads(layer_json(LayerReport("w.csv", LAYER, 2, False)))["results"][0])


class TestLayerMasked(unittest.TestCase):

    RESULTS = [ClassResult(0, True, (F(1),)), ClassResult(1, False, masked=True)]

    def test_text_and_markdown_say_masked_and_count_it(self):
        report = layer_text(LayerReport("w.csv", self.RESULTS, 1, True))
        self.assertIn("\n  class 1: masked: b[1] = -inf\n", report)
        self.assertIn("\n1 of 2 classes unargmaxable (1 masked by a bias of -inf: the others"
                      " are decided without it), 1 argmaxable.\n", report)
        self.assertIn("| 1 | `masked: b[1] = -inf` |", layer_markdown(LayerReport("w.csv", self.RESULTS, 1, True)))

    def test_masked_classes_alone_are_not_called_convex_combinations(self):
        report = layer_text(LayerReport("w.csv", self.RESULTS, 1, True))
        self.assertIn("Unargmaxable classes, each masked by a bias of -inf: its logit is -inf",
                      report)
        self.assertNotIn("convex combination", report)
        self.assertNotIn("Coefficients", report)
        self.assertTrue(report.endswith("\nExact values and witnesses: --format json\n"))
        markdown = layer_markdown(LayerReport("w.csv", self.RESULTS, 1, True))
        self.assertIn("| Class | Certificate |", markdown)
        self.assertNotIn("convex combination", markdown)

    def test_masked_classes_beside_combinations_are_said_to_be_masked(self):
        results = self.RESULTS + [ClassResult(2, False, None, ((0, F(1)),))]
        report = layer_text(LayerReport("w.csv", results, 1, True))
        self.assertIn("convex combination", report)
        self.assertIn("A masked class (b[i] = -inf) has the logit\n-inf at every input.", report)

    def test_json_marks_it_masked(self):
        document = json.loads(layer_json(LayerReport("w.csv", self.RESULTS, 1, True)))
        self.assertEqual(document["results"][1], {"index": 1, "argmaxable": False, "masked": True})
        self.assertEqual(document["unargmaxable"], [1])


class TestLayerFormats(unittest.TestCase):

    def test_every_layer_format_is_ascii_and_ends_with_a_newline(self):
        self.assertEqual(sorted(LAYER_FORMATS), ["json", "markdown", "text"])
        for name, render in LAYER_FORMATS.items():
            with self.subTest(name=name):
                report = render(LayerReport("w.csv", LAYER, 2, True))
                self.assertTrue(report.isascii() and report.endswith("\n"))


if __name__ == "__main__":
    unittest.main()


class TestQuestionShownExactly(unittest.TestCase):
    # A report quotes the question it answered: T = 0.9999999 and 1.0000001
    # give different verdicts, so neither may print as 1.00000.

    def test_the_tolerance_and_the_box_print_exactly(self):
        for tolerance, box in ((F(9999999, 10 ** 7), F(1234567891, 10 ** 10)),
                               (F(10000001, 10 ** 7), F(100000001))):
            result = ClassResult(0, True, (F(0),), question=Question(box, tolerance))
            header = layer_text(LayerReport("w.csv", [result], 1, True)).splitlines()[0]
            self.assertIn("|x_k| <= %s; tolerance %s (" % (
                "0.1234567891" if box < 1 else "100000001",
                "0.9999999" if tolerance < 1 else "1.0000001"), header)

    def test_a_tolerance_without_a_finite_decimal_is_a_fraction(self):
        result = ClassResult(0, True, (F(0),), question=Question(tolerance=F(1, 3)))
        self.assertIn("; tolerance 1/3 (", layer_text(LayerReport("w.csv", [result], 1, True)))
