"""Tests that the README, the pages in docs/ and CHANGELOG.md say what the
code does: every sample is what the command prints, every link leads
somewhere, the changes start with this version, and the input limits are
the code's."""

import io
import os
import re
import shlex
import unittest

from reviews import __version__
from reviews import counterexamples
from reviews.argmax.kernels.layer_input import MAX_SPREAD_LAYER_BITS
from reviews.exact import MAX_BITS
from reviews.formats.binary import MAX_TENSORS
from reviews.formats.source import MAX_HOLE_BYTES, MAX_TEXT_BYTES, MAX_VALUES
from tests.support import ROOT
from tests.support.documents import document, documents

def samples():
    """Each sample of this command in any page: (page, arguments, the output shown)."""
    found = []
    for name, text in documents().items():
        for block in re.findall(r"^```\n(.*?)^```$", text, re.M | re.S):
            first, _, shown = block.partition("\n")
            if first.startswith("$ python reviews/counterexamples.py"):
                found.append((name, shlex.split(first)[3:], shown))
    return found


def anchor(heading):
    """The fragment GitHub gives a heading: lower case, punctuation dropped, spaces as -."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(text):
    return {anchor(heading) for heading in re.findall(r"^#+ (.+)$", text, re.M)}


def relative_links(text):
    """(target, fragment) of each Markdown link that is not a URL."""
    text = re.sub(r"^```.*?^```$", "", text, flags=re.M | re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if not re.match(r"[a-z]+:", target):
            path, _, fragment = target.partition("#")
            yield path, fragment


class TestSamples(unittest.TestCase):

    def test_every_sample_is_what_the_command_prints(self):
        # The version line names the Python that ran; the rest is the same everywhere.
        self.assertGreaterEqual(len(samples()), 4)
        for name, arguments, shown in samples():
            out, err = io.StringIO(), io.StringIO()
            counterexamples.main(arguments, out, err)
            printed = re.sub(r"\(Python [^)]*\)", "(Python 3.11.7)", out.getvalue(), count=1)
            self.assertEqual(printed, shown, (name, arguments))

    def test_every_sample_names_this_version(self):
        shown = set()
        for text in documents().values():
            shown.update(re.findall(r"^review-counterexamples (\S+) \(Python", text, re.M))
        self.assertEqual(shown, {__version__})


class TestLinks(unittest.TestCase):

    def test_every_relative_link_points_to_an_existing_file(self):
        for name, text in documents().items():
            folder = os.path.dirname(os.path.join(ROOT, name))
            for path, _ in relative_links(text):
                if path:
                    self.assertTrue(os.path.exists(os.path.join(folder, path)), (name, path))

    def test_every_link_to_a_heading_finds_it(self):
        for name, text in documents().items():
            folder = os.path.dirname(os.path.join(ROOT, name))
            for path, fragment in relative_links(text):
                if fragment:
                    target = os.path.join(folder, path) if path else os.path.join(ROOT, name)
                    with open(target, encoding="utf-8") as handle:
                        self.assertIn(fragment, anchors(handle.read()), (name, path, fragment))

    def test_the_readme_links_to_every_page_in_docs(self):
        linked = {os.path.normpath(path) for path, _ in relative_links(document("README.md"))}
        for name in documents():
            if name.startswith("docs" + os.sep) or name == "CHANGELOG.md":
                self.assertIn(name, linked)


class TestChangelog(unittest.TestCase):

    def test_changes_start_with_this_version(self):
        versions = re.findall(r"^## (\d+\.\d+\.\d+)$", document("CHANGELOG.md"), re.M)
        self.assertEqual(versions[0], __version__)
        self.assertEqual(len(versions), len(set(versions)))


class TestNoInternalReferences(unittest.TestCase):

    def test_no_internal_commit_is_cited(self):
        # A reader outside the repository cannot look a commit up.
        for name, text in documents().items():
            self.assertEqual(re.findall(r"\bcommits? [0-9a-f]{7,40}\b", text), [], name)


class TestInputLimits(unittest.TestCase):

    def setUp(self):
        self.page = " ".join(document(os.path.join("docs", "input-limits.md")).split())

    def test_the_value_and_size_limits_are_the_code_s(self):
        self.assertEqual((MAX_VALUES, MAX_TENSORS, MAX_BITS), (2 ** 31, 2 ** 16, 65536))
        self.assertIn("at most 2^31 = %s values (`MAX_VALUES`)" % format(MAX_VALUES, ","),
                      self.page)
        self.assertIn("2^16 = %s tensors (`MAX_TENSORS`)" % format(MAX_TENSORS, ","), self.page)
        self.assertIn("at most %s bits each (`MAX_BITS`)" % format(MAX_BITS, ","), self.page)
        self.assertIn("2^20 = %s (`MAX_SPREAD_LAYER_BITS`)" % format(MAX_SPREAD_LAYER_BITS, ","),
                      self.page)

    def test_the_file_limits_are_the_code_s(self):
        self.assertEqual(MAX_TEXT_BYTES, 64 * 2 ** 20)
        self.assertEqual(MAX_HOLE_BYTES, 64 * 2 ** 20)
        self.assertIn("at most 64 MiB (`MAX_TEXT_BYTES`)", self.page)
        self.assertIn("at most 64 MiB (`MAX_HOLE_BYTES`)", self.page)


if __name__ == "__main__":
    unittest.main()
