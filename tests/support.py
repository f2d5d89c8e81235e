"""Helpers shared by the tests: a temporary folder to write files into."""

import os
import tempfile
import unittest


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
