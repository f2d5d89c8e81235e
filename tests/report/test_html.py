"""Tests of reviews.report.html: what the page's style does with long names."""

import re
import unittest

from reviews.claims import PASS, Claim, Outcome, Paper, run
from reviews.report.html import html
from reviews.report.verdicts import Drawn, Suite

PAPER = Paper("A Paper", ("Doe",), 2024, "2401.00001", "v1", "A Review")
SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>'


def _rules(page):
    """{selector: declarations} of the page's style sheet, outside @media."""
    style = page[page.index("<style>") + len("<style>"):page.index("</style>")]
    style = re.sub(r"@media[^{]*\{(?:[^{}]*\{[^}]*\})*\s*\}", "", style)
    return {selector.strip(): body for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}",
                                                                    style)}


class TestLongFigurePath(unittest.TestCase):

    def test_a_long_unbroken_figure_folder_wraps_in_its_caption(self):
        # In headless Chromium at 600 px, a 200-character folder name made
        # the claims page 1773 px wide; with the rule it is 585 px.
        path = "x" * 200 + "/one.svg"
        claim = Claim("p.one", PAPER, "S", "One.", PASS, lambda: Outcome(PASS, "x = 1", ()))
        page = html(Suite("suite", "9.9", "3.x"), run([claim]),
                    {"p.one": [Drawn("one.svg", "A map.", SVG, path)]})
        self.assertRegex(page, "<figcaption>[^<]*<code>%s</code>\\)</figcaption>" % path)
        self.assertIn("overflow-wrap:anywhere", _rules(page).get("figcaption code", "").split(";"))


if __name__ == "__main__":
    unittest.main()
