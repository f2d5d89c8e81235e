"""Tests of reviews.report: the three formats, on claims of a made-up paper."""

import json
import unittest
from fractions import Fraction as F

from reviews.argmaxable import ClassResult
from reviews.claims import FAIL, PASS, Claim, Outcome, Paper, Row, run
from reviews.report import FORMATS, Suite, as_json, layer_json, layer_text, markdown, text

PAPER = Paper("A Paper", ("Doe", "Roe"), 2024, "2401.00001")
SUITE = Suite("suite", "9.9", "3.x")


def results(verdict_of_second=PASS):
    return run([
        Claim("p.one", PAPER, "Section 1", "One | two.", FAIL,
              lambda: Outcome(FAIL, "x = 1", (Row("x", "1"), Row("long label", "2")))),
        Claim("p.two", PAPER, "Appendix B", "Three.", PASS,
              lambda: Outcome(verdict_of_second, "y = 3", ())),
    ])


class TestText(unittest.TestCase):

    def test_exact_text(self):
        self.assertEqual(text(SUITE, results()), "\n".join([
            "suite 9.9 (Python 3.x)",
            "",
            "FAIL        p.one",
            "    A Paper (Doe, Roe 2024), arXiv:2401.00001, Section 1",
            "    Claim: One | two.",
            "    Review states: FAIL",
            "    Found: x = 1",
            "      x           1",
            "      long label  2",
            "",
            "PASS        p.two",
            "    A Paper (Doe, Roe 2024), arXiv:2401.00001, Appendix B",
            "    Claim: Three.",
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

    def test_table_row_escapes_pipes(self):
        self.assertIn("| `p.one` | arXiv:2401.00001 Section 1 | One \\| two. | FAIL | FAIL | x = 1 |",
                      markdown(SUITE, results()))

    def test_mismatch_is_marked_in_the_table(self):
        self.assertIn("| PASS | FAIL (MISMATCH) | y = 3 |", markdown(SUITE, results(FAIL)))

    def test_evidence_follows_the_table(self):
        report = markdown(SUITE, results())
        self.assertLess(report.index("| `p.two`"), report.index("### `p.one`: FAIL"))
        self.assertIn("- long label: `2`", report)


class TestFigures(unittest.TestCase):

    FIGURES = {"p.two": ["out/a.svg"]}

    def test_text_names_the_figure_under_its_claim(self):
        report = text(SUITE, results(), self.FIGURES)
        self.assertIn("    Found: y = 3\n    Figure: out/a.svg\n", report)

    def test_markdown_shows_the_figure_under_its_claim(self):
        report = markdown(SUITE, results(), self.FIGURES)
        section = report[report.index("### `p.two`"):]
        self.assertIn("Figure `out/a.svg`:\n\n![a.svg](out/a.svg)\n", section)
        self.assertNotIn("a.svg", report[:report.index("### `p.two`")])

    def test_json_lists_figures_per_claim(self):
        claims = json.loads(as_json(SUITE, results(), self.FIGURES))["claims"]
        self.assertEqual([c["figures"] for c in claims], [[], ["out/a.svg"]])


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
LAYER = [
    ClassResult(0, True, (F(1, 2), F(-3))),
    ClassResult(1, False, None, ((0, F(1, 3)), (7, F(2, 3)))),
    ClassResult(2, False, None, ((0, F(10 ** 4400)),)),
]


class TestLayer(unittest.TestCase):

    def test_text_lists_only_the_nonzero_terms(self):
        self.assertEqual(layer_text("w.csv", LAYER, 2, True).splitlines(), [
            "w.csv: 3 classes, d = 2, with bias",
            "Unargmaxable classes (each is a convex combination of others with at least"
            " its bias):",
            "  class 1: w[1] = 1/3 * w[0] + 2/3 * w[7]",
            "  class 2: w[2] = 1%s * w[0]" % ("0" * 4400),
            "2 of 3 classes unargmaxable; 1 argmaxable (witnesses: --format json)",
        ])

    def test_json_lists_the_terms_as_index_and_text(self):
        document = json.loads(layer_json("w.csv", LAYER, 2, False))
        self.assertEqual(document, {
            "classes": 3, "dim": 2, "bias": False, "unargmaxable": [1, 2],
            "results": [
                {"index": 0, "argmaxable": True, "witness": ["1/2", "-3"]},
                {"index": 1, "argmaxable": False, "terms": [[0, "1/3"], [7, "2/3"]]},
                {"index": 2, "argmaxable": False, "terms": [[0, "1" + "0" * 4400]]},
            ],
        })


if __name__ == "__main__":
    unittest.main()
