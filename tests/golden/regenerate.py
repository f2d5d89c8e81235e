"""Regenerate tests/golden/claims.json: every claim's output, and the version it pins.

    python tests/golden/regenerate.py [--same-version]
    python tests/golden/regenerate.py --check-selected

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

``--check-selected`` writes nothing: it runs the claims that run only when
selected (their checks take long, so the tests leave them to this; CI runs
it on every Python) and exits 0 if their output is the golden file's, 1
naming the claims that differ.
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


def differing(pinned_claims, run_claims):
    """The ids of the claims run whose output is not the one pinned, in order.

    >>> differing([{"id": "a", "v": 1}, {"id": "b", "v": 2}], [{"id": "b", "v": 3}])
    ['b']
    >>> differing([{"id": "a", "v": 1}], [{"id": "a", "v": 1}])
    []
    """
    pinned_by_id = {claim["id"]: claim for claim in pinned_claims}
    return [claim["id"] for claim in run_claims if pinned_by_id.get(claim["id"]) != claim]


def _report(claims):
    """The suite's JSON report of the claims listed (each a --list entry)
    in a fresh interpreter, or None if it exits non-zero."""
    chosen = [argument for claim in claims for argument in ("--claim", claim["id"])]
    done = subprocess.run([sys.executable, SCRIPT, "--format", "json"] + chosen, cwd=ROOT,
                          stdout=subprocess.PIPE, universal_newlines=True)
    return json.loads(done.stdout) if done.returncode == 0 else None


def _check_selected(listed):
    """0 if the claims that run only when selected print what the golden file pins, else 1."""
    selected = [claim for claim in listed if not claim["by_default"]]
    report = _report(selected)
    with open(GOLDEN, encoding="utf-8") as handle:
        golden = json.load(handle)
    if report is None:
        sys.stderr.write("check-selected: the suite exited non-zero\n")
        return 1
    changed = differing(golden["claims"], report["claims"])
    if changed:
        sys.stderr.write("check-selected: not as pinned: %s\n" % ", ".join(changed))
        return 1
    print("check-selected: as pinned: %s" % ", ".join(claim["id"] for claim in selected))
    return 0


def main(argv):
    if argv not in ([], ["--same-version"], ["--check-selected"]):
        sys.stderr.write("usage: python tests/golden/regenerate.py"
                         " [--same-version | --check-selected]\n")
        return 2
    listed = json.loads(subprocess.run(
        [sys.executable, SCRIPT, "--list", "--format", "json"], cwd=ROOT,
        stdout=subprocess.PIPE, universal_newlines=True, check=True).stdout)
    if argv == ["--check-selected"]:
        return _check_selected(listed)
    report = _report(listed)
    if report is None:
        sys.stderr.write("regenerate: the suite exited non-zero; nothing written\n")
        return 1
    new = pinned(report)
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
