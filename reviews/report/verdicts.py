"""The claims' verdicts as text, markdown or JSON, and the lines every format shares.

A renderer takes the suite's header (``Suite``), a list of
``reviews.claims.Result`` and the figures drawn for them (``Drawn``), and
returns one string.  It knows nothing about any paper: everything it prints
comes from the claims, their outcomes and their figures.  (The HTML page is
reviews.report.html.)

    Suite       name, version and Python version of the run
    Drawn       a claim's figure as drawn for a report
    text        the terminal report
    markdown    a table to paste into a review, then the evidence
    as_json     stable keys: suite, python, ok, claims
    FORMATS     the renderers by name
    version_line, citation, stated, words_label, tally, sampled_line, alt_text,
    verdict_cell, SELECTED_ONLY
                lines every format shares
    listing     the claims' ids, whose statements, expected verdicts, statements

A checked layer's reports are reviews.report.layer; markdown's own pieces
(code spans, table cells) reviews.report.markdown.
"""

import json
from collections import namedtuple

from reviews.claims import BY_REVIEW, FAIL, NOT_CHECKED, PASS, VERDICTS
from reviews.report.markdown import code_span, link_target, markdown_name, table_cell
from reviews.shown import shown_name

__all__ = ["Suite", "Drawn", "text", "markdown", "as_json", "FORMATS", "all_match",
           "version_line", "citation", "stated", "words_label", "tally", "sampled_line", "mismatch_line", "alt_text", "verdict_cell", "listing",
           "SELECTED_ONLY"]

Suite = namedtuple("Suite", "name version python scope", defaults=(None,))
Suite.__doc__ = """The header of a run: suite name, suite version, Python version, and
a line that says what the checks are and are not (or None)."""

Drawn = namedtuple("Drawn", "name description svg path")
Drawn.__doc__ = """A claim's figure as drawn for a report: its file name, what it shows
(or None), its SVG text, and the path the report cites it by (None when no
file was written)."""


def all_match(results):
    """True when every verdict is the one its claim expects."""
    return all(result.matches for result in results)


def version_line(suite):
    """The line a reviewer cites: "name version (Python x.y.z)"."""
    return "%s %s (Python %s)" % (suite.name, suite.version, suite.python)


def citation(claim):
    """Paper, authors, year, arXiv id with its version, where in the paper,
    and whose statement it is (naming the review it comes through)."""
    paper = claim.paper
    return "%s (%s %d), arXiv:%s%s, %s; %s" % (
        paper.title, ", ".join(paper.authors), paper.year, paper.arxiv, paper.version or "",
        claim.where, claim.attribution)


def _expecter(claim):
    return "the review" if claim.expected_by == BY_REVIEW else "this suite"


def stated(claim):
    """The expected verdict and whose it is: the review's, in its own words,
    where the review judges the paper's claim; else this suite's, and for a
    review's own statement, that the review gives it no verdict.

    >>> from reviews.claims import PASS, Claim
    >>> stated(Claim("a.b", None, "", "", PASS, None))
    "Expected: PASS, this suite's verdict"
    """
    if claim.expected_by == BY_REVIEW:
        return 'Expected: %s, the review\'s verdict: "%s"' % (claim.expected,
                                                             claim.verdict_words)
    return "Expected: %s, this suite's verdict%s" % (
        claim.expected, "; the review asserts the statement and gives it no verdict"
        if claim.source == BY_REVIEW else "")


def words_label(claim):
    """Whose words a claim's ``quoted`` holds, as a report introduces them.

    >>> from reviews.claims import PASS, Claim, Paper
    >>> words_label(Claim("a.b", Paper("T", ("A",), 2025, "2501.00001"), "", "", PASS, None))
    "In the paper's words"
    """
    return "In the %s's words" % claim.quoted_from


def tally(results):
    """ "N claims: P PASS and F FAIL as stated (S of them decided on sampled
    cases only); K NOT CHECKED; M MISMATCH": a claim whose check cannot
    decide it (NOT CHECKED, as stated) is not counted as checked, and one
    whose verdict rests on sampled cases only is counted apart.

    >>> for part in tally([]).split("; "):
    ...     print(part)
    0 claims: 0 PASS and 0 FAIL as stated (0 of them decided on sampled cases only)
    0 NOT CHECKED
    0 MISMATCH
    """
    agreeing = [result.outcome for result in results if result.matches]
    counts = {verdict: sum(outcome.verdict == verdict for outcome in agreeing)
              for verdict in VERDICTS}
    sampled = sum(outcome.sampled is not None for outcome in agreeing
                  if outcome.verdict != NOT_CHECKED)
    return ("%d claim%s: %d %s and %d %s as stated (%d of them decided on sampled cases only);"
            " %d %s; %d MISMATCH" % (len(results), "" if len(results) == 1 else "s",
                                     counts[PASS], PASS, counts[FAIL], FAIL, sampled,
                                     counts[NOT_CHECKED], NOT_CHECKED,
                                     len(results) - len(agreeing)))


def sampled_line(outcome):
    """The line that says a verdict rests on sampled cases only, or None.

    >>> from reviews.claims import PASS, Outcome
    >>> sampled_line(Outcome(PASS, "", (), "the 3 gaps checked"))
    'Decided on sampled cases only: the 3 gaps checked'
    """
    if outcome.sampled is None:
        return None
    return "Decided on sampled cases only: %s" % outcome.sampled


def mismatch_line(result):
    """What a MISMATCH is: the verdict found against the one stated, and by whom.

    >>> from reviews.claims import FAIL, PASS, Claim, Outcome, Result
    >>> mismatch_line(Result(Claim("a.b", None, "", "", PASS, None), Outcome(FAIL, "", ())))
    'MISMATCH: verdict FAIL, this suite states PASS'
    """
    return "MISMATCH: verdict %s, %s states %s" % (result.outcome.verdict,
                                                  _expecter(result.claim), result.claim.expected)


def verdict_cell(result):
    """The verdict, and where it differs from the stated one, MISMATCH.

    >>> from reviews.claims import FAIL, PASS, Claim, Outcome, Result
    >>> verdict_cell(Result(Claim("a.b", None, "", "", PASS, None), Outcome(FAIL, "", ())))
    'FAIL (MISMATCH: this suite states PASS)'
    """
    if result.matches:
        return result.outcome.verdict
    return "%s (MISMATCH: %s states %s)" % (result.outcome.verdict, _expecter(result.claim),
                                           result.claim.expected)


# Said of a claim that a run without --claim leaves out.
SELECTED_ONLY = "Runs only when selected (--claim with its id or paper): its check takes long."


def alt_text(claim, drawn):
    """What a figure shows, in one line: its description, else its name."""
    return " ".join((drawn.description or "Figure %s of claim %s" % (
        drawn.name, claim.id)).split())


def _cited(figures, claim):
    """The paths a report cites for the claim's figures (those written)."""
    return [drawn.path for drawn in figures.get(claim.id, ()) if drawn.path is not None]


def text(suite, results, figures=None):
    """The terminal report: one block per claim, a tally at the end.

    ``figures`` maps a claim id to the figures drawn for it (``Drawn``);
    those written to a file are named under their claim.
    """
    figures = figures or {}
    lines = [version_line(suite)] + ([suite.scope] if suite.scope else []) + [""]
    for result in results:
        claim, outcome = result
        lines += [
            "%-11s %s" % (outcome.verdict, claim.id),
            "    %s" % citation(claim),
            "    %s: %s" % (claim.whose, claim.statement),
        ] + (['    %s: "%s"' % (words_label(claim), claim.quoted)] if claim.quoted else []) + [
            "    %s" % stated(claim),
        ] + ([] if claim.by_default else ["    %s" % SELECTED_ONLY]) + [
            "    Found: %s" % outcome.summary,
        ] + (["    %s" % sampled_line(outcome)] if outcome.sampled is not None else [])
        if not result.matches:
            lines.append("    " + mismatch_line(result))
        width = max((len(row.label) for row in outcome.evidence), default=0)
        lines += ["      %-*s  %s" % (width, row.label, row.value)
                  for row in outcome.evidence]
        lines += ["    Figure: %s" % shown_name(path) for path in _cited(figures, claim)]
        lines.append("")
    lines.append(tally(results))
    return "\n".join(lines) + "\n"


def markdown(suite, results, figures=None):
    """The version line, a table of the claims, then each claim's evidence
    and its written figures (alt text: what the figure shows)."""
    figures = figures or {}
    lines = ["## %s" % version_line(suite), ""] + ([suite.scope, ""] if suite.scope else []) + [
        "| Claim | Where | Statement by | Statement (this suite's words) | This suite's verdict"
        " | Key numbers |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        claim, outcome = result
        verdict = verdict_cell(result)
        lines.append("| `%s` | arXiv:%s%s %s | %s | %s | %s | %s |" % (
            claim.id, claim.paper.arxiv, claim.paper.version or "", table_cell(claim.where),
            claim.source,
            table_cell(claim.statement), verdict if result.matches else "**%s**" % verdict,
            table_cell(outcome.summary)))
    lines += ["", tally(results), ""]
    for result in results:
        claim, outcome = result
        lines += ["### `%s`: %s" % (claim.id, verdict_cell(result)), "",
                  "%s." % citation(claim), "", "%s: %s" % (claim.whose, claim.statement), ""]
        if claim.quoted:
            lines += ["%s:" % words_label(claim), "", "> %s" % claim.quoted, ""]
        if not claim.by_default:
            lines += [SELECTED_ONLY.replace("--claim", "`--claim`"), ""]
        lines += ["%s  " % stated(claim), "Found: %s" % outcome.summary
                  + ("  \n%s" % sampled_line(outcome) if outcome.sampled is not None else ""),
                  ""]
        if not result.matches:
            lines += ["**%s**" % mismatch_line(result), ""]
        lines += ["- %s: %s" % (row.label, code_span(row.value)) for row in outcome.evidence]
        for drawn in figures.get(claim.id, ()):
            if drawn.path is None:
                continue
            alt = alt_text(claim, drawn)
            lines += ["", "Figure %s: %s" % (markdown_name(drawn.path), alt), "",
                      "![%s](%s)" % (alt.replace("[", "\\[").replace("]", "\\]"),
                                     link_target(drawn.path))]
        lines.append("")
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
            "version": claim.paper.version,
            "review": claim.paper.review,
        },
        "where": claim.where,
        "statement": claim.statement,
        "quoted": claim.quoted,
        "source": claim.source,
        "expected_by": claim.expected_by,
        "verdict_words": claim.verdict_words,
        "by_default": claim.by_default,
        "expected": claim.expected,
        "verdict": outcome.verdict,
        "matches": result.matches,
        "summary": outcome.summary,
        "sampled": outcome.sampled,
        "evidence": [{"label": row.label, "value": row.value} for row in outcome.evidence],
        "figures": _cited(figures, claim),
    }


def as_json(suite, results, figures=None):
    """JSON with the keys suite, python, ok, tally and claims (in that order)."""
    figures = figures or {}
    document = {
        "suite": {"name": suite.name, "version": suite.version, "scope": suite.scope},
        "python": suite.python,
        "ok": all_match(results),
        "tally": tally(results),
        "claims": [_claim_json(result, figures) for result in results],
    }
    return json.dumps(document, indent=2) + "\n"


FORMATS = {"text": text, "markdown": markdown, "json": as_json}


def listing(claims, form="text"):
    """The claims' ids, whose statements they are, the expected verdicts
    and whose verdicts those are (the review's where it judges the paper's
    claim in words, else this suite's),
    when they run (by default, or only when selected by --claim) and the
    statements: aligned columns under a header; for ``form`` "markdown" a
    table as the README shows it, for "json" a list of objects with the
    keys id, source, expected, expected_by, by_default and statement.

    >>> from reviews.claims import BY_SUITE, FAIL, PASS, Claim
    >>> print(listing([Claim("a.one", None, "", "Red.", FAIL, None),
    ...                Claim("a.two", None, "", "Blue.", PASS, None, source=BY_SUITE,
    ...                      by_default=False)]), end="")
    id     by     expected  verdict by  runs     statement
    a.one  paper  FAIL      suite       default  Red.
    a.two  suite  PASS      suite       --claim  Blue.
    >>> print(listing([Claim("a.one", None, "", "|x|.", FAIL, None)], "markdown"), end="")
    | id | by | expected | verdict by | runs | statement |
    | --- | --- | --- | --- | --- | --- |
    | `a.one` | paper | FAIL | suite | default | \\|x\\|. |
    """
    if form == "markdown":
        lines = ["| id | by | expected | verdict by | runs | statement |",
                 "| --- | --- | --- | --- | --- | --- |"]
        lines += ["| %s | %s | %s | %s | %s | %s |" % (
            code_span(claim.id), claim.source, claim.expected, claim.expected_by,
            code_span(claim.runs) if claim.runs.startswith("-") else claim.runs,
            table_cell(claim.statement)) for claim in claims]
        return "\n".join(lines) + "\n"
    if form == "json":
        return json.dumps([{"id": claim.id, "source": claim.source, "expected": claim.expected,
                            "expected_by": claim.expected_by, "by_default": claim.by_default,
                            "statement": claim.statement}
                           for claim in claims], indent=2) + "\n"
    rows = [("id", "by", "expected", "verdict by", "runs", "statement")]
    rows += [(claim.id, claim.source, claim.expected, claim.expected_by, claim.runs,
              claim.statement) for claim in claims]
    widths = [max(len(row[k]) for row in rows) for k in range(5)]
    return "".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths))
                   + "  " + row[5] + "\n" for row in rows)
