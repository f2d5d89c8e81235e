"""Tests of the claims about the low-rank paper's released detector and its
abstract's "very infrequent": verdicts, authors and the numbers printed."""

import importlib
import json
import os
import unittest
from fractions import Fraction

from reviews.argmax.certified import verify_all
from reviews.argmax.check import check_layer

from reviews.argmax.verify import verify
from reviews.argmax.released import released_search
from reviews.claims import BY_PAPER, BY_SUITE, NOT_CHECKED, PASS
from reviews.papers import low_rank_released as released
from reviews.papers.low_rank_softmax import CLAIMS
from reviews.papers.low_rank_trained import TRAINED_LAYERS
from tests.support.claims import run_once

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BY_ID = {claim.id: claim for claim in CLAIMS}


def _outcome(claim_id):
    """A claim's Outcome, its check run once for every test module that asks."""
    [result] = run_once([BY_ID[claim_id]])
    return result.outcome


def _pinned(claim_id):
    """A claim's entry in the golden file."""
    with open(os.path.join(ROOT, "tests", "golden", "claims.json")) as handle:
        [pinned] = [c for c in json.load(handle)["claims"] if c["id"] == claim_id]
    return pinned


def _braid_search():
    """The "search" evidence of low-rank.braid-reflect."""
    return [row.value for row in _outcome("low-rank.braid-reflect").evidence
            if row.label == "search"][0]


TIE = _outcome("low-rank.released-tie-rule")
COUNT = _outcome("low-rank.released-count")


def value(outcome, label):
    [found] = [row.value for row in outcome.evidence if row.label == label]
    return found


class TestTheTieRule(unittest.TestCase):

    def test_it_is_this_suite_s_and_passes(self):
        claim = BY_ID["low-rank.released-tie-rule"]
        self.assertEqual((claim.source, claim.expected, TIE.verdict), (BY_SUITE, PASS, PASS))

    def test_the_mean_of_two_classes_is_accepted_at_its_own_weights(self):
        self.assertEqual(value(TIE, "mean: exact"),
                         "class 0 unargmaxable: w0 = 1/2 w1 + 1/2 w2 (checked)")
        self.assertEqual(value(TIE, "mean: the rule"),
                         "at x = w0 = (0.5, 0.5) the logits are 0.5, 0.5, 0.5, -1: class 0 ties"
                         " the largest, np.argmax gives 0, so after 0 reflections it is called"
                         " argmaxable")

    def test_a_zero_row_first_is_accepted_at_zero(self):
        self.assertEqual(value(TIE, "zero row: exact"),
                         "class 0 unargmaxable: w0 = 1/3 w1 + 1/3 w2 + 1/3 w3 (checked)")
        self.assertIn("the logits are 0, 0, 0, 0", value(TIE, "zero row: the rule"))

    def test_of_two_equal_rows_the_first_is_accepted_the_second_has_no_reflection(self):
        self.assertIn("np.argmax gives 0: called argmaxable", value(TIE, "twins: class 0"))
        self.assertIn("the reflection's normal w3 - w0 is zero", value(TIE, "twins: class 3"))
        self.assertIn("the released assert np.argmax(W x + b) == i stops the run",
                      value(TIE, "twins: its LP"))
        self.assertEqual(released_search(released.TWIN_LAYER, None, 3).stop, "zero normal")

    def test_the_layers_are_exact_in_binary(self):
        for layer in (released.MEAN_LAYER, released.TWIN_LAYER, released.ZERO_ROW_LAYER):
            self.assertTrue(all(float(v) == v for row in layer for v in row))

    def test_this_suite_s_search_accepts_none_of_them(self):
        self.assertIn("accepts a strict win only", value(TIE, "this suite"))
        self.assertIn("this suite's own (reviews.argmax.strategy.braid.braid_reflect)", _braid_search())

    def test_the_search_the_evidence_names_is_where_it_says(self):
        module, _, name = _braid_search().split("(")[1].split(")")[0].rpartition(".")
        self.assertTrue(callable(getattr(importlib.import_module(module), name)))


class TestTheReleasedCount(unittest.TestCase):

    def test_it_is_this_suite_s_and_passes(self):
        claim = BY_ID["low-rank.released-count"]
        self.assertEqual((claim.source, COUNT.verdict), (BY_SUITE, PASS))
        self.assertEqual(COUNT.summary,
                         "fewer than --box 100 --tolerance 1e-8 counts where the search accepts"
                         " a thin class (d = 1: 0 against 1) or a tie (0 against 1); more where"
                         " only the search runs and misses (5 against 4); its LP stage accepts"
                         " a radius of exactly 1e-8, which --tolerance 1e-8 does not")

    def test_in_float32_the_thin_class_is_gone_and_the_rule_rejects_it(self):
        self.assertEqual(released.float32(released.THIN_BIAS[0]), 1.0)
        self.assertIn("where b rounds to (1, 0, -1): class 1 ties classes 0 and 2 at x = 1 and"
                      " wins nowhere", value(COUNT, "thin: in float32"))
        self.assertIn("the rule does not accept it (after 100 reflections the argmax is class"
                      " 0, a tie): count 1", value(COUNT, "thin: in float32"))

    def test_the_summary_names_no_layer_unargmaxable(self):
        self.assertNotIn("unargmaxable layers", TIE.summary)
        self.assertTrue(TIE.summary.startswith("in each of three layers class 0 is"
                                               " unargmaxable"))

    def test_a_thin_class_found_by_the_search_needs_no_tolerance(self):
        self.assertIn("class 1 by a margin of 3e-9", value(COUNT, "thin: the rule"))
        self.assertEqual(value(COUNT, "thin: --box 100 --tolerance 1e-8"),
                         "class 1 unargmaxable, lam = 1/2 on class 0 + 1/2 on class 2 (checked):"
                         " count 1; its largest radius is 3e-9 (exact maximum, rounded down)")

    def test_the_thin_example_of_the_check_layer_note(self):
        # The example the check-layer reports cite: the rule takes class 1,
        # --box 100 --tolerance 1e-8 proves it unargmaxable.
        weights, bias = released.THIN_WEIGHTS, released.THIN_BIAS
        self.assertTrue(released_search(weights, bias, 1).accepted)
        result = check_layer(weights, bias, box=100, tolerance=released.TOLERANCE)[1]
        self.assertFalse(result.argmaxable)
        self.assertTrue(verify(weights, bias, result, box=100, tolerance=released.TOLERANCE))

    def test_a_class_the_search_misses_is_counted_when_only_it_runs(self):
        self.assertIn("with the exact stage off the rule counts 5 (classes 0, 4, 5, 6, 10)",
                      value(COUNT, "missed: the rule"))
        self.assertIn("led the next by at least 11", value(COUNT, "missed: the rule"))
        self.assertIn("class 0 passes, witness x = (14.07, -100)",
                      value(COUNT, "missed: --box 100 --tolerance 1e-8"))
        self.assertIn("after 178 reflections", value(COUNT, "missed: patience 2500"))

    def test_the_stages_are_described_from_the_source(self):
        stages = value(COUNT, "the detector")
        for said in ("andreasgrv/unargmaxable at d70d30f, stollen/__init__.py",
                     "candidate_is_bounded", "lp_chebyshev", "FeasibilityTol 1e-9",
                     "lower bound r >= 1e-8", "--exact-algorithm none", "with no tolerance",
                     "patience 100 by default, 2500 in the paper's runs",
                     "find_bounded_classes asserts that the weights have full rank",
                     "returns no class at all when C < d + 1"):
            self.assertIn(said, stages)
        self.assertNotIn("answers exactly", stages)

    def test_a_radius_of_exactly_1e_8_is_where_the_lp_and_the_tolerance_part(self):
        self.assertEqual(value(COUNT, "at r = 1e-8: --box 100 --tolerance 1e-8"),
                         "class 1 unargmaxable, lam = 1/2 on class 0 + 1/2 on class 2"
                         " (checked): its largest radius is exactly 1e-8, and the question"
                         " asks for one above 1e-8")
        self.assertIn("the tightest with a left side of exactly 0, so the program is feasible",
                      value(COUNT, "at r = 1e-8: the released LP"))
        self.assertEqual(value(COUNT, "at r = 1e-8: the search"),
                         "class 1 is not the argmax after 2500 reflections (patience 2500): the"
                         " LP stage decides it")

    def test_within_the_solver_s_tolerance_of_1e_8_a_thinner_class_may_pass(self):
        self.assertIn("with b_1 = 9.9e-9 or 9.5e-9 class 1's largest radius is b_1",
                      value(COUNT, "below 1e-8"))
        self.assertIn("breaks the released program's constraints by 1e-10 or 5e-10, within"
                      " Gurobi's FeasibilityTol 1e-9", value(COUNT, "below 1e-8"))
        # The program at x = 0, r = 1e-8, computed again by hand: the
        # constraint with class 0 reads -x + r + 0 - b_1 <= 0.
        self.assertEqual([released.TOLERANCE - b for b in released.AT_BOUND_BIASES],
                         [0, Fraction(1, 10 ** 10), Fraction(5, 10 ** 10)])

    def test_the_released_files_are_cited_with_their_repository_and_commit(self):
        for claim_id in ("low-rank.released-tie-rule", "low-rank.released-count"):
            self.assertIn("andreasgrv/unargmaxable at d70d30f (stollen/__init__.py",
                          BY_ID[claim_id].where)
        self.assertTrue(value(TIE, "the rule").startswith(
            "andreasgrv/unargmaxable at d70d30f, stollen/__init__.py"))
        with open(os.path.join(ROOT, "docs", "claims.md"), encoding="utf-8") as handle:
            page = " ".join(handle.read().split())
        self.assertIn("andreasgrv/unargmaxable (MIT) at d70d30fb0eec92c0989c8b02337c5af0ab1bca85",
                      page)
        # The docs quote the numbers the claim computes.
        self.assertIn("break its constraints by 1e-10 or 5e-10, within FeasibilityTol 1e-9",
                      page)
        self.assertIn('U+2581 "Bonjour" is kept for en, U+2581 "2020" is not (DIGIT)', page)


class TestTheScriptFilter(unittest.TestCase):
    """--filter-lang's rule, as stollen/utils.py states it."""

    def test_a_token_is_kept_when_every_character_is_of_the_language_s_script(self):
        keeps = released.script_filter_keeps
        self.assertEqual([keeps("\u2581Bonjour", "en"), keeps("\u25812020", "en"),
                          keeps("Stra\u00dfe</w>", "de"), keeps("\u2581\u043c\u0438\u0440", "ru"),
                          keeps("\u2581\u043c\u0438\u0440", "en"), keeps("\u2581", "en"),
                          keeps("a\x00", "en"), keeps("\u2581caf\u00e9", "en")],
                         [True, False, True, True, False, True, False, True])


class TestNoTextCallsTheLpQuestionTheDetectors(unittest.TestCase):

    def test_no_claim_says_it(self):
        for claim in CLAIMS:
            outcome = COUNT if claim.id == "low-rank.released-count" else (
                TIE if claim.id == "low-rank.released-tie-rule" else None)
            texts = [claim.statement] + ([row.value for row in outcome.evidence]
                                         if outcome else [])
            for text in texts:
                self.assertNotIn("the detector's question", text)


class TestTrainedLayers(unittest.TestCase):
    """The claim that runs only when selected.  Its whole check (every class
    of both heads, about 20 s of CPU) is left to
    ``python tests/golden/regenerate.py --check-selected``, which compares
    its output with the golden file's on every Python in CI; here, the
    readings that make its point are decided on both domains."""

    @classmethod
    def setUpClass(cls):
        from reviews.formats.layers import read_layer
        cls.weights, cls.bias = read_layer(os.path.join(
            ROOT, "reviews", "data", "g2pM_logit_layer_2_head.npz"))

    def test_it_runs_only_when_selected_and_is_this_suite_s(self):
        claim = BY_ID["low-rank.trained-layers"]
        self.assertEqual((claim.by_default, claim.source, claim.expected), (False, BY_SUITE,
                                                                            PASS))

    def test_ci_checks_its_whole_output_against_the_golden_file(self):
        with open(os.path.join(ROOT, ".ci", "run")) as handle:
            self.assertIn('"$python" tests/golden/regenerate.py --check-selected', handle.read())
        pinned = _pinned("low-rank.trained-layers")
        self.assertEqual((pinned["verdict"], pinned["by_default"]), ("PASS", False))
        self.assertIn("g2pM head (C = 876, d = 32): 225 over R^32, 229 over x >= 0",
                      pinned["summary"])

    # The rows below are the golden file's, which --check-selected compares
    # with the claim's run.

    def test_the_counts_on_each_domain_and_every_certificate(self):
        rows = [(row["label"], row["value"])
                for row in _pinned("low-rank.trained-layers")["evidence"]
                if row["label"].startswith("  over")]
        self.assertEqual(rows, [
            ("  over R^64", "0 of 753 classes unargmaxable, 753 argmaxable; 753 of 753"
             " certificates checked again (verify_all)"),
            ("  over R^32", "225 of 876 classes unargmaxable, 651 argmaxable; 876 of 876"
             " certificates checked again (verify_all)"),
            ("  over x >= 0", "229 of 876 classes unargmaxable, 647 argmaxable; 876 of 876"
             " certificates checked again (verify_all); the 651 classes argmaxable over R^32"
             " decided again here, the 225 others by their certificates over R^32, which hold"
             " on every domain")])

    def test_the_readings_only_the_relu_s_domain_leaves_unargmaxable_are_named(self):
        rows = {row["label"]: row["value"]
                for row in _pinned("low-rank.trained-layers")["evidence"]}
        self.assertEqual(rows["    4 more than over R^32"],
                         "51 qiong2, 102 zhuai3, 690 gui1, 798 pang1")
        self.assertTrue(rows["    the first 8"].startswith("4 jian3, 5 nan1, 7 duo2"))

    def test_each_head_says_what_feeds_it(self):
        fed = [row["value"] for row in _pinned("low-rank.trained-layers")["evidence"]
               if row["label"] == "  fed by"]
        self.assertEqual(len(fed), 2)
        self.assertIn("BatchNorm1d after a ReLU", fed[0])
        self.assertIn("every input has x >= 0", fed[1])
        # "Never predicted" but at an exact tie, which np.argmax gives the lowest index.
        self.assertIn("is never predicted, whatever the sentence, except where its logit ties"
                      " the largest exactly", fed[1])

    def test_the_relu_s_domain_leaves_four_more_readings_unargmaxable(self):
        # Class 0 wins somewhere on both domains; 4 jian3 loses everywhere; the
        # four the claim names win only where some coordinate is negative.
        asked = [0, 4, 51, 102, 690, 798]
        everywhere = check_layer(self.weights, self.bias, classes=asked, jobs=1)
        relu = check_layer(self.weights, self.bias, classes=asked, jobs=1, inputs=(0, None))
        self.assertEqual([r.argmaxable for r in everywhere], [True, False, True, True, True, True])
        self.assertEqual([r.argmaxable for r in relu], [True, False, False, False, False, False])
        self.assertEqual(verify_all(self.weights, self.bias, everywhere), [True] * 6)
        self.assertEqual(verify_all(self.weights, self.bias, relu, inputs=(0, None)), [True] * 6)
        for result in everywhere[2:]:
            self.assertTrue(any(x < 0 for x in result.witness), result.index)

    def test_only_softmax_classifiers_under_licences_that_allow_it_are_shipped(self):
        self.assertEqual([(layer.name, layer.package) for layer in TRAINED_LAYERS],
                         [("natasha_slovnet_morph_news_v1_head", "natasha 1.6.0 (MIT)"),
                          ("g2pM_logit_layer_2_head", "g2pM 0.1.2.5 (Apache-2.0)")])
        with open(os.path.join(ROOT, "reviews", "data", "LICENSE.natasha")) as handle:
            self.assertIn("Copyright (c) 2016 bureaucratic-labs", handle.read())
        with open(os.path.join(ROOT, "reviews", "data", "LICENSE.g2pM")) as handle:
            self.assertTrue(handle.read().lstrip().startswith("Apache License\n"
                                                              "                           Version 2.0"))

    def test_the_shipped_files_are_those_of_the_provenance(self):
        with open(os.path.join(ROOT, "reviews", "data", "PROVENANCE.md")) as handle:
            provenance = handle.read()
        for layer in TRAINED_LAYERS:
            self.assertIn("%s  %s.npz" % (layer.sha256, layer.name), provenance)
            self.assertIn(layer.package.split(" (")[0], provenance)


class TestVeryInfrequent(unittest.TestCase):

    def test_it_cites_the_counts_the_trained_layers_claim_pins_and_checks(self):
        outcome = BY_ID["low-rank.very-infrequent"].check()
        [cited] = [row.value for row in outcome.evidence if row.label == "what is checked"]
        self.assertIn("0 of 753 classes of a tagger head (d = 64), 225 of 876 classes of a"
                      " grapheme-to-phoneme head (d = 32; 229 over x >= 0)", cited)
        self.assertEqual([(layer.classes, layer.dimension, [n for _, n in layer.questions])
                          for layer in TRAINED_LAYERS], [(753, 64, [0]), (876, 32, [225, 229])])

    def test_the_paper_s_statement_is_not_checked(self):
        claim = BY_ID["low-rank.very-infrequent"]
        self.assertEqual((claim.source, claim.expected, claim.check().verdict),
                         (BY_PAPER, NOT_CHECKED, NOT_CHECKED))
        self.assertIn("very infrequent and unlikely to impact model quality", claim.statement)


if __name__ == "__main__":
    unittest.main()
