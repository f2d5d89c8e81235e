"""Tests of reviews.report.verdicts and html: the formats, on claims of a made-up paper."""

import json
import re
import unittest

from reviews.claims import BY_REVIEW, BY_SUITE, FAIL, NOT_CHECKED, PASS, Claim, Outcome, Paper, Row, run
from reviews.report.svg import Arrow, Axis, region_map
from reviews.report.html import html
from reviews.report.verdicts import FORMATS, Drawn, Suite, as_json, markdown, text
from tests.support.pages import Page

PAPER = Paper("A Paper", ("Doe", "Roe"), 2024, "2401.00001", "v1", "A Review")
SUITE = Suite("suite", "9.9", "3.x")


def results(verdict_of_second=PASS):
    return run([
        Claim("p.one", PAPER, "Section 1", "One | two.", FAIL,
              lambda: Outcome(FAIL, "x = 1", (Row("x", "1"), Row("long label", "2"))),
              verdict_words="That fails."),
        Claim("p.two", PAPER, "Appendix B", "Three.", PASS,
              lambda: Outcome(verdict_of_second, "y = 3", ()), source=BY_REVIEW,
              quoted="Three, it says."),
    ])


class TestText(unittest.TestCase):

    def test_exact_text(self):
        self.assertEqual(text(SUITE, results()), "\n".join([
            "suite 9.9 (Python 3.x)",
            "",
            "FAIL        p.one",
            "    A Paper (Doe, Roe 2024), arXiv:2401.00001v1, Section 1; the paper's claim as the"
            " review \"A Review\" states it",
            "    The paper's claim as the review states it, in this suite's paraphrase: One | two.",
            "    Expected: FAIL, the review's verdict: \"That fails.\"",
            "    Found: x = 1",
            "      x           1",
            "      long label  2",
            "",
            "PASS        p.two",
            "    A Paper (Doe, Roe 2024), arXiv:2401.00001v1, Appendix B; stated by the review"
            " \"A Review\"",
            "    The review's own statement, in this suite's paraphrase: Three.",
            "    In the review's words: \"Three, it says.\"",
            "    Expected: PASS, this suite's verdict; the review asserts the statement and"
            " gives it no verdict",
            "    Found: y = 3",
            "",
            "2 claims: 1 PASS and 1 FAIL as stated (0 of them decided on sampled cases only);"
            " 0 NOT CHECKED; 0 MISMATCH",
            "",
        ]))

    def test_mismatch_line(self):
        report = text(SUITE, results(FAIL))
        self.assertIn("    MISMATCH: verdict FAIL, this suite states PASS\n", report)
        self.assertTrue(report.endswith(
            "2 claims: 0 PASS and 1 FAIL as stated (0 of them decided on sampled cases only);"
            " 0 NOT CHECKED; 1 MISMATCH\n"))

    def test_a_suite_finding_is_expected_by_the_suite_and_counted_unchecked_when_so(self):
        report = text(SUITE, run([
            Claim("p.three", PAPER, "Section 3", "Four.", NOT_CHECKED,
                  lambda: Outcome(NOT_CHECKED, "why", ()), source=BY_SUITE)]))
        self.assertIn("    A Paper (Doe, Roe 2024), arXiv:2401.00001v1, Section 3; this suite's"
                      " own finding\n", report)
        self.assertIn("    This suite's own finding (stated by no paper or review): Four.\n",
                      report)
        self.assertIn("    Expected: NOT CHECKED, this suite's verdict\n", report)
        self.assertTrue(report.endswith(
            "1 claim: 0 PASS and 0 FAIL as stated (0 of them decided on sampled cases only);"
            " 1 NOT CHECKED; 0 MISMATCH\n"))

    def test_the_scope_line_follows_the_version_line(self):
        report = text(Suite("suite", "9.9", "3.x", "Only these claims."), results())
        self.assertTrue(report.startswith("suite 9.9 (Python 3.x)\nOnly these claims.\n\n"))


class TestMarkdown(unittest.TestCase):

    def test_the_version_line_comes_first(self):
        self.assertTrue(markdown(SUITE, results()).startswith("## suite 9.9 (Python 3.x)\n\n"))

    def test_one_claim_is_not_claims(self):
        self.assertIn("\n1 claim: 0 PASS and 1 FAIL as stated (0 of them decided on sampled"
                      " cases only); 0 NOT CHECKED; 0 MISMATCH\n", markdown(SUITE, results()[:1]))

    def test_table_row_escapes_pipes(self):
        self.assertIn("| `p.one` | arXiv:2401.00001v1 Section 1 | paper | One \\| two. | FAIL | x = 1 |",
                      markdown(SUITE, results()))

    def test_one_verdict_column_says_whose_statement_it_is(self):
        report = markdown(SUITE, results())
        self.assertIn("| Claim | Where | Statement by | Statement (this suite's words) | This"
                      " suite's verdict | Key numbers |", report)
        self.assertIn("| `p.two` | arXiv:2401.00001v1 Appendix B | review | Three. | PASS | y = 3 |",
                      report)
        self.assertIn("Appendix B; stated by the review \"A Review\".\n\nThe review's own"
                      " statement, in this suite's paraphrase: Three.\n\nIn the review's"
                      " words:\n\n> Three, it says.\n\nExpected: PASS, this suite's verdict; the"
                      " review asserts the statement and gives it no verdict  \nFound: y = 3\n",
                      report)
        self.assertIn("Section 1; the paper's claim as the review \"A Review\" states it.\n\nThe"
                      " paper's claim as the review states it, in this suite's paraphrase: One |"
                      " two.\n\nExpected: FAIL", report)

    def test_mismatch_is_marked_in_the_table(self):
        report = markdown(SUITE, results(FAIL))
        self.assertIn("| Three. | **FAIL (MISMATCH: this suite states PASS)** | y = 3 |", report)
        self.assertIn("### `p.two`: FAIL (MISMATCH: this suite states PASS)\n", report)

    def test_evidence_follows_the_table(self):
        report = markdown(SUITE, results())
        self.assertLess(report.index("| `p.two`"), report.index("### `p.one`: FAIL"))
        self.assertIn("- long label: `2`", report)


class TestWhoseVerdict(unittest.TestCase):
    """A review asserts its own statements and judges only the paper's claims:
    the expected verdict is the review's only where its words give it."""

    def test_a_review_s_statement_is_expected_by_this_suite_in_every_format(self):
        report = results()
        claims = json.loads(as_json(SUITE, report))["claims"]
        self.assertEqual([(c["expected_by"], c["verdict_words"]) for c in claims],
                         [("review", "That fails."), ("suite", None)])
        for render in (text, markdown, html):
            page = render(SUITE, report)
            self.assertNotIn("Review states", page)
            self.assertIn("the review asserts the statement and gives it no verdict", page)

    def test_the_review_s_verdict_comes_with_its_words(self):
        self.assertIn('Expected: FAIL, the review&#x27;s verdict: &quot;That fails.&quot;',
                      html(SUITE, results()))
        self.assertIn('Expected: FAIL, the review\'s verdict: "That fails."  \n',
                      markdown(SUITE, results()))


class TestQuotes(unittest.TestCase):
    """Quotation marks and blockquotes hold a source's own words only; a
    statement is this suite's paraphrase, and says so."""

    def test_only_the_source_s_words_are_in_a_blockquote(self):
        report = markdown(SUITE, results())
        self.assertEqual(re.findall(r"^> (.*)$", report, re.M), ["Three, it says."])
        page = html(SUITE, results())
        self.assertEqual(re.findall(r"<blockquote>(.*?)</blockquote>", page),
                         ["Three, it says."])
        self.assertIn("<p>In the review&#x27;s words:</p>\n<blockquote>", page)

    def test_json_gives_the_words_apart_from_the_paraphrase(self):
        claims = json.loads(as_json(SUITE, results()))["claims"]
        self.assertEqual([(c["statement"], c["quoted"]) for c in claims],
                         [("One | two.", None), ("Three.", "Three, it says.")])

    def test_this_suite_s_own_finding_is_no_paraphrase_and_quotes_no_one(self):
        finding = Claim("p.own", PAPER, "S", "Ours.", PASS, None, source=BY_SUITE)
        self.assertEqual(finding.whose, "This suite's own finding (stated by no paper or review)")
        with self.assertRaisesRegex(ValueError, "quotes no source"):
            Claim("p.own", PAPER, "S", "Ours.", PASS, None, source=BY_SUITE, quoted="Words.")


class TestSampled(unittest.TestCase):
    """A verdict that rests on sampled cases only says so, and the tally counts
    it apart from PASS and FAIL, never a NOT CHECKED or a MISMATCH."""

    @staticmethod
    def sampled_results():
        def made(claim_id, expected, verdict, sampled):
            return Claim(claim_id, PAPER, "S", "A statement.", expected,
                         lambda: Outcome(verdict, "found", (), sampled), source=BY_SUITE)
        return run([made("p.a", PASS, PASS, "the 3 points checked"),
                    made("p.b", FAIL, FAIL, "the 2 layers checked"),
                    made("p.c", PASS, PASS, None),
                    made("p.d", NOT_CHECKED, NOT_CHECKED, "the 9 eps checked"),
                    made("p.e", PASS, FAIL, "the 4 gaps checked")])

    def test_the_tally_counts_pass_fail_and_the_sampled_apart(self):
        self.assertEqual(text(SUITE, self.sampled_results()).splitlines()[-1],
                         "5 claims: 2 PASS and 1 FAIL as stated (2 of them decided on sampled"
                         " cases only); 1 NOT CHECKED; 1 MISMATCH")

    def test_every_format_says_what_was_sampled(self):
        report = self.sampled_results()
        line = "Decided on sampled cases only: the 3 points checked"
        self.assertIn("    Found: found\n    %s\n" % line, text(SUITE, report))
        self.assertIn("Found: found  \n%s\n" % line, markdown(SUITE, report))
        self.assertIn("Found: found<br>%s</p>" % line, html(SUITE, report))
        claims = json.loads(as_json(SUITE, report))["claims"]
        self.assertEqual([c["sampled"] for c in claims][:3],
                         ["the 3 points checked", "the 2 layers checked", None])
        self.assertEqual(text(SUITE, report).count("Decided on sampled cases only"), 4)


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


def _region_svg(title):
    return region_map(title, Axis("x", -1, 1, 1), Axis("y", -1, 1, 1),
                      [("r", [(0, 0), (1, 0), (1, 1)])], [Arrow("a", (1, 1), None)],
                      [(0, 0), (1, 0), (1, 1)], "caption")


class TestHtml(unittest.TestCase):

    FIGURES = {"p.one": [Drawn("one.svg", "First map.", _region_svg("Map one"), "figs/one.svg")],
               "p.two": [Drawn("two.svg", "Second map.", _region_svg("Map two"), None)]}

    def page(self, verdict_of_second=PASS):
        return Page(html(SUITE, results(verdict_of_second), self.FIGURES))

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
        self.assertEqual(set(outside), {"https://arxiv.org/abs/2401.00001v1"})
        self.assertEqual(report.count("://"), len(outside))
        for name in ("src", "xlink:href"):
            self.assertTrue(all(v.startswith("#") for v in page.values(name)), name)

    def test_arxiv_ids_link_to_the_paper_in_the_table_and_each_section(self):
        report = html(SUITE, results(), self.FIGURES)
        link = '<a href="https://arxiv.org/abs/2401.00001v1">arXiv:2401.00001v1</a>'
        self.assertEqual(report.count(link), 4)
        self.assertIn('A Paper (Doe, Roe 2024), %s, Appendix B; stated by the review' % link,
                      report)

    def test_ids_are_unique_across_inline_figures(self):
        ids = self.page().values("id")
        self.assertEqual(len(ids), len(set(ids)))
        report = html(SUITE, results(), self.FIGURES)
        for clip in re.findall(r"url\(#([^)]+)\)", report):
            self.assertIn('id="%s"' % clip, report)

    def test_text_is_escaped(self):
        claim = Claim("p.<x>", PAPER, "S", "a < b & <script>", PASS,
                      lambda: Outcome(PASS, "<i>", (Row("<", ">"),)))
        page = Page(html(SUITE, run([claim])))
        self.assertEqual(page.errors, [])
        self.assertNotIn("script", page.tags)
        self.assertNotIn("i", page.tags)
        self.assertIn("a < b & <script>", page.data)

    def test_whose_statement_shows_in_the_table_and_the_section(self):
        page = self.page()
        self.assertIn("by the paper, in this suite's paraphrase", page.data)
        self.assertIn("by the review, in this suite's paraphrase", page.data)
        self.assertIn("The review's own statement, in this suite's paraphrase: Three.",
                      page.data)

    def test_a_mismatch_is_marked(self):
        page = self.page(FAIL)
        self.assertIn("FAIL (MISMATCH: this suite states PASS)", page.data)
        self.assertIn("MISMATCH: verdict FAIL, this suite states PASS", page.data)

    def test_fail_pass_and_a_mismatch_each_have_their_own_style(self):
        page = html(SUITE, results(FAIL))
        self.assertIn('<span class="verdict verdict-fail">FAIL</span>', page)
        self.assertIn('<span class="verdict verdict-fail mismatch">FAIL (MISMATCH: this suite'
                      ' states PASS)</span>', page)
        self.assertIn('<span class="verdict verdict-pass">PASS</span>', html(SUITE, results()))
        self.assertIn(".verdict-fail{color:#a50000;border:2px solid #a50000", page)

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
        self.assertEqual(labels, ["Claim (where)", "Statement (by)", "This suite's verdict",
                                  "Key numbers"] * 2)


class TestJson(unittest.TestCase):

    def test_stable_keys(self):
        document = json.loads(as_json(SUITE, results()))
        self.assertEqual(list(document), ["suite", "python", "ok", "tally", "claims"])
        self.assertEqual(document["suite"], {"name": "suite", "version": "9.9", "scope": None})
        self.assertEqual(document["tally"], "2 claims: 1 PASS and 1 FAIL as stated (0 of them"
                                            " decided on sampled cases only); 0 NOT CHECKED; 0"
                                            " MISMATCH")
        self.assertIs(document["ok"], True)
        self.assertEqual(document["claims"][0], {
            "id": "p.one",
            "paper": {"title": "A Paper", "authors": ["Doe", "Roe"], "year": 2024,
                      "arxiv": "2401.00001", "version": "v1", "review": "A Review"},
            "where": "Section 1",
            "statement": "One | two.",
            "quoted": None,
            "source": "paper",
            "expected_by": "review",
            "verdict_words": "That fails.",
            "by_default": True,
            "expected": "FAIL",
            "verdict": "FAIL",
            "matches": True,
            "summary": "x = 1",
            "sampled": None,
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
