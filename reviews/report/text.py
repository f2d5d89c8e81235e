"""Renderers: checked claims as text, markdown or JSON.

A renderer takes the suite's header (``Suite``), a list of
``reviews.claims.Result`` and the figures drawn for them (``Drawn``), and
returns one string.  It knows nothing about any paper: everything it prints
comes from the claims, their outcomes and their figures.  (The HTML page is
reviews.report.html.)

    Suite       name, version and Python version of the run
    Provenance  the version, files, tensors and options of a checked layer
    Drawn       a claim's figure as drawn for a report
    text        the terminal report
    markdown    a table to paste into a review, then the evidence
    as_json     stable keys: suite, python, ok, claims
    FORMATS     the renderers by name
    version_line, citation, tally, alt_text, verdict_cell
                lines every format shares
    markdown_name  a user's name (file, tensor, token) as a markdown code span
    listing     the claims' ids, whose statements, expected verdicts, statements
    layer_text, layer_markdown, layer_json, LAYER_FORMATS, CERTIFICATES
                a checked layer (reviews.argmax.check results)

A checked layer's classes are numbered from 0, as in Python and the API
(the claims number classes as their papers do).  Its text and markdown show
each unargmaxable class's combination with coefficients correctly rounded
to 6 significant digits ("0.420690"; fewer digits when that is exact, and a
coefficient of exactly 1 as just ``w[j]``); the JSON has every exact value
beside its rounded one (see layer_json).  The text is ASCII ("*" for the
product), so that any terminal shows it as is, except for the classes'
tokens when a vocabulary was read: each is shown as Python's repr shows it
(quoted; controls, line breaks and invisible format characters escaped),
so that any string stays on its line and reads one way.
"""

import decimal
import json
import re
import textwrap
import urllib.parse
from collections import namedtuple

from reviews.exact import rational_text, to_decimal
from reviews.formats.source import shown_name

__all__ = ["Suite", "Provenance", "Drawn", "text", "markdown", "as_json", "FORMATS", "all_match",
           "version_line", "citation", "tally", "alt_text", "verdict_cell", "listing",
           "markdown_name",
           "layer_text", "layer_markdown", "layer_json", "LAYER_FORMATS", "CERTIFICATES"]

Suite = namedtuple("Suite", "name version python")
Suite.__doc__ = "The header of a run: suite name, suite version, Python version."

Provenance = namedtuple("Provenance", "version files weights_tensor bias_tensor transpose")
Provenance.__doc__ = """What produced a checked layer's report: the version line, the files
read as (path, bytes, SHA-256 in hex; None and None for standard input),
the tensors read as (name, dtype, shape) or None, and whether the layer
was read transposed."""

Drawn = namedtuple("Drawn", "name description svg path")
Drawn.__doc__ = """A claim's figure as drawn for a report: its file name, what it shows
(or None), its SVG text, and the path the report cites it by (None when no
file was written)."""


def all_match(results):
    """True when every verdict is the one the review states."""
    return all(result.matches for result in results)


def version_line(suite):
    """The line a reviewer cites: "name version (Python x.y.z)"."""
    return "%s %s (Python %s)" % (suite.name, suite.version, suite.python)


def citation(claim):
    """Paper, authors, year, arXiv id and where in the paper."""
    paper = claim.paper
    return "%s (%s %d), arXiv:%s, %s" % (
        paper.title, ", ".join(paper.authors), paper.year, paper.arxiv, claim.where)


def tally(results):
    """ "N claims: M as the review states, K MISMATCH".

    >>> tally([])
    '0 claims: 0 as the review states, 0 MISMATCH'
    """
    mismatches = sum(not result.matches for result in results)
    return "%d claim%s: %d as the review states, %d MISMATCH" % (
        len(results), "" if len(results) == 1 else "s", len(results) - mismatches, mismatches)


def verdict_cell(result):
    """The verdict, and where it differs from the review's statement, MISMATCH.

    >>> from reviews.claims import FAIL, PASS, Claim, Outcome, Result
    >>> verdict_cell(Result(Claim("a.b", None, "", "", PASS, None), Outcome(FAIL, "", ())))
    'FAIL (MISMATCH: the review states PASS)'
    """
    if result.matches:
        return result.outcome.verdict
    return "%s (MISMATCH: the review states %s)" % (result.outcome.verdict, result.claim.expected)


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
    lines = [version_line(suite), ""]
    for result in results:
        claim, outcome = result
        lines += [
            "%-11s %s" % (outcome.verdict, claim.id),
            "    %s" % citation(claim),
            "    %s: %s" % (claim.whose, claim.statement),
            "    Review states: %s" % claim.expected,
            "    Found: %s" % outcome.summary,
        ]
        if not result.matches:
            lines.append("    MISMATCH: verdict %s, the review states %s"
                         % (outcome.verdict, claim.expected))
        width = max((len(row.label) for row in outcome.evidence), default=0)
        lines += ["      %-*s  %s" % (width, row.label, row.value)
                  for row in outcome.evidence]
        lines += ["    Figure: %s" % shown_name(path) for path in _cited(figures, claim)]
        lines.append("")
    lines.append(tally(results))
    return "\n".join(lines) + "\n"


def _cell(value):
    return str(value).replace("|", "\\|")


def _link_target(path):
    """A path as a markdown link target: percent-encoded as in a URL, so that
    nothing in it (a space, brackets, <, a newline) is markdown or HTML."""
    return urllib.parse.quote(path.encode("utf-8", "surrogateescape"), safe="/")


def markdown_name(name):
    """A user's name as markdown: on one line (shown_name), in a code span,
    where no markdown or HTML in it takes effect.

    >>> print(markdown_name("x\\n<img src=x>`.csv"))
    ``x\\n<img src=x>`.csv``
    """
    return _code(shown_name(name))


def markdown(suite, results, figures=None):
    """The version line, a table of the claims, then each claim's evidence
    and its written figures (alt text: what the figure shows)."""
    figures = figures or {}
    lines = [
        "## %s" % version_line(suite),
        "",
        "| Claim | Where | Statement by | Statement | Verdict | Key numbers |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for result in results:
        claim, outcome = result
        verdict = verdict_cell(result)
        lines.append("| `%s` | arXiv:%s %s | %s | %s | %s | %s |" % (
            claim.id, claim.paper.arxiv, _cell(claim.where), claim.source,
            _cell(claim.statement), verdict if result.matches else "**%s**" % verdict,
            _cell(outcome.summary)))
    lines += ["", tally(results), ""]
    for result in results:
        claim, outcome = result
        lines += ["### `%s`: %s" % (claim.id, verdict_cell(result)), "",
                  "%s. %s:" % (citation(claim), claim.whose), "",
                  "> %s" % claim.statement, ""]
        lines += ["- %s: %s" % (row.label, _code(row.value)) for row in outcome.evidence]
        for drawn in figures.get(claim.id, ()):
            if drawn.path is None:
                continue
            alt = alt_text(claim, drawn)
            lines += ["", "Figure %s: %s" % (markdown_name(drawn.path), alt), "",
                      "![%s](%s)" % (alt.replace("[", "\\[").replace("]", "\\]"),
                                     _link_target(drawn.path))]
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
        },
        "where": claim.where,
        "statement": claim.statement,
        "source": claim.source,
        "expected": claim.expected,
        "verdict": outcome.verdict,
        "matches": result.matches,
        "summary": outcome.summary,
        "evidence": [{"label": row.label, "value": row.value} for row in outcome.evidence],
        "figures": _cited(figures, claim),
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


def listing(claims, form="text"):
    """The claims' ids, whose statements they are, the verdicts the review
    states and the statements: aligned columns under a header, or for
    ``form`` "json" a list of objects with those four keys.

    >>> from reviews.claims import BY_REVIEW, FAIL, PASS, Claim
    >>> print(listing([Claim("a.one", None, "", "Red.", FAIL, None),
    ...                Claim("a.two", None, "", "Blue.", PASS, None, source=BY_REVIEW)]), end="")
    id     by      review states  statement
    a.one  paper   FAIL           Red.
    a.two  review  PASS           Blue.
    """
    if form == "json":
        return json.dumps([{"id": claim.id, "source": claim.source, "expected": claim.expected,
                            "statement": claim.statement} for claim in claims], indent=2) + "\n"
    rows = [("id", "by", "review states", "statement")]
    rows += [(claim.id, claim.source, claim.expected, claim.statement) for claim in claims]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    return "".join("%-*s  %-*s  %-*s  %s\n" % (widths[0], row[0], widths[1], row[1],
                                              widths[2], row[2], row[3]) for row in rows)


# A checked layer (reviews.argmax.check results).  Classes are numbered from
# 0, as in Python and the API; only the claims number them as their papers do.

_DIGITS = 6
# Correct rounding of any rational a certificate holds: a coefficient can be
# 1e-4400, which a float would show as 0.  Never the global context.
_APPROXIMATE = decimal.Context(prec=_DIGITS, rounding=decimal.ROUND_HALF_EVEN,
                               Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)
_NUMBERING = "classes numbered from 0"
_WHERE_EXACT = "--format json"


def _approximation(value):
    """``value`` correctly rounded to 6 significant digits (fewer when that
    is exact), in Python's notation: "0.420690", "0.5", "1e-4400"."""
    return format(to_decimal(value, _APPROXIMATE), "g")


def _classes(count):
    return "%d class%s" % (count, "" if count == 1 else "es")


def _box(results):
    """The bound R the results were decided for, or None for all of R^d."""
    return results[0].box if results else None


def _tolerance(results):
    """The tolerance T the results were decided for (0: check_layer's own question)."""
    return results[0].tolerance if results else 0


def _header(results, dim, has_bias):
    box = _box(results)
    inputs = "" if box is None else "; inputs boxed to |x_k| <= %s" % _approximation(box)
    tolerance = _tolerance(results)
    if tolerance:
        inputs += "; tolerance %s (a ball of radius above it)" % _approximation(tolerance)
    return "%s, d = %d, %s%s; %s" % (_classes(len(results)), dim,
                                     "with bias" if has_bias else "no bias", inputs, _NUMBERING)


# Classes whose largest radius is at most 1e-8 (reviews.argmax.tolerance):
# exact verdicts that the paper's detector, and any rounding, may overturn.
_THIN = ("Argmaxable only on a region thinner than 1e-8: the paper's detector would call"
         " these unargmaxable; pass --tolerance 1e-8 to ask its question%s.")


def _thin(results, radii):
    """[(class, its largest radius)] for the classes of an exact radius (at most 1e-8)."""
    return [(r.index, radius.value) for r, radius in zip(results, radii or ())
            if radius is not None and radius.exact]


def _thin_lines(results, radii):
    """The text lines naming the thin classes, if any."""
    thin = _thin(results, radii)
    if not thin:
        return []
    also = " (with --box 100, as it does)" if _box(results) is None else ""
    return textwrap.wrap(_THIN % also, 78) + [
        "  class %d: largest radius %s" % (i, _radius_text(value)) for i, value in thin]


def _radius_text(value):
    """A radius (3 significant digits, exact) as text; None is unbounded."""
    return "inf" if value is None else _approximation(value)


def _meaning(has_bias, box=None, tolerance=0):
    """What the listed combinations prove, in one sentence."""
    if tolerance:
        where = ("R * |sum_j lam_j (w[j] - w[i])|_1" if box is not None
                 else "0 with sum_j lam_j (w[j] - w[i]) = 0")
        return ("No ball of radius above the tolerance T%s lies where these"
                " classes win: for each, sum_j lam_j (b[j] - b[i] + T |w[j] - w[i]|_2) >= %s"
                " (weights lam_j >= 0, summing to 1), so at every centre some listed rival's"
                " logit l[j] is within T |w[j] - w[i]|_2 of l[i] or above it."
                % (" (its centre in the box)" if box is not None else "", where))
    if box is not None:
        return ("Unargmaxable in the box: for each, a weighted mean of other classes'"
                " logits l[j] (weights lam_j >= 0, summing to 1) is at least its logit"
                " l[i] at every input in the box, because sum_j lam_j (b[j] - b[i]) >="
                " R * |sum_j lam_j (w[j] - w[i])|_1.")
    if has_bias:
        return ("Unargmaxable classes: each one's weights w[i] are a convex combination of"
                " other classes' weights and its bias b[i] is at most the same combination"
                " of their biases, so its logit is at most that weighted mean of theirs for"
                " every input, never strictly the largest.")
    return ("Unargmaxable classes: each one's weights w[i] are a convex combination of"
            " other classes' weights, so its logit is the same weighted mean of theirs for"
            " every input, never strictly the largest.")


def _combination(result):
    """ "w[i] = a*w[j] + ...": the nonzero terms, a weight of exactly 1 as w[j].

    In a box the certificate is an inequality of logits, "l[i] <= a*l[j] + ...";
    a masked class's is its bias, "masked: b[i] = -inf".
    """
    if result.masked:
        return "masked: b[%d] = -inf" % result.index
    symbol = "w" if result.box is None else "l"
    terms = ["%s[%d]" % (symbol, j) if weight == 1
             else "%s*%s[%d]" % (_approximation(weight), symbol, j)
             for j, weight in result.terms]
    relation = "=" if result.box is None else "<="
    return "%s[%d] %s %s" % (symbol, result.index, relation, " + ".join(terms))


def _count(results, unargmaxable):
    masked = sum(r.masked for r in unargmaxable)
    return "%d of %s unargmaxable%s, %d argmaxable." % (
        len(unargmaxable), _classes(len(results)),
        " (%d masked by a bias of -inf: the others are decided without %s)"
        % (masked, "it" if masked == 1 else "them") if masked else "",
        len(results) - len(unargmaxable))


def _where_exact(unargmaxable, flag):
    return ("Exact values and witnesses: %s" if unargmaxable else "Exact witnesses: %s") % flag


def _token(tokens, index):
    """Class ``index``'s token for a line of text: repr escapes every
    control, format and line-breaking character and shows the quotes, so
    that any string stays on its line and reads one way; "" without
    ``tokens``."""
    if tokens is None:
        return ""
    token = tokens.get(index)
    return " (no token)" if token is None else " " + repr(token)


def layer_text(name, results, dim, has_bias, radii=None, *, tokens=None, provenance=None):
    """A header line, each unargmaxable class (and its token, if
    ``tokens`` = {id: token}) with the nonzero terms of its combination
    (coefficients to 6 significant digits), then a count; with ``radii``
    (reviews.argmax.tolerance.radii), the argmaxable classes whose largest
    radius is at most 1e-8 before the count.  With ``provenance`` (a
    Provenance), the version line, each file read, the tensors and the
    options come first, one line each.

    >>> from fractions import Fraction
    >>> from reviews.argmax.check import ClassResult
    >>> results = [ClassResult(0, True, (Fraction(0),)),
    ...            ClassResult(1, False, None, ((0, Fraction(2, 3)), (2, Fraction(1, 3)))),
    ...            ClassResult(2, True, (Fraction(1),))]
    >>> print(layer_text("w.csv", results, 1, False), end="")
    w.csv: 3 classes, d = 1, no bias; classes numbered from 0
    Unargmaxable classes: each one's weights w[i] are a convex combination of
    other classes' weights, so its logit is the same weighted mean of theirs for
    every input, never strictly the largest.
      class 1: w[1] = 0.666667*w[0] + 0.333333*w[2]
    1 of 3 classes unargmaxable, 2 argmaxable.
    Coefficients to 6 significant digits. Exact values and witnesses: --format json
    """
    unargmaxable = [r for r in results if not r.argmaxable]
    lines = _provenance_lines(provenance, results)
    lines.append("%s: %s" % (shown_name(name), _header(results, dim, has_bias)))
    if unargmaxable:
        lines += textwrap.wrap(_meaning(has_bias, _box(results), _tolerance(results)), 78)
        lines += ["  class %d%s: %s" % (r.index, _token(tokens, r.index), _combination(r))
                  for r in unargmaxable]
        lines += _thin_lines(results, radii)
        lines.append(_count(results, unargmaxable))
        lines.append("Coefficients to %d significant digits. %s"
                     % (_DIGITS, _where_exact(unargmaxable, _WHERE_EXACT)))
    else:
        lines += _thin_lines(results, radii)
        lines += [_count(results, unargmaxable), _where_exact(unargmaxable, _WHERE_EXACT)]
    return "\n".join(lines) + "\n"


def _provenance_items(provenance, results):
    """(label, text) of each line of the provenance: version, files,
    tensors, options."""
    items = [("version", provenance.version)]
    for path, size, digest in provenance.files:
        items.append(("file", "%s (standard input)" % shown_name(path) if size is None else
                      "%s, %d bytes, sha256 %s" % (shown_name(path), size, digest)))
    for label, tensor in (("weights", provenance.weights_tensor),
                          ("bias", provenance.bias_tensor)):
        if tensor is not None:
            items.append((label, "%s %s %s" % (repr(tensor.name), tensor.dtype,
                                               tuple(tensor.shape))))
    box = _box(results)
    tolerance = _tolerance(results)
    options = (["box R = %s" % _approximation(box)] if box is not None else []) + (
        ["tolerance T = %s" % _approximation(tolerance)] if tolerance else []) + (
        ["transpose"] if provenance.transpose else [])
    items.append(("options", ", ".join(options) or "none"))
    return items


def _provenance_lines(provenance, results):
    """The version line as the claims report starts, then the rest, labelled."""
    if provenance is None:
        return []
    version, *rest = _provenance_items(provenance, results)
    return [version[1]] + ["%s: %s" % item for item in rest]


def _provenance_json(provenance):
    def tensor(t):
        return None if t is None else {"name": t.name, "dtype": t.dtype, "shape": list(t.shape)}
    return [("version", provenance.version),
            ("files", [{"path": p, "bytes": n, "sha256": d} for p, n, d in provenance.files]),
            ("weights_tensor", tensor(provenance.weights_tensor)),
            ("bias_tensor", tensor(provenance.bias_tensor)),
            ("transpose", provenance.transpose)]


def _code(text):
    """``text`` as a markdown code span, whatever backticks it holds."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padding = " " if text[:1] == "`" or text[-1:] == "`" else ""
    return fence + padding + text + padding + fence


def layer_markdown(name, results, dim, has_bias, radii=None, *, tokens=None, provenance=None):
    """A section to paste into a review: the layer, a table of the
    unargmaxable classes and their combinations, the thin classes (as in
    layer_text), the count.

    >>> from fractions import Fraction
    >>> from reviews.argmax.check import ClassResult
    >>> results = [ClassResult(0, False, None, ((1, Fraction(1)),)),
    ...            ClassResult(1, True, (Fraction(1),))]
    >>> print(layer_markdown("w.csv", results, 1, False), end="")
    ... # doctest: +NORMALIZE_WHITESPACE
    ### check-layer `w.csv`
    <BLANKLINE>
    2 classes, d = 1, no bias; classes numbered from 0.
    <BLANKLINE>
    Unargmaxable classes: each one's weights w[i] are a convex combination of
    other classes' weights, so its logit is the same weighted mean of theirs for
    every input, never strictly the largest.
    <BLANKLINE>
    | Class | Combination (coefficients to 6 significant digits) |
    | ---: | --- |
    | 0 | `w[0] = w[1]` |
    <BLANKLINE>
    1 of 2 classes unargmaxable, 1 argmaxable. Exact values and witnesses: `--format json`.
    """
    unargmaxable = [r for r in results if not r.argmaxable]
    lines = ["### check-layer %s" % markdown_name(name), ""]
    if provenance is not None:
        lines += ["- %s: %s" % (label.capitalize(), markdown_name(value))
                  for label, value in _provenance_items(provenance, results)] + [""]
    lines += ["%s." % _header(results, dim, has_bias), ""]
    if unargmaxable:
        token = "" if tokens is None else " Token |"
        lines += [_meaning(has_bias, _box(results), _tolerance(results)), "",
                  "| Class |%s Combination (coefficients to %d significant digits) |"
                  % (token, _DIGITS), "| ---: |%s --- |" % (token and " --- |")]
        lines += ["| %d |%s `%s` |" % (r.index, _markdown_token(tokens, r.index),
                                       _combination(r)) for r in unargmaxable]
        lines.append("")
    thin = _thin(results, radii)
    if thin:
        also = " (with `--box 100`, as it does)" if _box(results) is None else ""
        lines += [(_THIN % also).replace("--tolerance 1e-8", "`--tolerance 1e-8`"), "",
                  "| Class | Largest radius |", "| ---: | --- |"]
        lines += ["| %d | %s |" % (i, _radius_text(value)) for i, value in thin]
        lines.append("")
    lines.append("%s %s." % (_count(results, unargmaxable),
                             _where_exact(unargmaxable, "`%s`" % _WHERE_EXACT)))
    return "\n".join(lines) + "\n"


def _markdown_token(tokens, index):
    """A token's table cell: its repr as a code span, pipes escaped."""
    if tokens is None:
        return ""
    token = tokens.get(index)
    return " (no token) |" if token is None else " %s |" % _cell(_code(repr(token)))


def layer_json(name, results, dim, has_bias, radii=None, certificates="all", *, tokens=None,
               provenance=None):
    """One JSON object; rationals exact as "p/q" or "p", each beside its
    approximation to 6 significant digits.

    Keys: "file", "classes", "dim", "bias" (true or false), "box" (the
    bound R as exact text when inputs were limited to |x_k| <= R, else
    null; terms then prove sum_j lam_j l[j] >= l[i] in the box), "numbered_from"
    (0: classes are numbered as in Python), "unargmaxable" (their indices),
    "results": one line per class, in order.  An argmaxable class has its
    "witness", the input x that makes it the strict argmax, as d pairs
    [exact, approximation]; an unargmaxable one its "terms": the nonzero
    coefficients of its combination, in increasing class number j, as
    triples [j, exact, approximation] (every other coefficient is 0).
    With ``certificates`` "unargmaxable", "results" lists only the
    unargmaxable classes: a 10000 x 128 layer's witnesses alone take tens
    of megabytes.  The key "certificates" says which were kept.
    With ``radii``: "tolerance" (exact text, "0" for check_layer's own
    question) and "thinner_than_1e-8" (the argmaxable classes whose largest
    radius is at most 1e-8) after "unargmaxable", and each argmaxable
    class's "radius": a lower bound on the radius of a ball where it wins
    (its centre in the box), rounded down to 3 significant digits, as exact
    decimal text ("inf": unbounded); for the thin classes the largest
    radius itself, rounded down.
    With ``provenance``, the keys "version", "files" (each {"path",
    "bytes", "sha256"}, the last two null for standard input),
    "weights_tensor" and "bias_tensor" ({"name", "dtype", "shape"} or
    null) and "transpose" come first.
    With ``tokens`` ({id: token}), each line has its class's "token", null
    for a class with none.  A class masked by a bias of -inf has "masked":
    true instead of terms.

    >>> from fractions import Fraction
    >>> from reviews.argmax.check import ClassResult
    >>> results = [ClassResult(0, True, (Fraction(1, 3),)),
    ...            ClassResult(1, False, None, ((0, Fraction(1)),))]
    >>> print(layer_json("f.csv", results, 1, True), end="")
    {
      "file": "f.csv",
      "classes": 2,
      "dim": 1,
      "bias": true,
      "box": null,
      "numbered_from": 0,
      "unargmaxable": [1],
      "certificates": "all",
      "results": [
        {"index": 0, "argmaxable": true, "witness": [["1/3", "0.333333"]]},
        {"index": 1, "argmaxable": false, "terms": [[0, "1", "1"]]}
      ]
    }
    >>> print("\\n".join(layer_json("f.csv", results, 1, True, certificates="unargmaxable").splitlines()[8:]))
      "certificates": "unargmaxable",
      "results": [
        {"index": 1, "argmaxable": false, "terms": [[0, "1", "1"]]}
      ]
    }
    """
    if certificates not in CERTIFICATES:
        raise ValueError("certificates must be one of %s, not %r"
                         % (", ".join(CERTIFICATES), certificates))
    box = _box(results)
    unargmaxable = [r for r in results if not r.argmaxable]
    header = [] if provenance is None else _provenance_json(provenance)
    header += [("file", name), ("classes", len(results)), ("dim", dim), ("bias", has_bias),
              ("box", None if box is None else rational_text(box)), ("numbered_from", 0),
              ("unargmaxable", [r.index for r in unargmaxable])]
    if radii is not None:
        header += [("tolerance", rational_text(_tolerance(results))),
                   ("thinner_than_1e-8", [i for i, _ in _thin(results, radii)])]
    header.append(("certificates", certificates))
    listed = [(r, radius) for r, radius in zip(results, radii or [None] * len(results))
              if certificates == "all" or not r.argmaxable]
    lines = ["{"] + ["  %s: %s," % (json.dumps(key), json.dumps(value)) for key, value in header]
    lines.append('  "results": [')
    if listed:
        lines.append(",\n".join("    " + json.dumps(_class_json(r, radius, tokens))
                                 for r, radius in listed))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def _class_json(result, radius=None, tokens=None):
    entry = {"index": result.index, "argmaxable": result.argmaxable}
    if tokens is not None:
        entry["token"] = tokens.get(result.index)
    if result.argmaxable:
        entry["witness"] = [[rational_text(v), _approximation(v)] for v in result.witness]
        if radius is not None:
            entry["radius"] = _radius_text(radius.value)
    elif result.masked:
        entry["masked"] = True
    else:
        entry["terms"] = [[j, rational_text(v), _approximation(v)] for j, v in result.terms]
    return entry


LAYER_FORMATS = {"text": layer_text, "markdown": layer_markdown, "json": layer_json}
CERTIFICATES = ("all", "unargmaxable")   # what layer_json lists: every class, or those
