"""Tests that the README is short, ordered and says what the code does: the
claims tables, the citation, the CI job and the golden file's regeneration.
Its samples and links are tested with the docs' (tests/test_docs.py)."""

import importlib.util
import io
import json
import os
import re
import shlex
import tempfile
import unittest
from unittest import mock

from reviews import __version__
from reviews import counterexamples
from reviews.cli import suite
from tests.support import ROOT
from tests.support.claims import run_once
from tests.support.commands import FIGURE_1_JSON
from tests.support.documents import document

# A reviewer who has never seen the project reads it in two minutes.
MOST_LINES = 250
HEADINGS = ["What it checks", "Run it", "A sample", "Check your own layer",
            'What "exact" means', "From Python", "Cite it", "In CI", "Contributing", "Links"]


def readme():
    return document("README.md")


def section(title):
    """The text of the README section "## title", up to the next "## "."""
    text = readme()
    start = text.index("\n## %s\n" % title)
    end = text.find("\n## ", start + 1)
    return text[start:] if end < 0 else text[start:end]


def _regenerate():
    path = os.path.join(ROOT, "tests", "golden", "regenerate.py")
    spec = importlib.util.spec_from_file_location("regenerate", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class TestVersions(unittest.TestCase):

    def test_the_citation_names_this_version_and_an_author(self):
        cite = section("Cite it")
        self.assertIn("version = {%s}," % __version__, cite)
        self.assertRegex(cite, r"author\s+= \{\{.+\}\},")


class TestLayout(unittest.TestCase):

    def test_the_readme_has_at_most_250_lines(self):
        self.assertLessEqual(len(readme().splitlines()), MOST_LINES)

    def test_the_sections_come_in_the_reading_order(self):
        self.assertEqual(re.findall(r"^## (.+)$", readme(), re.M), HEADINGS)

    def test_the_sections_sentence_lists_the_headings_in_order(self):
        sentence = re.search(r"Sections: ([^.]*)\.", readme()).group(1)
        listed = re.split(r",\s+", " ".join(sentence.split()))
        self.assertEqual(listed, re.findall(r"^## (.+)$", readme(), re.M))

    def test_the_claims_table_and_the_c3_verdict_are_on_the_first_screen(self):
        first_screen = "\n".join(readme().splitlines()[:50])
        self.assertIn("Appendix C.3", first_screen)
        self.assertIn("**FAIL**", first_screen)
        self.assertIn("| `low-rank.unargmaxable-exists` |", first_screen)

    def test_the_readme_shows_one_sample_of_the_claims_and_one_of_check_layer(self):
        shown = re.findall(r"^\$ python reviews/counterexamples.py (.*)$", readme(), re.M)
        self.assertEqual([line.split()[0] for line in shown], ["--claim", "check-layer"])


class TestClaimTables(unittest.TestCase):

    def test_the_tables_say_what_list_says(self):
        rows = re.findall(r"^\| `([^`]+)` \| (\w+) \| ([A-Z ]+) \| (\w+) \|"
                          r" (default|`--claim`) \| (.*) \|$", section("What it checks"), re.M)
        tabled = [{"id": i, "source": source, "expected": expected, "expected_by": by,
                   "by_default": runs == "default", "statement": statement.replace("\\|", "|")}
                  for i, source, expected, by, runs, statement in rows]
        out, err = io.StringIO(), io.StringIO()
        self.assertEqual(counterexamples.main(["--list", "--format", "json"], out, err), 0)
        self.assertEqual(tabled, json.loads(out.getvalue()))


class TestRegenerate(unittest.TestCase):

    def setUp(self):
        self.regenerate = _regenerate()

    def test_changed_claims_at_the_same_version_are_refused(self):
        refusal = self.regenerate.refusal_for({"version": "1.0.0", "claims": [1]},
                                              {"version": "1.0.0", "claims": [2]})
        self.assertIn("bump it", refusal)

    def test_a_new_version_or_same_claims_or_same_version_flag_pass(self):
        refusal_for = self.regenerate.refusal_for
        old = {"version": "1.0.0", "claims": [1]}
        self.assertIsNone(refusal_for(old, {"version": "1.1.0", "claims": [2]}))
        self.assertIsNone(refusal_for(old, {"version": "1.0.0", "claims": [1]}))
        self.assertIsNone(refusal_for(old, {"version": "1.0.0", "claims": [2]},
                                      same_version=True))

    def test_check_selected_names_each_claim_not_as_pinned(self):
        differing = self.regenerate.differing
        pinned = [{"id": "a", "verdict": "PASS"}, {"id": "b", "verdict": "PASS"}]
        self.assertEqual(differing(pinned, [{"id": "b", "verdict": "PASS"}]), [])
        self.assertEqual(differing(pinned, [{"id": "a", "verdict": "FAIL"},
                                            {"id": "c", "verdict": "PASS"}]), ["a", "c"])

    def test_the_golden_file_is_what_the_script_writes(self):
        # The file's own shape: the version and the claims, nothing else.
        with open(self.regenerate.GOLDEN, encoding="utf-8") as handle:
            golden = json.load(handle)
        self.assertEqual(sorted(golden), ["claims", "version"])


def ci_job():
    """The GitHub Actions job in the README's "In CI" section."""
    text = section("In CI")
    return text[text.index("```yaml\n") + 8:text.index("```\n", text.index("```yaml"))]


class TestCiJob(unittest.TestCase):

    def setUp(self):
        self.job = ci_job()
        self.commands = [line.split("- run: ", 1)[1] for line in self.job.splitlines()
                         if "- run: " in line]

    def test_the_job_is_indented_by_twos_without_tabs(self):
        self.assertNotIn("\t", self.job)
        for line in self.job.splitlines():
            indent = len(line) - len(line.lstrip(" "))
            self.assertEqual(indent % 2, 0, line)
        self.assertTrue(self.job.startswith("name: review\non: [push, pull_request]\njobs:\n"))

    def test_every_step_is_an_install_or_this_command(self):
        for command in self.commands:
            self.assertTrue(command == "pip install ." or command.startswith("counterexamples "),
                            command)
        self.assertEqual(len([c for c in self.commands if c.startswith("counterexamples")]), 2)

    def run_step(self, command, layer, folder):
        arguments = shlex.split(command.replace('"$LAYER"', shlex.quote(layer)))[1:]
        arguments = [os.path.join(folder, a) if a.endswith((".md", ".json")) else a
                     for a in arguments]
        out, err = io.StringIO(), io.StringIO()
        # The claims' checks are shared with the other tests that run them.
        with mock.patch.object(suite, "run", run_once):
            status = counterexamples.main(arguments, out, err)
        return status, out.getvalue(), err.getvalue()

    def test_the_claims_step_passes_and_writes_its_report(self):
        claims = [c for c in self.commands if c.startswith("counterexamples --")][0]
        with tempfile.TemporaryDirectory() as folder:
            self.assertEqual(self.run_step(claims, "", folder), (0, "", ""))
            with open(os.path.join(folder, "review.md"), encoding="utf-8") as handle:
                self.assertIn("0 MISMATCH", handle.read())

    def test_the_model_step_fails_on_an_unargmaxable_class_and_keeps_its_report(self):
        model = [c for c in self.commands if c.startswith("counterexamples check-layer")][0]
        with tempfile.TemporaryDirectory() as folder:
            layer = os.path.join(folder, "head.json")
            with open(layer, "w") as handle:
                handle.write(FIGURE_1_JSON)
            status, out, err = self.run_step(model, layer, folder)
            self.assertEqual((status, out), (1, ""))
            self.assertRegex(err, r"\Areading %s\npreparing 4 classes of dimension 2\n"
                                  r"checked 4/4 classes in \d+s\n\Z" % re.escape(layer))
            with open(os.path.join(folder, "layer.json"), encoding="utf-8") as handle:
                self.assertEqual(json.load(handle)["unargmaxable"], [3])
            with open(layer, "w") as handle:
                handle.write('{"weights": [[1, 0], [0, 1], [-1, -1]]}')
            self.assertEqual(self.run_step(model, layer, folder)[0], 0)


if __name__ == "__main__":
    unittest.main()
