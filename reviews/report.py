"""Renderers: checked claims as text, markdown or JSON.

A renderer takes the suite's header (``Suite``) and a list of
``reviews.claims.Result`` and returns one string.  It knows nothing about any
paper: everything it prints comes from the claims and their outcomes.

    Suite       name, version and Python version of the run
    text        the terminal report
    markdown    a table to paste into a review, then the evidence
    as_json     stable keys: suite, python, ok, claims
    FORMATS     the renderers by name
    layer_text, layer_json, LAYER_FORMATS
                a checked layer (reviews.argmaxable results)
"""

import json
import os
from collections import namedtuple

from reviews.exact import rational_text

__all__ = ["Suite", "text", "markdown", "as_json", "FORMATS", "all_match",
           "layer_text", "layer_json", "LAYER_FORMATS"]

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


def text(suite, results, figures=None):
    """The terminal report: one block per claim, a tally at the end.

    ``figures`` maps a claim id to the paths of the figures written for it.
    """
    figures = figures or {}
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
        lines += ["    Figure: %s" % path for path in figures.get(claim.id, ())]
        lines.append("")
    lines.append(_tally(results))
    return "\n".join(lines) + "\n"


def _cell(value):
    return str(value).replace("|", "\\|")


def markdown(suite, results, figures=None):
    """A markdown table of the claims, then each claim's evidence and figures."""
    figures = figures or {}
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
        for path in figures.get(claim.id, ()):
            lines += ["", "Figure `%s`:" % path, "",
                      "![%s](%s)" % (os.path.basename(path), path)]
        lines.append("")
    lines.append("Python %s." % suite.python)
    return "\n".join(lines) + "\n"


def _claim_json(result, figures):
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
        "figures": list(figures.get(claim.id, ())),
    }


def as_json(suite, results, figures=None):
    """JSON with the keys suite, python, ok and claims (in that order)."""
    figures = figures or {}
    document = {
        "suite": {"name": suite.name, "version": suite.version},
        "python": suite.python,
        "ok": all_match(results),
        "claims": [_claim_json(result, figures) for result in results],
    }
    return json.dumps(document, indent=2) + "\n"


FORMATS = {"text": text, "markdown": markdown, "json": as_json}


def layer_text(name, results, dim, has_bias):
    """Unargmaxable classes first, each with its nonzero terms, then a count.

    Exact values are printed in full however many digits they have.
    """
    unargmaxable = [r for r in results if not r.argmaxable]
    lines = ["%s: %d classes, d = %d, %s" % (name, len(results), dim,
                                              "with bias" if has_bias else "no bias")]
    if unargmaxable:
        lines.append("Unargmaxable classes (each is a convex combination of others"
                     "%s):" % (" with at least its bias" if has_bias else ""))
    for result in unargmaxable:
        terms = ["%s * w[%d]" % (rational_text(v), j) for j, v in result.terms]
        lines.append("  class %d: w[%d] = %s" % (result.index, result.index, " + ".join(terms)))
    lines.append("%d of %d classes unargmaxable; %d argmaxable (witnesses: --format json)"
                 % (len(unargmaxable), len(results), len(results) - len(unargmaxable)))
    return "\n".join(lines) + "\n"


def layer_json(name, results, dim, has_bias):
    """{"classes", "dim", "bias", "unargmaxable", "results"}; rationals as "p/q" or "p".

    One line per class in "results".  An argmaxable class has its
    "witness" (d values); an unargmaxable one its "terms": the nonzero
    weights of its combination, [[j, value], ...] in increasing j (the
    other weights are 0).

    >>> from fractions import Fraction
    >>> from reviews.argmaxable import ClassResult
    >>> results = [ClassResult(0, True, (Fraction(1, 2),)),
    ...            ClassResult(1, False, None, ((0, Fraction(1)),))]
    >>> print(layer_json("f.csv", results, 1, True), end="")
    {
      "classes": 2,
      "dim": 1,
      "bias": true,
      "unargmaxable": [1],
      "results": [
        {"index": 0, "argmaxable": true, "witness": ["1/2"]},
        {"index": 1, "argmaxable": false, "terms": [[0, "1"]]}
      ]
    }
    """
    header = [("classes", len(results)), ("dim", dim), ("bias", has_bias),
              ("unargmaxable", [r.index for r in results if not r.argmaxable])]
    lines = ["{"] + ["  %s: %s," % (json.dumps(key), json.dumps(value)) for key, value in header]
    lines.append('  "results": [')
    lines.append(",\n".join("    " + json.dumps(_class_json(r)) for r in results))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def _class_json(result):
    entry = {"index": result.index, "argmaxable": result.argmaxable}
    if result.argmaxable:
        entry["witness"] = [rational_text(v) for v in result.witness]
    else:
        entry["terms"] = [[j, rational_text(v)] for j, v in result.terms]
    return entry


LAYER_FORMATS = {"text": layer_text, "json": layer_json}
