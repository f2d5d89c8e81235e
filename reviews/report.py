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

__all__ = ["Suite", "text", "markdown", "as_json", "FORMATS", "all_match",
           "layer_text", "layer_json", "LAYER_FORMATS", "fraction_text"]

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


def fraction_text(value):
    """An exact rational as "p/q" (always with the denominator)."""
    return "%d/%d" % (value.numerator, value.denominator)


def layer_text(name, results, dim, has_bias):
    """Unargmaxable classes first, each with its combination, then a count."""
    unargmaxable = [r for r in results if not r.argmaxable]
    lines = ["%s: %d classes, d = %d, %s" % (name, len(results), dim,
                                              "with bias" if has_bias else "no bias")]
    if unargmaxable:
        lines.append("Unargmaxable classes (each is a convex combination of others"
                     "%s):" % (" with at least its bias" if has_bias else ""))
    for result in unargmaxable:
        terms = ["%s * w[%d]" % (fraction_text(v), j)
                 for j, v in enumerate(result.combination) if v]
        lines.append("  class %d: w[%d] = %s" % (result.index, result.index, " + ".join(terms)))
    lines.append("%d of %d classes unargmaxable; %d argmaxable (witnesses: --format json)"
                 % (len(unargmaxable), len(results), len(results) - len(unargmaxable)))
    return "\n".join(lines) + "\n"


def layer_json(name, results, dim, has_bias):
    """{"classes", "dim", "bias", "unargmaxable", "results"}; rationals as "p/q"."""
    entries = []
    for r in results:
        key, values = ("witness", r.witness) if r.argmaxable else ("combination", r.combination)
        entries.append({"index": r.index, "argmaxable": r.argmaxable,
                        key: [fraction_text(v) for v in values]})
    document = {
        "classes": len(results),
        "dim": dim,
        "bias": has_bias,
        "unargmaxable": [r.index for r in results if not r.argmaxable],
        "results": entries,
    }
    return json.dumps(document, indent=2) + "\n"


LAYER_FORMATS = {"text": layer_text, "json": layer_json}
