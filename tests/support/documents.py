"""The project's Markdown pages as the documentation tests read them."""

import glob
import os

from tests.support import ROOT


def document(name):
    """The text of the page ``name``, relative to the repository root."""
    with open(os.path.join(ROOT, name), encoding="utf-8") as handle:
        return handle.read()


def documents():
    """{path relative to the root: text} of every Markdown page."""
    names = ["README.md", "CHANGELOG.md"] + sorted(
        os.path.relpath(path, ROOT) for path in glob.glob(os.path.join(ROOT, "docs", "*.md")))
    return {name: document(name) for name in names}
