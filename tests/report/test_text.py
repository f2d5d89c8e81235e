"""Tests of reviews.report.text: the three formats, on claims of a made-up paper."""

import json
import re
import unittest
from html.parser import HTMLParser
from fractions import Fraction as F

from reviews.argmax.check import ClassResult
from reviews.claims import BY_REVIEW, FAIL, PASS, Claim, Outcome, Paper, Row, run
from reviews.report.svg import Arrow, Axis, region_map
from reviews.report.html import html
from reviews.report.text import (FORMATS, LAYER_FORMATS, Drawn, Suite, as_json, layer_json,
                            layer_markdown, layer_text, markdown, text)

PAPER = Paper("A Paper", ("Doe", "Roe"), 2024, "2401.00001")
SUITE = Suite("suite", "9.9", "3.x")


def results(verdict_of_second=PASS):
    return run([
        Claim("p.one", PAPER, "Section 1", "One | two.", FAIL,
              lambda: Outcome(FAIL, "x = 1", (Row("x", "1"), Row("long label", "2")))),
        Claim("p.two", PAPER, "Appendix B", "Three.", PASS,
              lambda: Outcome(verdict_of_second, "y = 3", ()), source=BY_REVIEW),
    ])


class TestText(unittest.TestCase):

    def test_exact_text(self):
        self.assertEqual(text(SUITE, results()), "\n".join([
            "suite 9.9 (Python 3.x)",
            "",
            "FAIL        p.one",
            "    A Paper (Doe, Roe 2024), arXiv:2401.00001, Section 1",
            "    The paper's claim: One | two.",
            "    Review states: FAIL",
            "    Found: x = 1",
            "      x           1",
            "      long label  2",
            "",
            "PASS        p.two",
            "    A Paper (Doe, Roe 2024), arXiv:2401.00001, Appendix B",
            "    The review's own statement: Three.",
            "    Review states: PASS",
            "    Found: y = 3",
            "",
            "2 claims: 2 as the review states, 0 MISMATCH",
            "",
        ]))

    def test_mismatch_line(self):
        report = text(SUITE, results(FAIL))
        self.assertIn("    MISMATCH: verdict FAIL, the review states PASS\n", report)
        self.assertTrue(report.endswith("2 claims: 1 as the review states, 1 MISMATCH\n"))


class TestMarkdown(unittest.TestCase):

    def test_the_version_line_comes_first(self):
        self.assertTrue(markdown(SUITE, results()).startswith("## suite 9.9 (Python 3.x)\n\n"))

    def test_one_claim_is_not_claims(self):
        self.assertIn("\n1 claim: 1 as the review states, 0 MISMATCH\n",
                      markdown(SUITE, results()[:1]))

    def test_table_row_escapes_pipes(self):
        self.assertIn("| `p.one` | arXiv:2401.00001 Section 1 | paper | One \\| two. | FAIL | x = 1 |",
                      markdown(SUITE, results()))

    def test_one_verdict_column_says_whose_statement_it_is(self):
        report = markdown(SUITE, results())
        self.assertIn("| Claim | Where | Statement by | Statement | Verdict | Key numbers |", report)
        self.assertIn("| `p.two` | arXiv:2401.00001 Appendix B | review | Three. | PASS | y = 3 |",
                      report)
        self.assertIn("Appendix B. The review's own statement:\n\n> Three.\n", report)
        self.assertIn("Section 1. The paper's claim:\n\n> One | two.\n", report)

    def test_mismatch_is_marked_in_the_table(self):
        report = markdown(SUITE, results(FAIL))
        self.assertIn("| Three. | **FAIL (MISMATCH: the review states PASS)** | y = 3 |", report)
        self.assertIn("### `p.two`: FAIL (MISMATCH: the review states PASS)\n", report)

    def test_evidence_follows_the_table(self):
        report = markdown(SUITE, results())
        self.assertLess(report.index("| `p.two`"), report.index("### `p.one`: FAIL"))
        self.assertIn("- long label: `2`", report)


class TestFigures(unittest.TestCase):

    FIGURES = {"p.two": [Drawn("a.svg", "A line that rises.", "<svg/>", "out/a.svg"),
                         Drawn("b.svg", None, "<svg/>", None)]}

    def test_text_names_the_written_figure_under_its_claim(self):
        report = text(SUITE, results(), self.FIGURES)
        self.assertIn("    Found: y = 3\n    Figure: out/a.svg\n\n", report)
        self.assertNotIn("b.svg", report)

    def test_markdown_alt_text_says_what_the_figure_shows(self):
        report = markdown(SUITE, results(), self.FIGURES)
        section = report[report.index("### `p.two`"):]
        self.assertIn("Figure `out/a.svg`: A line that rises.\n\n"
                      "![A line that rises.](out/a.svg)\n", section)
        self.assertNotIn("a.svg", report[:report.index("### `p.two`")])
        self.assertNotIn("b.svg", report)

    def test_markdown_alt_text_without_a_description_names_the_figure(self):
        figures = {"p.two": [Drawn("a.svg", None, "<svg/>", "a b/a.svg")]}
        self.assertIn("![Figure a.svg of claim p.two](a%20b/a.svg)",
                      markdown(SUITE, results(), figures))

    def test_json_lists_written_figures_per_claim(self):
        claims = json.loads(as_json(SUITE, results(), self.FIGURES))["claims"]
        self.assertEqual([c["figures"] for c in claims], [[], ["out/a.svg"]])


class _Page(HTMLParser):
    """Parses a page, checking that every element closes in order."""

    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self, page):
        super().__init__()
        self.open, self.errors, self.tags, self.attributes, self.data = [], [], [], [], []
        self.feed(page)
        self.close()
        self.errors += ["<%s> never closed" % tag for tag in self.open]

    def handle_starttag(self, tag, attributes):
        self.handle_startendtag(tag, attributes)
        if tag not in self.VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attributes):
        self.tags.append(tag)
        self.attributes += attributes

    def handle_endtag(self, tag):
        if not self.open or self.open.pop() != tag:
            self.errors.append("</%s> closes nothing open" % tag)

    def handle_data(self, data):
        self.data.append(data)

    def values(self, name):
        return [value for key, value in self.attributes if key == name]


def _region_svg(title):
    return region_map(title, Axis("x", -1, 1, 1), Axis("y", -1, 1, 1),
                      [("r", [(0, 0), (1, 0), (1, 1)])], [Arrow("a", (1, 1), None)],
                      [(0, 0), (1, 0), (1, 1)], "caption")


class TestHtml(unittest.TestCase):

    FIGURES = {"p.one": [Drawn("one.svg", "First map.", _region_svg("Map one"), "figs/one.svg")],
               "p.two": [Drawn("two.svg", "Second map.", _region_svg("Map two"), None)]}

    def page(self, verdict_of_second=PASS):
        return _Page(html(SUITE, results(verdict_of_second), self.FIGURES))

    def test_parses_and_every_element_closes(self):
        self.assertEqual(self.page().errors, [])

    def test_version_line_every_claim_and_every_figure_are_there(self):
        page = self.page()
        self.assertIn("suite 9.9 (Python 3.x)", page.data)
        self.assertEqual([v for v in page.values("id") if v.startswith("claim-")],
                         ["claim-p.one", "claim-p.two"])
        self.assertEqual([v for v in page.values("href") if v.startswith("#")],
                         ["#claim-p.one", "#claim-p.two"])
        self.assertEqual(page.tags.count("svg"), 2)
        self.assertIn("Map one", page.data)
        self.assertIn("Map two", page.data)
        self.assertIn("figs/one.svg", page.data)

    def test_figures_have_their_description_as_label(self):
        self.assertEqual(self.page().values("aria-label"), ["First map.", "Second map."])

    def test_no_script_link_iframe_or_external_url(self):
        page = self.page()
        report = html(SUITE, results(), self.FIGURES)
        for tag in ("script", "link", "iframe", "img", "object", "embed"):
            self.assertNotIn(tag, page.tags)
        self.assertNotIn("@import", report)
        self.assertNotIn("url(http", report)
        # The only links that leave the page go to a paper's arXiv abstract (not fetched).
        outside = [v for v in page.values("href") if not v.startswith("#")]
        self.assertEqual(set(outside), {"https://arxiv.org/abs/2401.00001"})
        self.assertEqual(report.count("://"), len(outside))
        for name in ("src", "xlink:href"):
            self.assertTrue(all(v.startswith("#") for v in page.values(name)), name)

    def test_arxiv_ids_link_to_the_paper_in_the_table_and_each_section(self):
        report = html(SUITE, results(), self.FIGURES)
        link = '<a href="https://arxiv.org/abs/2401.00001">arXiv:2401.00001</a>'
        self.assertEqual(report.count(link), 4)
        self.assertIn("A Paper (Doe, Roe 2024), %s, Appendix B." % link, report)

    def test_ids_are_unique_across_inline_figures(self):
        ids = self.page().values("id")
        self.assertEqual(len(ids), len(set(ids)))
        report = html(SUITE, results(), self.FIGURES)
        for clip in re.findall(r"url\(#([^)]+)\)", report):
            self.assertIn('id="%s"' % clip, report)

    def test_text_is_escaped(self):
        claim = Claim("p.<x>", PAPER, "S", "a < b & <script>", PASS,
                      lambda: Outcome(PASS, "<i>", (Row("<", ">"),)))
        page = _Page(html(SUITE, run([claim])))
        self.assertEqual(page.errors, [])
        self.assertNotIn("script", page.tags)
        self.assertNotIn("i", page.tags)
        self.assertIn("a < b & <script>", page.data)

    def test_whose_statement_shows_in_the_table_and_the_section(self):
        page = self.page()
        self.assertIn("by the paper", page.data)
        self.assertIn("by the review", page.data)
        self.assertIn(", Appendix B. The review's own statement:", page.data)

    def test_a_mismatch_is_marked(self):
        page = self.page(FAIL)
        self.assertIn("FAIL (MISMATCH: the review states PASS)", page.data)
        self.assertIn("MISMATCH: verdict FAIL, the review states PASS", page.data)

    def test_ascii_and_evidence_tables_scroll_inside_a_box(self):
        report = html(SUITE, results(), self.FIGURES)
        self.assertTrue(report.isascii())
        self.assertIn(".scroll{overflow-x:auto", report)
        self.assertEqual(report.count('<div class="scroll"><table class="evidence">'), 1)

    def test_on_a_narrow_screen_claims_stack_each_cell_under_its_column_name(self):
        # Checked in headless Chromium at 600 px: no element wider than the page.
        report = html(SUITE, results(), self.FIGURES)
        self.assertIn("@media (max-width:760px){\ntable.claims,table.claims tbody,"
                      "table.claims tr,table.claims td{display:block}", report)
        self.assertIn("table.claims thead{display:none}", report)
        self.assertNotIn("min-width:40em", report)
        labels = self.page().values("data-label")
        self.assertEqual(labels, ["Claim (where)", "Statement (by)", "Verdict",
                                  "Key numbers"] * 2)


class TestJson(unittest.TestCase):

    def test_stable_keys(self):
        document = json.loads(as_json(SUITE, results()))
        self.assertEqual(list(document), ["suite", "python", "ok", "claims"])
        self.assertEqual(document["suite"], {"name": "suite", "version": "9.9"})
        self.assertIs(document["ok"], True)
        self.assertEqual(document["claims"][0], {
            "id": "p.one",
            "paper": {"title": "A Paper", "authors": ["Doe", "Roe"], "year": 2024,
                      "arxiv": "2401.00001"},
            "where": "Section 1",
            "statement": "One | two.",
            "source": "paper",
            "expected": "FAIL",
            "verdict": "FAIL",
            "matches": True,
            "summary": "x = 1",
            "evidence": [{"label": "x", "value": "1"}, {"label": "long label", "value": "2"}],
            "figures": [],
        })

    def test_ok_is_false_on_a_mismatch(self):
        self.assertIs(json.loads(as_json(SUITE, results(FAIL)))["ok"], False)

    def test_every_format_is_ascii_and_ends_with_a_newline(self):
        for name, render in FORMATS.items():
            with self.subTest(name=name):
                report = render(SUITE, results())
                self.assertTrue(report.isascii() and report.endswith("\n"))


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
    report = layer_text("w.csv", [ClassResult(9, False, None, terms)], 1, False)
    return next(line for line in report.splitlines() if line.startswith("  class 9: "))


class TestLayerText(unittest.TestCase):

    def test_whole_text_without_bias(self):
        self.assertEqual(layer_text("w.csv", LAYER, 2, False).splitlines(), [
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
        report = layer_text("w.csv", LAYER, 2, True)
        self.assertTrue(report.startswith(
            "w.csv: 4 classes, d = 2, with bias; classes numbered from 0\n"
            "Unargmaxable classes: each one's weights w[i] are a convex combination of\n"
            "other classes' weights and its bias b[i] is at most the same combination of\n"
            "their biases, so its logit is at most that weighted mean of theirs for every\n"
            "input, never strictly the largest.\n"), report)

    def test_every_class_argmaxable_leaves_only_the_count(self):
        report = layer_text("w.csv", [ClassResult(0, True, (F(1),))], 1, False)
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
        self.assertTrue(layer_text("w.csv", LAYER, 2, True).isascii())


class TestLayerMarkdown(unittest.TestCase):

    def test_whole_markdown(self):
        self.assertEqual(layer_markdown("w.csv", LAYER[:2], 2, False).splitlines(), [
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
        self.assertEqual(layer_markdown("w.csv", LAYER[:1], 2, False),
                         "### check-layer `w.csv`\n\n"
                         "1 class, d = 2, no bias; classes numbered from 0.\n\n"
                         "0 of 1 class unargmaxable, 1 argmaxable. Exact witnesses:"
                         " `--format json`.\n")

    def test_a_file_name_with_backticks_stays_one_code_span(self):
        for name, span in (("a`b``.csv", "```a`b``.csv```"), ("`w.csv", "`` `w.csv ``")):
            with self.subTest(name=name):
                heading = layer_markdown(name, LAYER[:1], 2, False).splitlines()[0]
                self.assertEqual(heading, "### check-layer " + span)

    def test_markdown_names_the_bias(self):
        self.assertIn("\n2 classes, d = 2, with bias; classes numbered from 0.\n",
                      layer_markdown("w.csv", LAYER[:2], 2, True))


class TestLayerJson(unittest.TestCase):

    def test_every_exact_value_has_its_approximation_beside_it(self):
        document = json.loads(layer_json("w.csv", LAYER, 2, False))
        self.assertEqual(document, {
            "file": "w.csv", "classes": 4, "dim": 2, "bias": False, "box": None,
            "numbered_from": 0,
            "unargmaxable": [1, 2, 3], "certificates": "all",
            "results": [
                {"index": 0, "argmaxable": True, "witness": [["1/2", "0.5"], ["-3", "-3"]]},
                {"index": 1, "argmaxable": False,
                 "terms": [[0, "1/3", "0.333333"], [7, "2/3", "0.666667"]]},
                {"index": 2, "argmaxable": False,
                 "terms": [[0, "9" * 4400 + "/1" + "0" * 4400, "1.00000"],
                           [1, "1/1" + "0" * 4400, "1e-4400"]]},
                {"index": 3, "argmaxable": False, "terms": [[2, "1", "1"]]},
            ],
        })

    def test_keys_in_order(self):
        self.assertEqual(list(json.loads(layer_json("w.csv", LAYER, 2, True))),
                         ["file", "classes", "dim", "bias", "box", "numbered_from",
                          "unargmaxable", "certificates", "results"])

    def test_witness_approximations_are_rounded_to_6_digits(self):
        result = ClassResult(0, True, (F(10 ** 12 + 7), F(-2, 3), F(0)))
        document = json.loads(layer_json("w.csv", [result], 3, False))
        self.assertEqual(document["results"][0]["witness"],
                         [["1000000000007", "1.00000e+12"], ["-2/3", "-0.666667"], ["0", "0"]])


class TestLayerTokens(unittest.TestCase):

    HOSTILE = "x\n<img src=x onerror=alert(1)>|`\u202e"

    def test_text_names_each_class_by_its_token_on_one_line(self):
        report = layer_text("w.csv", LAYER, 2, False, tokens={1: "\u0120the", 2: self.HOSTILE})
        self.assertIn("  class 1 '\u0120the': w[1] = ", report)
        self.assertIn("  class 2 'x\\n<img src=x onerror=alert(1)>|`\\u202e': w[2] = ", report)
        self.assertIn("  class 3 (no token): w[3] = w[2]", report)
        self.assertEqual(len(report.splitlines()), len(layer_text("w.csv", LAYER, 2,
                                                                  False).splitlines()))

    def test_markdown_puts_the_token_in_a_code_span_of_its_own_cell(self):
        report = layer_markdown("w.csv", LAYER, 2, False, tokens={2: self.HOSTILE})
        self.assertIn("| Class | Token | Combination", report)
        row = next(line for line in report.splitlines() if line.startswith("| 2 |"))
        self.assertEqual(row, "| 2 | ``'x\\n<img src=x onerror=alert(1)>\\|`\\u202e'`` |"
                              " `w[2] = 1.00000*w[0] + 1e-4400*w[1]` |")
        self.assertIn("| 1 | (no token) |", report)

    def test_json_has_a_token_per_result_null_for_none(self):
        document = json.loads(layer_json("w.csv", LAYER, 2, False, tokens={0: self.HOSTILE}))
        self.assertEqual([r["token"] for r in document["results"]],
                         [self.HOSTILE, None, None, None])
        self.assertNotIn("token", json.loads(layer_json("w.csv", LAYER, 2, False))["results"][0])


class TestLayerMasked(unittest.TestCase):

    RESULTS = [ClassResult(0, True, (F(1),)), ClassResult(1, False, masked=True)]

    def test_text_and_markdown_say_masked_and_count_it(self):
        report = layer_text("w.csv", self.RESULTS, 1, True)
        self.assertIn("\n  class 1: masked: b[1] = -inf\n", report)
        self.assertIn("\n1 of 2 classes unargmaxable (1 masked by a bias of -inf: the others"
                      " are decided without it), 1 argmaxable.\n", report)
        self.assertIn("| 1 | `masked: b[1] = -inf` |", layer_markdown("w.csv", self.RESULTS, 1, True))

    def test_json_marks_it_masked(self):
        document = json.loads(layer_json("w.csv", self.RESULTS, 1, True))
        self.assertEqual(document["results"][1], {"index": 1, "argmaxable": False, "masked": True})
        self.assertEqual(document["unargmaxable"], [1])


class TestLayerFormats(unittest.TestCase):

    def test_every_layer_format_is_ascii_and_ends_with_a_newline(self):
        self.assertEqual(sorted(LAYER_FORMATS), ["json", "markdown", "text"])
        for name, render in LAYER_FORMATS.items():
            with self.subTest(name=name):
                report = render("w.csv", LAYER, 2, True)
                self.assertTrue(report.isascii() and report.endswith("\n"))


if __name__ == "__main__":
    unittest.main()
