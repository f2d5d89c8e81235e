"""Renderers: checked claims as text, markdown or JSON.

A renderer takes the suite's header (``Suite``) and a list of
``reviews.claims.Result`` and returns one string.  It knows nothing about any
paper: everything it prints comes from the claims and their outcomes.

    Suite       name, version and Python version of the run
    text        the terminal report
    markdown    a table to paste into a review, then the evidence
    as_json     stable keys: suite, python, ok, claims
    FORMATS     the renderers by name
"""

import json
from collections import namedtuple

__all__ = ["Suite", "text", "markdown", "as_json", "FORMATS", "all_match"]

Suite = namedtuple("Suite", "name version python")
Suite.__doc__ = "The header of a run: suite name, suite version, Python version."


def all_match(results):
    """True when every verdict is the one the review states."""
    return all(result.matches for result in results)


def _citation(claim):
    paper = claim.paper
    return "%s (%s %d), arXiv:%s, %s" % (
        paper.title, ", ".join(paper.authors), paper.year, paper.arxiv, claim.where)


def _tally(results):
    mismatches = sum(not result.matches for result in results)
    return "%d claims: %d as the review states, %d MISMATCH" % (
        len(results), len(results) - mismatches, mismatches)


def text(suite, results):
    """The terminal report: one block per claim, a tally at the end."""
    lines = ["%s %s (Python %s)" % (suite.name, suite.version, suite.python), ""]
    for result in results:
        claim, outcome = result
        lines += [
            "%-11s %s" % (outcome.verdict, claim.id),
            "    %s" % _citation(claim),
            "    Claim: %s" % claim.statement,
            "    Review states: %s" % claim.expected,
            "    Found: %s" % outcome.summary,
        ]
        if not result.matches:
            lines.append("    MISMATCH: verdict %s, the review states %s"
                         % (outcome.verdict, claim.expected))
        width = max((len(row.label) for row in outcome.evidence), default=0)
        lines += ["      %-*s  %s" % (width, row.label, row.value)
                  for row in outcome.evidence]
        lines.append("")
    lines.append(_tally(results))
    return "\n".join(lines) + "\n"


def _cell(value):
    return str(value).replace("|", "\\|")


def markdown(suite, results):
    """A markdown table of the claims, then each claim's evidence."""
    lines = [
        "## %s %s" % (suite.name, suite.version),
        "",
        "| Claim | Where | Statement | Review | Verdict | Key numbers |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        claim, outcome = result
        verdict = outcome.verdict if result.matches else "%s (MISMATCH)" % outcome.verdict
        lines.append("| `%s` | arXiv:%s %s | %s | %s | %s | %s |" % (
            claim.id, claim.paper.arxiv, _cell(claim.where), _cell(claim.statement),
            claim.expected, verdict, _cell(outcome.summary)))
    lines += ["", _tally(results), ""]
    for result in results:
        claim, outcome = result
        lines += ["### `%s`: %s" % (claim.id, outcome.verdict), "",
                  "%s." % _citation(claim), "", "> %s" % claim.statement, ""]
        lines += ["- %s: `%s`" % (row.label, row.value) for row in outcome.evidence]
        lines.append("")
    lines.append("Python %s." % suite.python)
    return "\n".join(lines) + "\n"


def _claim_json(result):
    claim, outcome = result
    return {
        "id": claim.id,
        "paper": {
            "title": claim.paper.title,
            "authors": list(claim.paper.authors),
            "year": claim.paper.year,
            "arxiv": claim.paper.arxiv,
        },
        "where": claim.where,
        "statement": claim.statement,
        "expected": claim.expected,
        "verdict": outcome.verdict,
        "matches": result.matches,
        "summary": outcome.summary,
        "evidence": [{"label": row.label, "value": row.value} for row in outcome.evidence],
    }


def as_json(suite, results):
    """JSON with the keys suite, python, ok and claims (in that order)."""
    document = {
        "suite": {"name": suite.name, "version": suite.version},
        "python": suite.python,
        "ok": all_match(results),
        "claims": [_claim_json(result) for result in results],
    }
    return json.dumps(document, indent=2) + "\n"


FORMATS = {"text": text, "markdown": markdown, "json": as_json}
