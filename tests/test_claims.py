"""Tests of reviews.claims (selection and the runner) and of the papers' registry."""

import decimal
import unittest

from reviews.claims import (
    BY_PAPER, BY_REVIEW, BY_SUITE, FAIL, NOT_CHECKED, PASS, Claim, Figure, Outcome, Paper, Row,
    default_claims, float_row, run, scope_line, select,
)
from reviews.errors import InputError
from reviews.papers import all_claims
from tests.support import fresh_python

PAPER = Paper("A Paper", ("Doe", "Roe"), 2024, "2401.00001", "v1", "A Review")


def claim(claim_id, expected, verdict):
    return Claim(claim_id, PAPER, "Section 1", "A statement.", expected,
                 lambda: Outcome(verdict, "summary", (Row("a", "1"),)))


class TestRegistry(unittest.TestCase):

    def test_ids_are_unique_and_every_paper_module_registers(self):
        ids = [c.id for c in all_claims()]
        self.assertEqual(len(ids), len(set(ids)))
        self.assertIn("memorization.every-distribution", ids)

    def test_papers_are_found_in_name_order_each_module_once(self):
        ids = [c.id for c in all_claims()]
        papers = [i.split(".")[0] for i in ids]
        self.assertEqual(list(dict.fromkeys(papers)), ["low-rank", "memorization"])
        self.assertEqual(papers, sorted(papers))

    def test_finding_the_claims_loads_no_figures_and_no_inspect(self):
        # What the default run pays for: figures (xml.etree) only when drawn,
        # and no pkgutil.iter_modules, which imports inspect, ast and dis.
        done = fresh_python("from reviews.papers import all_claims; all_claims(); print(sorted("
                            "m for m in ('inspect', 'reviews.report.svg', 'xml.etree')"
                            " if m in sys.modules))")
        self.assertEqual((done.returncode, done.stdout), (0, "[]\n"), done.stderr)

    def test_select_keeps_registry_order(self):
        claims = [claim("a", PASS, PASS), claim("b", PASS, PASS), claim("c", PASS, PASS)]
        self.assertEqual([c.id for c in select(claims, ["c", "a"])], ["a", "c"])

    def test_select_names_unknown_ids(self):
        with self.assertRaisesRegex(InputError, "unknown claim id or paper x, y"):
            select([claim("a", PASS, PASS)], ["x", "a", "y"])

    def test_a_paper_prefix_selects_its_claims_in_registry_order(self):
        claims = [claim("p.a", PASS, PASS), claim("q.b", PASS, PASS), claim("p.c", PASS, PASS)]
        self.assertEqual([c.id for c in select(claims, ["p"])], ["p.a", "p.c"])
        self.assertEqual([c.id for c in select(claims, ["q.b", "p"])], ["p.a", "q.b", "p.c"])

    def test_a_prefix_is_a_whole_paper_name_not_any_start(self):
        claims = [claim("low-rank.box", PASS, PASS)]
        for partial in ("low", "low-rank.", "low-rank.bo"):
            with self.assertRaisesRegex(InputError, "unknown claim id or paper"):
                select(claims, [partial])

    def test_every_registered_claim_says_whose_statement_it_is(self):
        by_source = {}
        for c in all_claims():
            by_source.setdefault(c.source, []).append(c.id)
        self.assertEqual(by_source[BY_PAPER], [
            "low-rank.unargmaxable-exists", "low-rank.general-position",
            "low-rank.region-counts", "low-rank.prevention", "low-rank.13-of-150",
            "low-rank.very-infrequent", "memorization.every-distribution"])
        # No review of the low-rank paper is in the sources: none of its claims is a review's.
        self.assertEqual(by_source[BY_SUITE], [
            "low-rank.braid-reflect", "low-rank.released-tie-rule", "low-rank.box",
            "low-rank.tolerance", "low-rank.released-count", "low-rank.trained-layers",
            "memorization.underflow"])
        self.assertEqual(by_source[BY_REVIEW], [
            "memorization.interior", "memorization.boundary-limits", "memorization.masking",
            "memorization.repaired", "memorization.construction-independent",
            "memorization.result-independent", "memorization.non-identification",
            "memorization.minor-repairable"])

    def test_only_the_c3_claim_s_verdict_is_the_review_s_in_its_words(self):
        # The review judges the paper's C.3 claim ("That fails at the
        # boundary."); its own statements it asserts, and gives no verdict.
        judged = {c.id: c.verdict_words for c in all_claims() if c.expected_by == BY_REVIEW}
        self.assertEqual(judged, {"memorization.every-distribution":
                                  "That fails at the boundary."})

    def test_only_a_review_judges_and_only_the_paper_s_claims(self):
        for source in (BY_REVIEW, BY_SUITE):
            with self.assertRaisesRegex(ValueError, "verdict_words need a paper's claim"):
                Claim("a", PAPER, "S", "T.", PASS, None, source=source, verdict_words="Yes.")
        unreviewed = Paper("T", ("A",), 2020, "2001.00001", "v1")
        with self.assertRaisesRegex(ValueError, "and its review"):
            Claim("a", unreviewed, "S", "T.", PASS, None, verdict_words="Yes.")
        with self.assertRaisesRegex(TypeError, "verdict_words must be the review's words"):
            Claim("a", PAPER, "S", "T.", PASS, None, verdict_words=" ")

    def test_every_paper_names_its_version(self):
        self.assertEqual({(c.paper.arxiv, c.paper.version) for c in all_claims()},
                         {("2203.06462", "v2"), ("2504.14765", "v2")})

    def test_source_must_be_known_and_labels_the_statement(self):
        with self.assertRaisesRegex(ValueError, "source 'author' is not one of paper, review,"
                                                " suite"):
            Claim("a", PAPER, "S", "T.", PASS, None, source="author")
        self.assertEqual(claim("a", PASS, PASS).whose,
                         "The paper's claim as the review states it, in this suite's paraphrase")
        unreviewed = Paper("T", ("A",), 2020, "2001.00001", "v1")
        self.assertEqual(Claim("a", unreviewed, "S", "T.", PASS, None).whose,
                         "The paper's claim, in this suite's paraphrase")

    def test_a_review_s_disclaimer_heads_only_a_report_of_its_paper_s_claims(self):
        by_id = {c.id: c for c in all_claims()}
        self.assertIsNone(scope_line([by_id["low-rank.trained-layers"]]))
        self.assertEqual(
            scope_line([by_id["low-rank.box"], by_id["memorization.interior"],
                        by_id["memorization.masking"]]),
            'The review "Softmax reaches only the interior of the simplex" says of its checks:'
            ' "These are counterexamples to particular claims; they do not reproduce the'
            ' papers\' training experiments."')

    def test_every_quotation_is_the_source_s_and_the_statements_are_paraphrases(self):
        # The words are the review's (seed text of its page) or the low-rank
        # abstract's, verbatim; none is a claim's statement.
        quoted = {c.id: c.quoted for c in all_claims() if c.quoted}
        self.assertEqual(sorted(quoted), [
            "low-rank.13-of-150", "low-rank.very-infrequent",
            "memorization.boundary-limits", "memorization.construction-independent",
            "memorization.every-distribution", "memorization.interior",
            "memorization.masking", "memorization.minor-repairable",
            "memorization.non-identification", "memorization.repaired",
            "memorization.result-independent"])
        self.assertEqual(quoted["memorization.every-distribution"],
                         "Appendix C.3's stochastic extension states that finite real logits can"
                         " realize every probability distribution over a finite label set.")
        for c in all_claims():
            self.assertNotEqual(c.statement, c.quoted)
            self.assertEqual(c.quoted_from, "paper" if c.id.startswith("low-rank.")
                             else "review")

    def test_a_review_statement_needs_a_paper_with_a_review(self):
        unreviewed = Paper("T", ("A",), 2020, "2001.00001", "v1")
        with self.assertRaisesRegex(ValueError, "claim a: a review's statement, but its paper"
                                                " names no review"):
            Claim("a", unreviewed, "S", "T.", PASS, None, source=BY_REVIEW)

    def test_a_claim_runs_by_default_unless_it_says_otherwise(self):
        slow = Claim("a.slow", PAPER, "S", "T.", PASS, None, by_default=False)
        self.assertEqual((claim("a", PASS, PASS).runs, slow.runs), ("default", "--claim"))
        self.assertEqual(default_claims([claim("a.quick", PASS, PASS), slow])[0].id, "a.quick")
        self.assertEqual([c.id for c in select([slow], ["a"])], ["a.slow"])
        with self.assertRaisesRegex(TypeError, "by_default must be True or False, not 1"):
            Claim("a", PAPER, "S", "T.", PASS, None, by_default=1)

    def test_expected_verdict_must_be_known(self):
        with self.assertRaisesRegex(ValueError, "expected verdict 'MAYBE'"):
            claim("a", "MAYBE", PASS)

    def test_a_paper_modules_mistake_is_no_input_error(self):
        # InputError is the user's input refused (one line, exit 2); a
        # mistake in a module of claims is the module's, raised as such.
        with self.assertRaises(ValueError) as raised:
            claim("a", "MAYBE", PASS)
        self.assertIs(type(raised.exception), ValueError)


class TestRun(unittest.TestCase):

    def test_matches_compares_verdict_with_expected(self):
        results = run([claim("a", FAIL, FAIL), claim("b", PASS, FAIL),
                       claim("c", NOT_CHECKED, NOT_CHECKED)])
        self.assertEqual([r.matches for r in results], [True, False, True])

    def test_an_unknown_verdict_is_a_bug(self):
        with self.assertRaisesRegex(RuntimeError, "returned verdict 'OK'"):
            run([claim("a", PASS, "OK")])


class TestFloatRow(unittest.TestCase):

    def test_shows_twenty_digits_and_ulps(self):
        exact = decimal.Context(prec=40).divide(1, 3)
        self.assertEqual(float_row("third", 1 / 3, exact),
                         Row("third", "0.3333333333333333 (exact 0.33333333333333333333; 0.33 ulp)"))


class TestFigure(unittest.TestCase):

    def test_a_description_is_optional(self):
        self.assertIsNone(Figure("a.svg", str).description)
        self.assertEqual(Figure("a.svg", str, "A line.").description, "A line.")
        self.assertIsNone(Figure("a.svg", str).caption())

    def test_a_computed_description_is_computed_only_when_asked(self):
        asked = []
        figure = Figure("a.svg", str, lambda: asked.append(1) or "Computed.")
        self.assertEqual(asked, [])
        self.assertEqual((figure.caption(), asked), ("Computed.", [1]))


if __name__ == "__main__":
    unittest.main()
