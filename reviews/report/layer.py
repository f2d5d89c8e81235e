"""Renderers of a checked layer's report (a reviews.record.LayerReport):
text, markdown and JSON, for ``check-layer`` and ``merge``.

    layer_text      the terminal report
    layer_markdown  a heading, the provenance and a table to paste
    layer_json      every exact value beside its rounded one (LayerReport.to_json)
    LAYER_FORMATS   the renderers by name, each taking a LayerReport
    CERTIFICATES    what layer_json can list: every class, or the unargmaxable
    provenance_items
                    a report's provenance as labelled lines (compare's too)
    class_token, markdown_token
                    a class's token in a line of text, in a table cell

A checked layer's classes are numbered from 0, as in Python and the API
(as the claims do).  Its text and markdown show
each unargmaxable class's combination with coefficients correctly rounded
to 6 significant digits ("0.420690"; fewer digits when that is exact, and a
coefficient of exactly 1 as just ``w[j]``); the JSON has every exact value
beside its rounded one (see layer_json).  The text is ASCII ("*" for the
product), so that any terminal shows it as is, except for the classes'
tokens when a vocabulary was read: each is shown as Python's repr shows it
(quoted; controls, line breaks and invisible format characters escaped),
so that any string stays on its line and reads one way.
"""

import textwrap

from reviews.argmax.domain import shown_inputs
from reviews.argmax.question import Inputs
from reviews.exact import exact_text
from reviews.formats.classes import ranges_text
from reviews.record import CERTIFICATES, approximation, radius_text
from reviews.shown import shown_name
from reviews.report.markdown import code_span, markdown_name, table_cell

__all__ = ["layer_text", "layer_markdown", "layer_json", "LAYER_FORMATS", "CERTIFICATES",
           "provenance_items", "class_token", "markdown_token"]

_DIGITS = 6
_NUMBERING = "classes numbered from 0"
_WHERE_EXACT = "--format json"


def _classes(count):
    return "%d class%s" % (count, "" if count == 1 else "es")


def _header(report):
    box, tolerance, inputs = report.question
    domain = "" if box is None else "; inputs boxed to |x_k| <= %s" % exact_text(box)
    if inputs is not None:
        domain = "; inputs %s" % shown_inputs(inputs)
    if tolerance:
        domain += "; tolerance %s (a ball of radius above it)" % exact_text(tolerance)
    return "%s, d = %d, %s%s; %s" % (
        _classes(report.class_count), report.dim, "with bias" if report.bias else "no bias",
        domain, _NUMBERING)


def _asked_lines(report, code=str):
    """The sentence naming the classes asked, when only some were."""
    if not report.selected:
        return []
    return ["Asked: classes %s (%s), each decided against all %d."
            % (code(ranges_text(r.index for r in report.results)), _classes(len(report.results)),
               report.class_count)]


# Classes whose largest radius is at most 1e-8 (reviews.argmax.tolerance):
# exact verdicts that a tolerance, and any rounding, may overturn.  The
# released detector's linear program asks the tolerance question, but only
# of the classes its search misses, and the search takes any it finds.
_THIN = ("Argmaxable only on a region thinner than 1e-8: %s, the question of the released"
         " detector's linear program, calls these unargmaxable; its search, which runs"
         " first, accepts any it finds, with no tolerance.")


def _thin_lines(report):
    """The text lines naming the thin classes, if any."""
    thin = report.thin()
    if not thin:
        return []
    return textwrap.wrap(_THIN % _thin_option(report), 78) + [
        "  class %d: largest radius %s" % (i, _largest_text(radius)) for i, radius in thin]


def _thin_option(report, code=str):
    """The options that ask the thin classes' question of this layer."""
    return code("--box 100 --tolerance 1e-8" if report.question.box is None
                else "--tolerance 1e-8")


def _largest_text(radius):
    """A largest radius as found: its value, or the two values it lies
    between where bisection stopped there ("between 4.99e-9 and 5e-9")."""
    if radius.upper is None or radius.upper == radius.value:
        return radius_text(radius.value)
    return "between %s and %s" % (radius_text(radius.value), radius_text(radius.upper))


_MASKED = "A masked class (b[i] = -inf) has the logit -inf at every input."


def _meaning(report):
    """What the listed certificates prove: a sentence for the combinations,
    one for the masked classes, each where some are listed."""
    unargmaxable = report.unargmaxable
    if all(r.masked for r in unargmaxable):
        return ("Unargmaxable classes, each masked by a bias of -inf: its logit is -inf at"
                " every input, never the largest.")
    box, tolerance, inputs = report.question
    combined = (_domain_meaning(inputs, tolerance) if inputs is not None
                else _combined_meaning(report.bias, box, tolerance))
    return combined + " " + _MASKED if any(r.masked for r in unargmaxable) else combined


def _domain_meaning(domain, tolerance):
    if not isinstance(domain, Inputs):
        return ("Unargmaxable on %s: for each, a weighted mean of other classes' logits l[j]"
                " (weights lam_j >= 0, summing to 1) is at least its logit l[i] at every such"
                " input y = beta + g * z, because with u = sum_j lam_j g * (w[i] - w[j]) and"
                " c = sum_j lam_j (b[i] - b[j] + (w[i] - w[j]) . beta), c <= 0 and c^2 >= %s,"
                " so that c + u . z <= 0 for every z of the ball."
                % (domain.shown(), "d |u|^2 - (sum u)^2" if domain.centred else "d |u|^2"))
    if tolerance:
        return ("No ball of radius above the tolerance T (its centre in the inputs %s) lies"
                " where these classes win: for each, sum_j lam_j (b[j] - b[i] + T |w[j] -"
                " w[i]|_2) is at least the largest value of sum_j lam_j (w[i] - w[j]) . x over"
                " the inputs (weights lam_j >= 0, summing to 1), so at every centre some listed"
                " rival's logit l[j] is within T |w[j] - w[i]|_2 of l[i] or above it."
                % shown_inputs(domain))
    return ("Unargmaxable for the inputs %s: for each, a weighted mean of other classes'"
            " logits l[j] (weights lam_j >= 0, summing to 1) is at least its logit l[i] at"
            " every such input, because sum_j lam_j (b[j] - b[i]) is at least the largest"
            " value of sum_j lam_j (w[i] - w[j]) . x over them." % shown_inputs(domain))


def _combined_meaning(has_bias, box, tolerance):
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

    In a box or for other inputs than R^d the certificate is an inequality
    of logits, "l[i] <= a*l[j] + ..."; a masked class's is its bias,
    "masked: b[i] = -inf".
    """
    if result.masked:
        return "masked: b[%d] = -inf" % result.index
    symbol = "w" if result.box is None and result.inputs is None else "l"
    terms = ["%s[%d]" % (symbol, j) if weight == 1
             else "%s*%s[%d]" % (approximation(weight), symbol, j)
             for j, weight in result.terms]
    relation = "=" if symbol == "w" else "<="
    return "%s[%d] %s %s" % (symbol, result.index, relation, " + ".join(terms))


def _count(report):
    results, unargmaxable = report.results, report.unargmaxable
    masked = sum(r.masked for r in unargmaxable)
    if masked and masked == len(results):
        why = " (every one masked by a bias of -inf)"
    elif masked:
        why = (" (%d masked by a bias of -inf: the others are decided without %s)"
               % (masked, "it" if masked == 1 else "them"))
    else:
        why = ""
    return "%d of %s%s unargmaxable%s, %d argmaxable." % (
        len(unargmaxable), _classes(len(results)), " asked" if report.selected else "", why,
        len(results) - len(unargmaxable))


def _where_exact(unargmaxable, flag):
    return ("Exact values and witnesses: %s" if unargmaxable else "Exact witnesses: %s") % flag


def class_token(tokens, index):
    """Class ``index``'s token for a line of text: repr escapes every
    control, format and line-breaking character and shows the quotes, so
    that any string stays on its line and reads one way; "" without
    ``tokens``."""
    if tokens is None:
        return ""
    token = tokens.get(index)
    return " (no token)" if token is None else " " + repr(token)


def layer_text(report):
    """The terminal report of a LayerReport (reviews.record): the
    provenance, if any (the version line, each file read, the tensors and
    the options, one line each), a header line, the classes asked where
    only some were, each unargmaxable class (and its token, if the report
    has tokens) with the nonzero terms of its combination (coefficients to
    6 significant digits), the argmaxable classes whose largest radius is
    at most 1e-8 where the report has radii, then a count.

    >>> from fractions import Fraction
    >>> from reviews.argmax.result import ClassResult
    >>> from reviews.record import LayerReport
    >>> results = [ClassResult(0, True, (Fraction(0),)),
    ...            ClassResult(1, False, None, ((0, Fraction(2, 3)), (2, Fraction(1, 3)))),
    ...            ClassResult(2, True, (Fraction(1),))]
    >>> print(layer_text(LayerReport("w.csv", results, 1, False)), end="")
    w.csv: 3 classes, d = 1, no bias; classes numbered from 0
    Unargmaxable classes: each one's weights w[i] are a convex combination of
    other classes' weights, so its logit is the same weighted mean of theirs for
    every input, never strictly the largest.
      class 1: w[1] = 0.666667*w[0] + 0.333333*w[2]
    1 of 3 classes unargmaxable, 2 argmaxable.
    Coefficients to 6 significant digits. Exact values and witnesses: --format json
    """
    unargmaxable = report.unargmaxable
    lines = _provenance_lines(report)
    lines.append("%s: %s" % (shown_name(report.name), _header(report)))
    lines += _asked_lines(report)
    if unargmaxable:
        lines += textwrap.wrap(_meaning(report), 78)
        lines += ["  class %d%s: %s" % (r.index, class_token(report.tokens, r.index),
                                        _combination(r)) for r in unargmaxable]
        lines += _thin_lines(report)
        lines.append(_count(report))
        coefficients = ("Coefficients to %d significant digits. " % _DIGITS
                        if not all(r.masked for r in unargmaxable) else "")
        lines.append(coefficients + _where_exact(unargmaxable, _WHERE_EXACT))
    else:
        lines += _thin_lines(report)
        lines += [_count(report), _where_exact(unargmaxable, _WHERE_EXACT)]
    return "\n".join(lines) + "\n"


def provenance_items(report):
    """(label, text) of each line of a report's provenance: version, files,
    tensors, options."""
    provenance = report.provenance
    items = [("version", provenance.version)]
    for path, size, digest in provenance.files:
        items.append(("file", "%s (standard input)" % shown_name(path) if size is None else
                      "%s, %d bytes, sha256 %s" % (shown_name(path), size, digest)))
    for label, tensor in (("weights", provenance.weights_tensor),
                          ("bias", provenance.bias_tensor)):
        if tensor is not None:
            items.append((label, "%s %s %s" % (repr(tensor.name), tensor.dtype,
                                               tuple(tensor.shape))))
    box, tolerance, inputs = report.question
    options = (["box R = %s" % exact_text(box)] if box is not None else []) + (
        ["inputs %s" % shown_inputs(inputs)] if inputs is not None else []) + (
        ["tolerance T = %s" % exact_text(tolerance)] if tolerance else []) + (
        ["transpose"] if provenance.transpose else [])
    items.append(("options", ", ".join(options) or "none"))
    return items


def _provenance_lines(report):
    """The version line as the claims report starts, then the rest, labelled."""
    if report.provenance is None:
        return []
    version, *rest = provenance_items(report)
    return [version[1]] + ["%s: %s" % item for item in rest]


def layer_markdown(report):
    """A section to paste into a review: the layer, a table of the
    unargmaxable classes and their combinations, the thin classes (as in
    layer_text), the count.

    >>> from fractions import Fraction
    >>> from reviews.argmax.result import ClassResult
    >>> from reviews.record import LayerReport
    >>> results = [ClassResult(0, False, None, ((1, Fraction(1)),)),
    ...            ClassResult(1, True, (Fraction(1),))]
    >>> print(layer_markdown(LayerReport("w.csv", results, 1, False)), end="")
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
    unargmaxable, tokens = report.unargmaxable, report.tokens
    lines = ["### check-layer %s" % markdown_name(report.name), ""]
    if report.provenance is not None:
        lines += ["- %s: %s" % (label.capitalize(), markdown_name(value))
                  for label, value in provenance_items(report)] + [""]
    lines += ["%s." % _header(report), ""]
    lines += _asked_lines(report, code_span) + [""] * report.selected
    if unargmaxable:
        token = "" if tokens is None else " Token |"
        certificate = ("Certificate" if all(r.masked for r in unargmaxable)
                       else "Combination (coefficients to %d significant digits)" % _DIGITS)
        lines += [_meaning(report), "",
                  "| Class |%s %s |" % (token, certificate),
                  "| ---: |%s --- |" % (token and " --- |")]
        lines += ["| %d |%s `%s` |" % (r.index, markdown_token(tokens, r.index),
                                       _combination(r)) for r in unargmaxable]
        lines.append("")
    thin = report.thin()
    if thin:
        lines += [_THIN % _thin_option(report, code_span), "",
                  "| Class | Largest radius |", "| ---: | --- |"]
        lines += ["| %d | %s |" % (i, _largest_text(radius)) for i, radius in thin]
        lines.append("")
    lines.append("%s %s." % (_count(report),
                             _where_exact(unargmaxable, "`%s`" % _WHERE_EXACT)))
    return "\n".join(lines) + "\n"


def markdown_token(tokens, index):
    """A token's table cell: its repr as a code span, pipes escaped."""
    if tokens is None:
        return ""
    token = tokens.get(index)
    return " (no token) |" if token is None else " %s |" % table_cell(code_span(repr(token)))


def layer_json(report, certificates=None):
    """The report as JSON, every exact value beside its rounded one:
    LayerReport.to_json (reviews.record), listing the certificates of every
    class or (``certificates`` "unargmaxable") of the unargmaxable only."""
    return report.to_json(certificates)


LAYER_FORMATS = {"text": layer_text, "markdown": layer_markdown, "json": layer_json}
