"""Renderers of a checked layer (reviews.argmax.check results): text,
markdown and JSON, for ``check-layer``.

    Provenance      the version, files, tensors and options of a checked layer
    layer_text      the terminal report
    layer_markdown  a heading, the provenance and a table to paste
    layer_json      every exact value beside its rounded one
    LAYER_FORMATS   the renderers by name
    CERTIFICATES    what layer_json can list: every class, or the unargmaxable
    approximation   an exact value rounded as the reports show it beside it
    provenance_items, provenance_json
                    a Provenance as labelled lines, as JSON keys (compare's too)
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

import decimal
import json
import textwrap
from collections import namedtuple

from reviews.argmax.domain import shown_inputs
from reviews.exact import exact_text, rational_text, to_decimal
from reviews.formats.classes import ranges_text
from reviews.shown import shown_name
from reviews.report.markdown import code_span, markdown_name, table_cell

__all__ = ["Provenance", "layer_text", "layer_markdown", "layer_json", "LAYER_FORMATS",
           "CERTIFICATES", "approximation", "provenance_items", "provenance_json",
           "class_token", "markdown_token"]

Provenance = namedtuple("Provenance", "version files weights_tensor bias_tensor transpose")
Provenance.__doc__ = """What produced a checked layer's report: the version line, the files
read as (path, bytes, SHA-256 in hex; None and None for standard input),
the tensors read as (name, dtype, shape) or None, and whether the layer
was read transposed."""

# A checked layer (reviews.argmax.check results).  Classes are numbered from
# 0, as in Python and the API; only the claims number them as their papers do.

_DIGITS = 6
# Correct rounding of any rational a certificate holds: a coefficient can be
# 1e-4400, which a float would show as 0.  Never the global context.
_APPROXIMATE = decimal.Context(prec=_DIGITS, rounding=decimal.ROUND_HALF_EVEN,
                               Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)
_NUMBERING = "classes numbered from 0"
_WHERE_EXACT = "--format json"


def approximation(value):
    """``value`` correctly rounded to 6 significant digits (fewer when that
    is exact), in Python's notation.

    >>> from fractions import Fraction
    >>> approximation(Fraction(61, 145)), approximation(0.5), approximation(Fraction(1, 10 ** 4400))
    ('0.420690', '0.5', '1e-4400')
    """
    return format(to_decimal(value, _APPROXIMATE), "g")


def _classes(count):
    return "%d class%s" % (count, "" if count == 1 else "es")


def _box(results):
    """The bound R the results were decided for, or None for all of R^d."""
    return results[0].box if results else None


def _tolerance(results):
    """The tolerance T the results were decided for (0: check_layer's own question)."""
    return results[0].tolerance if results else 0


def _header(results, dim, has_bias, class_count=None, domain=None):
    box = _box(results)
    inputs = "" if box is None else "; inputs boxed to |x_k| <= %s" % exact_text(box)
    if domain is not None:
        inputs = "; inputs %s" % shown_inputs(domain)
    tolerance = _tolerance(results)
    if tolerance:
        inputs += "; tolerance %s (a ball of radius above it)" % exact_text(tolerance)
    return "%s, d = %d, %s%s; %s" % (
        _classes(len(results) if class_count is None else class_count), dim,
        "with bias" if has_bias else "no bias", inputs, _NUMBERING)


def _asked(results):
    """The classes the results are of, as --classes takes them: 0:3,17."""
    return ranges_text([r.index for r in results])


def _asked_lines(results, class_count, code=str):
    """The sentence naming the classes asked, when only some were (``class_count`` = C)."""
    if class_count is None:
        return []
    return ["Asked: classes %s (%s), each decided against all %d."
            % (code(_asked(results)), _classes(len(results)), class_count)]


# Classes whose largest radius is at most 1e-8 (reviews.argmax.tolerance):
# exact verdicts that a tolerance, and any rounding, may overturn.  The
# released detector's linear program asks the tolerance question, but only
# of the classes its search misses, and the search takes any it finds.
_THIN = ("Argmaxable only on a region thinner than 1e-8: %s, the question of the released"
         " detector's linear program, calls these unargmaxable; its search, which runs"
         " first, accepts any it finds, with no tolerance.")


def _thin(results, radii):
    """[(class, its Radius)] for the classes of an exact radius (at most 1e-8)."""
    return [(r.index, radius) for r, radius in zip(results, radii or ())
            if radius is not None and radius.exact]


def _thin_lines(results, radii):
    """The text lines naming the thin classes, if any."""
    thin = _thin(results, radii)
    if not thin:
        return []
    return textwrap.wrap(_THIN % _thin_option(results), 78) + [
        "  class %d: largest radius %s" % (i, _largest_text(radius)) for i, radius in thin]


def _thin_option(results, code=str):
    """The options that ask the thin classes' question of this layer."""
    return code("--box 100 --tolerance 1e-8" if _box(results) is None else "--tolerance 1e-8")


def _radius_text(value):
    """A radius (a decimal of a few significant digits) as its exact text;
    None is unbounded."""
    return "inf" if value is None else exact_text(value)


def _largest_text(radius):
    """A largest radius as found: its value, or the two values it lies
    between where bisection stopped there ("between 4.99e-9 and 5e-9")."""
    if radius.upper is None or radius.upper == radius.value:
        return _radius_text(radius.value)
    return "between %s and %s" % (_radius_text(radius.value), _radius_text(radius.upper))


_MASKED = "A masked class (b[i] = -inf) has the logit -inf at every input."


def _meaning(has_bias, box=None, tolerance=0, unargmaxable=(), domain=None):
    """What the listed certificates prove: a sentence for the combinations,
    one for the masked classes, each where some are listed."""
    if all(r.masked for r in unargmaxable):
        return ("Unargmaxable classes, each masked by a bias of -inf: its logit is -inf at"
                " every input, never the largest.")
    combined = (_domain_meaning(domain, tolerance) if domain is not None
                else _combined_meaning(has_bias, box, tolerance))
    return combined + " " + _MASKED if any(r.masked for r in unargmaxable) else combined


def _domain_meaning(domain, tolerance):
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


def _combination(result, domain=None):
    """ "w[i] = a*w[j] + ...": the nonzero terms, a weight of exactly 1 as w[j].

    In a box or for other inputs than R^d (``domain``) the certificate is
    an inequality of logits, "l[i] <= a*l[j] + ..."; a masked class's is its
    bias, "masked: b[i] = -inf".
    """
    if result.masked:
        return "masked: b[%d] = -inf" % result.index
    symbol = "w" if result.box is None and domain is None else "l"
    terms = ["%s[%d]" % (symbol, j) if weight == 1
             else "%s*%s[%d]" % (approximation(weight), symbol, j)
             for j, weight in result.terms]
    relation = "=" if symbol == "w" else "<="
    return "%s[%d] %s %s" % (symbol, result.index, relation, " + ".join(terms))


def _count(results, unargmaxable, class_count=None):
    masked = sum(r.masked for r in unargmaxable)
    if masked and masked == len(results):
        why = " (every one masked by a bias of -inf)"
    elif masked:
        why = (" (%d masked by a bias of -inf: the others are decided without %s)"
               % (masked, "it" if masked == 1 else "them"))
    else:
        why = ""
    return "%d of %s%s unargmaxable%s, %d argmaxable." % (
        len(unargmaxable), _classes(len(results)), "" if class_count is None else " asked", why,
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


def layer_text(name, results, dim, has_bias, radii=None, *, tokens=None, provenance=None,
               class_count=None, inputs=None):
    """A header line, each unargmaxable class (and its token, if
    ``tokens`` = {id: token}) with the nonzero terms of its combination
    (coefficients to 6 significant digits), then a count; with ``radii``
    (reviews.argmax.tolerance.radii), the argmaxable classes whose largest
    radius is at most 1e-8 before the count.  With ``provenance`` (a
    Provenance), the version line, each file read, the tensors and the
    options come first, one line each.  ``class_count`` = C, the layer's
    number of classes, says that the results are of the classes asked
    only (check_layer's classes=): the header names them.  ``inputs`` (an
    Inputs of reviews.argmax.domain) says the results are for those inputs.

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
    lines = _provenance_lines(provenance, results, inputs)
    lines.append("%s: %s" % (shown_name(name),
                             _header(results, dim, has_bias, class_count, inputs)))
    lines += _asked_lines(results, class_count)
    if unargmaxable:
        lines += textwrap.wrap(_meaning(has_bias, _box(results), _tolerance(results),
                                        unargmaxable, inputs), 78)
        lines += ["  class %d%s: %s" % (r.index, class_token(tokens, r.index),
                                        _combination(r, inputs)) for r in unargmaxable]
        lines += _thin_lines(results, radii)
        lines.append(_count(results, unargmaxable, class_count))
        coefficients = ("Coefficients to %d significant digits. " % _DIGITS
                        if not all(r.masked for r in unargmaxable) else "")
        lines.append(coefficients + _where_exact(unargmaxable, _WHERE_EXACT))
    else:
        lines += _thin_lines(results, radii)
        lines += [_count(results, unargmaxable, class_count),
                  _where_exact(unargmaxable, _WHERE_EXACT)]
    return "\n".join(lines) + "\n"


def provenance_items(provenance, results, domain=None):
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
    options = (["box R = %s" % exact_text(box)] if box is not None else []) + (
        ["inputs %s" % shown_inputs(domain)] if domain is not None else []) + (
        ["tolerance T = %s" % exact_text(tolerance)] if tolerance else []) + (
        ["transpose"] if provenance.transpose else [])
    items.append(("options", ", ".join(options) or "none"))
    return items


def _provenance_lines(provenance, results, domain=None):
    """The version line as the claims report starts, then the rest, labelled."""
    if provenance is None:
        return []
    version, *rest = provenance_items(provenance, results, domain)
    return [version[1]] + ["%s: %s" % item for item in rest]


def provenance_json(provenance):
    def tensor(t):
        return None if t is None else {"name": t.name, "dtype": t.dtype, "shape": list(t.shape)}
    return [("version", provenance.version),
            ("files", [{"path": p, "bytes": n, "sha256": d} for p, n, d in provenance.files]),
            ("weights_tensor", tensor(provenance.weights_tensor)),
            ("bias_tensor", tensor(provenance.bias_tensor)),
            ("transpose", provenance.transpose)]


def layer_markdown(name, results, dim, has_bias, radii=None, *, tokens=None, provenance=None,
                   class_count=None, inputs=None):
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
                  for label, value in provenance_items(provenance, results, inputs)] + [""]
    lines += ["%s." % _header(results, dim, has_bias, class_count, inputs), ""]
    lines += _asked_lines(results, class_count, code_span) + [""] * (class_count is not None)
    if unargmaxable:
        token = "" if tokens is None else " Token |"
        certificate = ("Certificate" if all(r.masked for r in unargmaxable)
                       else "Combination (coefficients to %d significant digits)" % _DIGITS)
        lines += [_meaning(has_bias, _box(results), _tolerance(results), unargmaxable, inputs),
                  "",
                  "| Class |%s %s |" % (token, certificate),
                  "| ---: |%s --- |" % (token and " --- |")]
        lines += ["| %d |%s `%s` |" % (r.index, markdown_token(tokens, r.index),
                                       _combination(r, inputs)) for r in unargmaxable]
        lines.append("")
    thin = _thin(results, radii)
    if thin:
        lines += [_THIN % _thin_option(results, code_span), "",
                  "| Class | Largest radius |", "| ---: | --- |"]
        lines += ["| %d | %s |" % (i, _largest_text(radius)) for i, radius in thin]
        lines.append("")
    lines.append("%s %s." % (_count(results, unargmaxable, class_count),
                             _where_exact(unargmaxable, "`%s`" % _WHERE_EXACT)))
    return "\n".join(lines) + "\n"


def markdown_token(tokens, index):
    """A token's table cell: its repr as a code span, pipes escaped."""
    if tokens is None:
        return ""
    token = tokens.get(index)
    return " (no token) |" if token is None else " %s |" % table_cell(code_span(repr(token)))


def layer_json(name, results, dim, has_bias, radii=None, certificates="all", *, tokens=None,
               provenance=None, class_count=None, inputs=None):
    """One JSON object; rationals exact as "p/q" or "p", each beside its
    approximation to 6 significant digits.

    Keys: "file", "classes" (the layer's number of classes: ``classes`` if
    given, else that of the results), "asked" (the classes the results are
    of, as --classes takes them: "0:1000,1500"), "dim", "bias" (true or false), "box" (the
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
    "tolerance" (exact text, "0" for check_layer's own question) follows
    "unargmaxable".  With ``inputs`` (reviews.argmax.domain.Inputs),
    "inputs": [low, high] follows "box", each end exact text or null for
    no end; terms then prove sum_j lam_j l[j] >= l[i] at those inputs.  With ``radii``: "thinner_than_1e-8" (the argmaxable
    classes whose largest radius is at most 1e-8) after it, and each argmaxable
    class's "radius": a lower bound on the radius of a ball where it wins
    (its centre in the box), rounded down to 3 significant digits, as exact
    decimal text ("inf": unbounded); for the thin classes the largest
    radius itself, rounded down, and where it is not that value exactly,
    "radius_at_most" the next value of as many digits (the largest radius
    lies between the two; a class that passed a tolerance T gets digits
    enough that "radius" is above T).
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
      "asked": "0:2",
      "dim": 1,
      "bias": true,
      "box": null,
      "numbered_from": 0,
      "unargmaxable": [1],
      "tolerance": "0",
      "certificates": "all",
      "results": [
        {"index": 0, "argmaxable": true, "witness": [["1/3", "0.333333"]]},
        {"index": 1, "argmaxable": false, "terms": [[0, "1", "1"]]}
      ]
    }
    >>> print("\\n".join(layer_json("f.csv", results, 1, True, certificates="unargmaxable").splitlines()[10:]))
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
    header = [] if provenance is None else provenance_json(provenance)
    header += [("file", name), ("classes", len(results) if class_count is None else class_count),
               ("asked", _asked(results)), ("dim", dim), ("bias", has_bias),
              ("box", None if box is None else rational_text(box))]
    if inputs is not None:
        header.append(("inputs", [None if end is None else rational_text(end)
                                  for end in inputs]))
    header += [("numbered_from", 0),
              ("unargmaxable", [r.index for r in unargmaxable]),
              ("tolerance", rational_text(_tolerance(results)))]
    if radii is not None:
        header.append(("thinner_than_1e-8", [i for i, _ in _thin(results, radii)]))
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
        entry["witness"] = [[rational_text(v), approximation(v)] for v in result.witness]
        if radius is not None:
            entry["radius"] = _radius_text(radius.value)
            if radius.upper is not None and radius.upper != radius.value:
                entry["radius_at_most"] = _radius_text(radius.upper)
    elif result.masked:
        entry["masked"] = True
    else:
        entry["terms"] = [[j, rational_text(v), approximation(v)] for j, v in result.terms]
    return entry


LAYER_FORMATS = {"text": layer_text, "markdown": layer_markdown, "json": layer_json}
CERTIFICATES = ("all", "unargmaxable")   # what layer_json lists: every class, or those
