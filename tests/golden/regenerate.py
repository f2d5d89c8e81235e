"""Regenerate tests/golden/claims.json: every claim's output, and the version it pins.

    python tests/golden/regenerate.py [--same-version]

runs the suite's JSON report of every claim (those that run only when
selected too) in a fresh interpreter and writes {"version": ...,
"claims": [...]} to tests/golden/claims.json.  A version
number must change whenever any claim's output changes (CHANGELOG.md
says what and why), so when the claims differ from the
file's and the version is still the one the file records, nothing is
written and the script exits 1 naming what to bump; ``--same-version``
writes anyway, for a version not yet published (the commits between a bump
and its release, each adding to the same Changes entry).  The file is
replaced in one step: a failing run never leaves it empty or half written.
"""

import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "golden", "claims.json")
SCRIPT = os.path.join(ROOT, "reviews", "counterexamples.py")


def pinned(report):
    """What the golden file holds of a JSON report: its version and claims."""
    return {"version": report["suite"]["version"], "claims": report["claims"]}


def refusal_for(old, new, same_version=False):
    """Why ``new`` may not replace the golden file's ``old`` content, or None.

    >>> refusal_for({"version": "1", "claims": [1]}, {"version": "1", "claims": [1]})
    >>> refusal_for({"version": "1", "claims": [1]}, {"version": "2", "claims": [2]})
    >>> refusal_for({"version": "1", "claims": [1]}, {"version": "1", "claims": [2]})[:40]
    "the claims' output changed but the versi"
    """
    if (not same_version and isinstance(old, dict) and old.get("version") == new["version"]
            and old.get("claims") != new["claims"]):
        return ("the claims' output changed but the version is still %s: bump it"
                " (reviews/__init__.py, pyproject.toml) and add an entry to CHANGELOG.md"
                " (--same-version: this version is not published yet)" % new["version"])
    return None


def main(argv):
    if argv not in ([], ["--same-version"]):
        sys.stderr.write("usage: python tests/golden/regenerate.py [--same-version]\n")
        return 2
    listed = subprocess.run([sys.executable, SCRIPT, "--list", "--format", "json"], cwd=ROOT,
                            stdout=subprocess.PIPE, universal_newlines=True, check=True)
    every = [argument for claim in json.loads(listed.stdout)
             for argument in ("--claim", claim["id"])]
    done = subprocess.run([sys.executable, SCRIPT, "--format", "json"] + every, cwd=ROOT,
                          stdout=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        sys.stderr.write("regenerate: the suite exited %d; nothing written\n" % done.returncode)
        return 1
    new = pinned(json.loads(done.stdout))
    try:
        with open(GOLDEN, encoding="utf-8") as handle:
            old = json.load(handle)
    except FileNotFoundError:
        old = None
    refusal = refusal_for(old, new, same_version=bool(argv))
    if refusal:
        sys.stderr.write("regenerate: %s; nothing written\n" % refusal)
        return 1
    temporary = GOLDEN + ".tmp"
    with open(temporary, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(json.dumps(new, indent=2) + "\n")
    os.replace(temporary, GOLDEN)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
