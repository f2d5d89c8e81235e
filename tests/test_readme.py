"""Tests that the README says what the code does: versions, the citation,
and the golden file's regeneration."""

import importlib.util
import io
import json
import os
import re
import shlex
import tempfile
import unittest

from reviews import __version__
from reviews import counterexamples
from tests.support.commands import FIGURE_1_JSON

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as handle:
        return handle.read()


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

    def test_changes_start_with_this_version(self):
        versions = re.findall(r"^\*\*(\d+\.\d+\.\d+)\*\*$", section("Changes"), re.M)
        self.assertEqual(versions[0], __version__)
        self.assertEqual(len(versions), len(set(versions)))

    def test_the_citation_names_this_version_and_an_author(self):
        cite = section("Cite it")
        self.assertIn("version = {%s}," % __version__, cite)
        self.assertRegex(cite, r"author\s+= \{\{.+\}\},")

    def test_every_sample_names_this_version(self):
        shown = set(re.findall(r"^review-counterexamples (\S+) \(Python", readme(), re.M))
        self.assertEqual(shown, {__version__})


def samples():
    """Each README sample of this command: (arguments, the output shown)."""
    found = []
    for block in re.findall(r"^```\n(.*?)^```$", readme(), re.M | re.S):
        first, _, shown = block.partition("\n")
        if first.startswith("$ python reviews/counterexamples.py"):
            found.append((shlex.split(first)[3:], shown))
    return found


class TestSamples(unittest.TestCase):

    def test_every_sample_is_what_the_command_prints(self):
        # The version line names the Python that ran; the rest is the same everywhere.
        self.assertGreaterEqual(len(samples()), 3)
        for arguments, shown in samples():
            out, err = io.StringIO(), io.StringIO()
            counterexamples.main(arguments, out, err)
            printed = re.sub(r"\(Python [^)]*\)", "(Python 3.11.7)", out.getvalue(), count=1)
            self.assertEqual(printed, shown, arguments)


class TestLayout(unittest.TestCase):

    def test_the_sections_sentence_lists_the_headings_in_order(self):
        sentence = re.search(r"Sections: ([^.]*)\.", readme()).group(1)
        listed = re.split(r",\s+", " ".join(sentence.split()))
        self.assertEqual(listed, re.findall(r"^## (.+)$", readme(), re.M))

    def test_no_internal_commit_is_cited(self):
        # A reader outside the repository cannot look a commit up.
        self.assertEqual(re.findall(r"\bcommits? [0-9a-f]{7,40}\b", readme()), [])


class TestClaimTables(unittest.TestCase):

    def test_the_tables_say_what_list_says(self):
        rows = re.findall(r"^\| `([^`]+)` \| (\w+) \| ([A-Z ]+) \| (default|`--claim`) \|"
                          r" (.*) \|$", section("What it checks"), re.M)
        tabled = [{"id": i, "source": source, "expected": expected,
                   "by_default": runs == "default", "statement": statement.replace("\\|", "|")}
                  for i, source, expected, runs, statement in rows]
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
        return counterexamples.main(arguments, out, err), out.getvalue(), err.getvalue()

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
