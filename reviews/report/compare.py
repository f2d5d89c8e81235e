"""Renderers of two check-layer reports compared (``compare``): text,
markdown and JSON.

Each takes a comparison (reviews.run.compare.Comparison: the two reports
read back, the classes compared, the changed verdicts and how many
changed each way) and shows each report as check-layer's report starts
(version, layer, files, tensors, options), then every class whose verdict
changed, A's verdict before B's, with its token where a report names one.

    compare_text      the terminal report
    compare_markdown  a heading, the two reports and a table to paste
    compare_json      one JSON object
    COMPARE_FORMATS   the renderers by name
"""

import json

from reviews.formats.classes import ranges_text
from reviews.record import question_json
from reviews.report.layer import class_token, markdown_token, provenance_items
from reviews.report.markdown import markdown_name
from reviews.shown import shown_name

__all__ = ["compare_text", "compare_markdown", "compare_json", "COMPARE_FORMATS"]

_LETTERS = ("A", "B")


def _report_items(shard):
    """(label, text) of each line that says what a report is of: the
    version, the layer, its files, tensors and options."""
    report = shard.report
    version, *rest = provenance_items(report)
    layer = "%s, d = %d, %s" % (shown_name(report.name), report.dim,
                                "with bias" if report.bias else "no bias")
    return [version, ("layer", layer)] + rest


def _compared(comparison):
    """ "5 classes compared", or "3 classes compared (classes 0:3 of 5)"
    for reports of some classes only (shards of the same --classes)."""
    classes = comparison.classes
    text = "%d class%s compared" % (len(classes), "" if len(classes) == 1 else "es")
    class_count = comparison.a.report.class_count
    if len(classes) != class_count:
        text += " (classes %s of %d)" % (ranges_text(classes), class_count)
    return text


def _count(comparison):
    """ "2 of 5 classes compared changed (1 argmaxable -> unargmaxable, ...), 3 unchanged." """
    ways = ", ".join("%d %s -> %s" % (n, a, b) for a, b, n in comparison.ways)
    changed = len(comparison.changes)
    return "%d of %s changed%s, %d unchanged." % (
        changed, _compared(comparison), " (%s)" % ways if ways else "",
        len(comparison.classes) - changed)


def compare_text(comparison):
    """Each report (its file, then check-layer's first lines, indented),
    the note if they ask different questions, each changed class
    ``class i 'token': A's verdict -> B's``, then the count.

    >>> from collections import namedtuple
    >>> from fractions import Fraction
    >>> from reviews.argmax.result import ClassResult
    >>> from reviews.record import LayerReport, Provenance
    >>> from reviews.run.shards import Shard
    >>> Comparison = namedtuple("Comparison", "a b classes changes ways tokens note")
    >>> def shard(path, version, sha256):
    ...     made = Provenance(version, [("w.csv", 9, sha256)], None, None, False)
    ...     return Shard(path, LayerReport("w.csv", [ClassResult(0, True, (0,))], 1, False,
    ...                                    provenance=made, class_count=3))
    >>> print(compare_text(Comparison(
    ...     shard("f16.json", "suite 1.0", "ab12"), shard("q4.json", "suite 1.0", "cd34"),
    ...     [0, 1, 2], [(1, "argmaxable", "unargmaxable")],
    ...     [("argmaxable", "unargmaxable", 1)], {1: "the"}, None)), end="")
    A: f16.json
      suite 1.0
      layer: w.csv, d = 1, no bias
      file: w.csv, 9 bytes, sha256 ab12
      options: none
    B: q4.json
      suite 1.0
      layer: w.csv, d = 1, no bias
      file: w.csv, 9 bytes, sha256 cd34
      options: none
    Changed verdicts, A -> B (classes numbered from 0):
      class 1 'the': argmaxable -> unargmaxable
    1 of 3 classes compared changed (1 argmaxable -> unargmaxable), 2 unchanged.
    """
    lines = []
    for letter, shard in zip(_LETTERS, (comparison.a, comparison.b)):
        (_, version), *rest = _report_items(shard)
        lines += ["%s: %s" % (letter, shown_name(shard.path)), "  " + version]
        lines += ["  %s: %s" % item for item in rest]
    if comparison.note is not None:
        lines.append("Note: %s." % comparison.note)
    if comparison.changes:
        lines.append("Changed verdicts, A -> B (classes numbered from 0):")
        lines += ["  class %d%s: %s -> %s" % (i, class_token(comparison.tokens, i), a, b)
                  for i, a, b in comparison.changes]
    lines.append(_count(comparison))
    return "\n".join(lines) + "\n"


def compare_markdown(comparison):
    """A section to paste into a review: the two reports as nested lists,
    the note, a table of the changed classes (with their tokens where a
    report names them), the count."""
    names = " and ".join(markdown_name(shard.path) for shard in (comparison.a, comparison.b))
    lines = ["### compare %s" % names, ""]
    for letter, shard in zip(_LETTERS, (comparison.a, comparison.b)):
        lines.append("- %s: %s" % (letter, markdown_name(shard.path)))
        lines += ["  - %s: %s" % (label.capitalize(), markdown_name(value))
                  for label, value in _report_items(shard)]
    lines.append("")
    if comparison.note is not None:
        lines += ["Note: %s." % comparison.note, ""]
    if comparison.changes:
        token = "" if comparison.tokens is None else " Token |"
        lines += ["| Class |%s A | B |" % token, "| ---: |%s --- | --- |" % (token and " --- |")]
        lines += ["| %d |%s %s | %s |" % (i, markdown_token(comparison.tokens, i), a, b)
                  for i, a, b in comparison.changes]
        lines.append("")
    lines.append("%s Classes numbered from 0." % _count(comparison))
    return "\n".join(lines) + "\n"


def _report_json(shard):
    """A report as the comparison's JSON shows it: its file, then the keys
    of check-layer's JSON that say what it is of."""
    report = shard.report
    return dict([("report", shard.path)] + report.provenance.json_items()
                + [("file", report.name), ("dim", report.dim), ("bias", report.bias)]
                + question_json(report.question) + [("certificates", report.certificates)])


def compare_json(comparison):
    """One JSON object: "reports" (each's "report" file, then the keys of
    check-layer's JSON that say what it is of: "version", "files",
    "weights_tensor", "bias_tensor", "transpose", "file", "dim", "bias",
    "box", "inputs" where asked, "tolerance", "certificates"), "classes" (the layers' number of
    classes), "asked" (the classes compared, as --classes takes them),
    "numbered_from" (0), "note" (null where the reports ask the same
    question), "changed" and "unchanged" (how many classes), "ways" (each
    way a verdict changed: {"a", "b", "classes"}), and "changes": one line
    per changed class, {"index", "token" (where a report has tokens; null
    for a class neither names), "a", "b"}, A's verdict and B's, each
    "argmaxable", "unargmaxable" or "masked"."""
    header = [("classes", comparison.a.report.class_count),
              ("asked", ranges_text(comparison.classes)),
              ("numbered_from", 0), ("note", comparison.note),
              ("changed", len(comparison.changes)),
              ("unchanged", len(comparison.classes) - len(comparison.changes)),
              ("ways", [{"a": a, "b": b, "classes": n} for a, b, n in comparison.ways])]
    lines = ["{", '  "reports": [',
             ",\n".join("    " + json.dumps(_report_json(shard))
                        for shard in (comparison.a, comparison.b)), "  ],"]
    lines += ["  %s: %s," % (json.dumps(key), json.dumps(value)) for key, value in header]
    lines.append('  "changes": [')
    if comparison.changes:
        lines.append(",\n".join("    " + json.dumps(_change_json(change, comparison.tokens))
                                for change in comparison.changes))
    lines += ["  ]", "}"]
    return "\n".join(lines) + "\n"


def _change_json(change, tokens):
    index, a, b = change
    entry = {"index": index}
    if tokens is not None:
        entry["token"] = tokens.get(index)
    entry.update(a=a, b=b)
    return entry


COMPARE_FORMATS = {"text": compare_text, "markdown": compare_markdown, "json": compare_json}
