"""Tests that the README says what the code does: versions, the citation,
and the golden file's regeneration."""

import importlib.util
import json
import os
import re
import unittest

from reviews import __version__

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


if __name__ == "__main__":
    unittest.main()
