"""Helpers shared by the tests: a temporary folder to write files into, a
fresh interpreter for what one process can show only once (its imports),
and rows read from a file as lists."""

import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def fresh_python(code):
    """Run ``code`` in a new interpreter that imports ``reviews`` from this checkout."""
    return subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1])\n"
                           + code, ROOT], capture_output=True, text=True, timeout=120)


def listed(rows):
    """Rows as lists: a layer read from an array of floats has array.array rows."""
    return [list(row) for row in rows]


class FileTestCase(unittest.TestCase):
    """A TestCase with a fresh temporary folder and ``write(name, content)``."""

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.addCleanup(self.folder.cleanup)

    def write(self, name, content):
        path = os.path.join(self.folder.name, name)
        with open(path, "wb") as handle:
            handle.write(content if isinstance(content, bytes) else content.encode())
        return path
