"""The command run for the tests: in this process, as the script, or as code
in a new interpreter; and the layers and report lines the command's tests share."""

import hashlib
import io
import os
import platform
import subprocess
import sys
from unittest import mock

from reviews import __version__
from reviews.cli import main
from tests.support import ROOT, TERMINAL_SIGNALS
from tests.support.arrays import npy_bytes

FIGURE_1_JSON = '{"weights": [[-2, -2], [1, 2], [1.8, -0.8], [0.9, 0.2]]}'
# A number past what the project holds exactly, as the command names it.
SIZE_LIMIT = ("past the size limit: an exact value's numerator and denominator may have at most"
              " 65536 bits each (about 1e-19728 to 1e19728)")
SCRIPT = os.path.join(ROOT, "reviews", "counterexamples.py")
FAST = ["--claim", "memorization.masking"]
FIGURE_CLAIMS = ["--claim", "low-rank.unargmaxable-exists",
                 "--claim", "memorization.every-distribution"]
FIGURE_1_ROWS = [[-2, -2], [1, 2], [1.8, -0.8], [0.9, 0.2]]
FIGURE_1_CERTIFICATE = "  class 3: w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]\n"
# The README's example: what a user who copies it sees, byte for byte.
README_EXAMPLE = ["check-layer", "--example", "figure1"]
README_NAME = "example:figure1"
README_OUTPUT = """\
example:figure1: 4 classes, d = 2, no bias; classes numbered from 0
Unargmaxable classes: each one's weights w[i] are a convex combination of
other classes' weights, so its logit is the same weighted mean of theirs for
every input, never strictly the largest.
  class 3: w[3] = 0.148276*w[0] + 0.420690*w[1] + 0.431034*w[2]
1 of 4 classes unargmaxable, 3 argmaxable.
Coefficients to 6 significant digits. Exact values and witnesses: --format json
"""


def relative(path):
    """How a report on standard output cites ``path``: from the current folder."""
    return os.path.relpath(path).replace(os.sep, "/")


def command(*arguments, cwd=None):
    """Run the script as a reviewer does, from another folder by default."""
    return subprocess.run([sys.executable, SCRIPT] + list(arguments), cwd=cwd or os.sep,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                          **TERMINAL_SIGNALS)


def run_code(code, *arguments):
    """Run ``code`` in a new interpreter from the repository root, bytes out; as the CLI runs."""
    return subprocess.run([sys.executable, "-c", code] + list(arguments), cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                          **TERMINAL_SIGNALS)


def in_process(*arguments):
    out, err = io.StringIO(), io.StringIO()
    status = main(list(arguments), out, err)
    return status, out.getvalue(), err.getvalue()


def provenance(*paths, options="none", root=""):
    """The lines a check-layer text report starts with for a layer read from
    ``paths`` (files under ``root``, or standard input)."""
    lines = ["review-counterexamples %s (Python %s)" % (__version__,
                                                         platform.python_version())]
    for path in paths:
        if path == "<stdin>":
            lines.append("file: <stdin> (standard input)")
            continue
        with open(os.path.join(root, path), "rb") as handle:
            data = handle.read()
        lines.append("file: %s, %d bytes, sha256 %s"
                     % (path, len(data), hashlib.sha256(data).hexdigest()))
    return "\n".join(lines + ["options: " + options]) + "\n"


def body(out):
    """A check-layer text report without the provenance lines it starts with."""
    lines = out.splitlines(True)
    return "".join(lines[next(n for n, line in enumerate(lines)
                              if line.startswith("options: ")) + 1:])


def figure_1_npz_members(*extra):
    """A .npz member of Figure 1's weights as float64, then ``extra`` members."""
    flat = [v for row in FIGURE_1_ROWS for v in row]
    return [("lm_head.npy", npy_bytes(flat, (4, 2)))] + list(extra)


def standard_input(text):
    """A patch of sys.stdin with ``text``, bytes beneath as the reader needs."""
    return mock.patch("sys.stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
