"""What quantization changes on a seeded head: check-layer at each GGUF type, compared with F32.

    python tests/benchmarks/quantization_audit.py

The head (tests/data/gguf/audit; tests/data/gguf/README.md has its script) has 120
classes in d = 32: 90 Gaussian rows and 30 points between two of them,
moved toward the origin by factors 1 - 10**-4 to 1 - 10**-1.5, so inside
the hull at F32.  For each type it prints how many classes are
unargmaxable, which classes compare (counterexamples compare) finds
changed against F32, and the wall time of the check.
"""

import io
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from reviews.cli import main  # noqa: E402
from reviews.run.compare import compare_reports  # noqa: E402

AUDIT = os.path.join(ROOT, "tests", "data", "gguf", "audit")
TYPES = ("f32", "f16", "bf16", "q8_0", "q4_0")


def _report(folder, kind):
    path = os.path.join(folder, kind + ".json")
    start = time.perf_counter()
    status = main(["check-layer", os.path.join(AUDIT, "head_%s.gguf" % kind), "--format", "json",
                   "--output", path], io.StringIO(), io.StringIO())
    if status != 0:
        raise SystemExit("check-layer failed on %s" % kind)
    return path, time.perf_counter() - start


def main_audit():
    with tempfile.TemporaryDirectory() as folder:
        reports = {kind: _report(folder, kind) for kind in TYPES}
        print("| type | unargmaxable | changed against F32 | check |")
        print("| --- | ---: | --- | ---: |")
        for kind in TYPES:
            path, seconds = reports[kind]
            comparison = compare_reports(reports["f32"][0], path)
            unargmaxable = sum(not r.argmaxable for r in comparison.b.results)
            changed = ", ".join(str(change[0]) for change in comparison.changes) or "none"
            print("| %s | %d | %s | %.2f s |" % (kind.upper(), unargmaxable, changed, seconds))


if __name__ == "__main__":
    main_audit()
