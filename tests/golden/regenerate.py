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
    """The ids of the claims run whose output is not the one pinned, in
    order, compared as JSON (so that 1 is not true).

    >>> differing([{"id": "a", "v": 1}, {"id": "b", "v": 2}], [{"id": "b", "v": 3}])
    ['b']
    >>> differing([{"id": "a", "v": True}], [{"id": "a", "v": 1}])
    ['a']
    >>> differing([{"id": "a", "v": 1}], [{"id": "a", "v": 1}])
    []
    """
    pinned_by_id = {claim["id"]: _canonical(claim) for claim in pinned_claims}
    return [claim["id"] for claim in run_claims
            if pinned_by_id.get(claim["id"]) != _canonical(claim)]


def _canonical(claim):
    return json.dumps(claim, sort_keys=True)


class _Failed(Exception):
    """What stops the script, in one line."""


def _json_of(command):
    """The JSON a command of the suite prints, run in a fresh interpreter."""
    done = subprocess.run([sys.executable, SCRIPT] + command, cwd=ROOT,
                          stdout=subprocess.PIPE, universal_newlines=True)
    if done.returncode != 0:
        raise _Failed("the suite exited %d" % done.returncode)
    try:
        return json.loads(done.stdout)
    except ValueError as error:
        raise _Failed("the suite's output is not JSON (%s)" % error) from None


def _report(claims):
    """The suite's JSON report of the claims listed (each a --list entry)."""
    chosen = [argument for claim in claims for argument in ("--claim", claim["id"])]
    return _json_of(["--format", "json"] + chosen)


def _pinned_claims():
    """The golden file's claims, each with its id once."""
    try:
        with open(GOLDEN, encoding="utf-8") as handle:
            claims = json.load(handle)["claims"]
        ids = [claim["id"] for claim in claims]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise _Failed("cannot read %s: %s" % (GOLDEN, error or type(error).__name__)) from None
    repeated = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    if repeated:
        raise _Failed("%s pins %s more than once" % (GOLDEN, ", ".join(map(str, repeated))))
    return claims


def _check_selected(listed):
    """The line saying that the claims that run only when selected print
    what the golden file pins; _Failed if they do not."""
    selected = [claim for claim in listed if not claim["by_default"]]
    if not selected:
        return "check-selected: no claim runs only when selected"
    pinned = _pinned_claims()
    changed = differing(pinned, _report(selected)["claims"])
    if changed:
        raise _Failed("not as pinned: %s" % ", ".join(changed))
    return "check-selected: as pinned: %s" % ", ".join(claim["id"] for claim in selected)


def main(argv):
    if argv not in ([], ["--same-version"], ["--check-selected"]):
        sys.stderr.write("usage: python tests/golden/regenerate.py"
                         " [--same-version | --check-selected]\n")
        return 2
    name = "check-selected" if argv == ["--check-selected"] else "regenerate"
    try:
        listed = _json_of(["--list", "--format", "json"])
        if name == "check-selected":
            print(_check_selected(listed))
            sys.stdout.flush()
            return 0
        report = _report(listed)
    except _Failed as failure:
        sys.stderr.write("%s: %s%s\n" % (name, failure, "" if name == "check-selected"
                                            else "; nothing written"))
        return 1
    except OSError as error:
        # Standard output full or gone: the status says it.
        sys.stderr.write("%s: cannot write: %s\n" % (name, error))
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
