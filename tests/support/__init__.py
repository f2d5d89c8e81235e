"""What the tests share, and no test module imports from another: here, a
temporary folder to write files into, a fresh interpreter for what one
process can show only once (its imports), rows read from a file as lists,
and one bytecode cache for the processes the tests start; in the package's
modules:

    commands     the command run in this process, as the script, or as code
    claims       the reviewed claims' checks run once per test process
    arrays       .npy, .npz and .safetensors files as bytes
    torch_files  torch checkpoints as bytes
    models       model folders and their exact layers
    layers       layers the checker's tests share
    softmax      seeded logits and exact references, rounded
    workers      worker processes that spin, and checks that none is left
    pages        an HTML page parsed, its elements checked to close
    documents    the README, CHANGELOG.md and docs/ pages as text
"""

import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The tests start the command and worker processes some seventy times, and
# each compiled the whole package again where PYTHONDONTWRITEBYTECODE is set
# (0.2 s of CPU each, a quarter of the suite's): they share one bytecode
# cache in a temporary folder instead, removed at exit, so that the tree
# stays as clean as that setting keeps it.
# A process the tests started that imports this module uses its parent's.
# The folder's name holds the process id of the run that made it: a run
# ended by SIGTERM or SIGKILL runs no exit handler, and the next run
# removes its folder.
_BYTECODE_PREFIX = "review-tests-bytecode-"


def _remove_orphaned_bytecode():
    if os.name != "posix":
        return   # os.kill(pid, 0) would end the process elsewhere
    folder = tempfile.gettempdir()
    for name in os.listdir(folder):
        if not name.startswith(_BYTECODE_PREFIX):
            continue
        pid = name[len(_BYTECODE_PREFIX):].split("-", 1)[0]
        if pid.isdigit():
            try:
                os.kill(int(pid), 0)
            except ProcessLookupError:
                shutil.rmtree(os.path.join(folder, name), True)
            except OSError:
                pass   # another user's running process


if not os.path.basename(os.environ.get("PYTHONPYCACHEPREFIX", "")).startswith(_BYTECODE_PREFIX):
    _remove_orphaned_bytecode()
    _bytecode = tempfile.mkdtemp(prefix="%s%d-" % (_BYTECODE_PREFIX, os.getpid()))
    atexit.register(shutil.rmtree, _bytecode, True)
    os.environ["PYTHONPYCACHEPREFIX"] = _bytecode
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def _as_from_a_terminal():
    for name in ("SIGINT", "SIGHUP"):
        signal.signal(getattr(signal, name), signal.SIG_DFL)


# Keywords for subprocess: the child starts with SIGINT and SIGHUP at their
# defaults, as from a terminal, whatever the shell that runs the tests
# ignores (nohup, a shell's background job, some CI runners): the tests of
# those signals must not depend on it.
TERMINAL_SIGNALS = {"preexec_fn": _as_from_a_terminal} if os.name == "posix" else {}


def fresh_python(code):
    """Run ``code`` in a new interpreter that imports ``reviews`` from this checkout."""
    return subprocess.run([sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1])\n"
                           + code, ROOT], capture_output=True, text=True, timeout=120,
                          **TERMINAL_SIGNALS)


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
