"""Two check-layer reports of the same classes compared: which verdicts changed.

A report is the JSON of ``check-layer FILE --format json`` (or of
``merge``), read back strictly as merge reads a shard (reviews.run.shards):
each must contradict itself nowhere.  Their certificates are not checked
against the layers: check-layer and merge did that when they wrote them.
The two must hold the same classes: the same number of classes, the same
ones asked (two shards of the same ``--classes`` compare; shards of other
classes are merged first), and the same token wherever both name one.  They
may ask different questions (``--box``, ``--inputs``, ``--tolerance``): each verdict is
exact for its own question, and the note of the comparison says that a
verdict may then change with the question as well as with the layer.

    VERDICTS         a class's verdicts, in the order changes are counted
    verdict          a ClassResult's verdict: "argmaxable", "unargmaxable", "masked"
    Comparison       what compare_shards gives, for the renderers
    compare_shards   two Shards compared, or InputError
    compare_reports  the reports at two paths read and compared, or InputError
"""

import collections

from reviews.errors import InputError
from reviews.argmax.domain import shown_inputs
from reviews.exact import exact_text
from reviews.formats.classes import ranges_text
from reviews.run.merge import shard_text
from reviews.run.shards import read_shard
from reviews.shown import excerpt, shown_name

__all__ = ["VERDICTS", "verdict", "Comparison", "compare_shards", "compare_reports"]

VERDICTS = ("argmaxable", "unargmaxable", "masked")

Comparison = collections.namedtuple("Comparison", "a b classes changes ways tokens note")
Comparison.__doc__ = """Two reports compared: the Shards a and b; the ids of the classes
compared, in increasing order; (class, a's verdict, b's verdict) for each
class whose verdict differs, in increasing order; (a's verdict, b's
verdict, how many classes) for each way a verdict changed, in the order
of VERDICTS; {class: token} for the changed classes that either report
names, or None where neither has tokens; a note, or None, where the
reports ask different questions."""


def verdict(result):
    """A ClassResult's verdict, one of VERDICTS: "masked" for a class
    masked by a bias of -inf, which is unargmaxable too."""
    if result.argmaxable:
        return "argmaxable"
    return "masked" if result.masked else "unargmaxable"


def compare_reports(path_a, path_b):
    """The Comparison of the check-layer JSON reports at ``path_a`` and
    ``path_b``; InputError for a file that is no such report, or reports
    of other classes."""
    return compare_shards(*(read_shard(path, shard_text(path)) for path in (path_a, path_b)))


def compare_shards(a, b):
    """The Comparison of the reports ``a`` and ``b`` (reviews.run.shards.Shard);
    InputError naming them where they are not of the same classes.

    >>> from fractions import Fraction
    >>> from reviews.argmax.result import ClassResult
    >>> from reviews.record import LayerReport, Provenance
    >>> made = Provenance("review-counterexamples 0.4.0", [("w.csv", 9, "ab12")], None, None,
    ...                   False)
    >>> def report(path, *argmaxable):
    ...     results = [ClassResult(i, True, (Fraction(i),)) if winner else
    ...                ClassResult(i, False, None, ((1 - i, Fraction(1)),))
    ...                for i, winner in enumerate(argmaxable)]
    ...     return read_shard(path, LayerReport("w.csv", results, 1, False,
    ...                                         provenance=made).to_json())
    >>> compared = compare_shards(report("f16.json", True, True),
    ...                           report("q4.json", True, False))
    >>> compared.changes, compared.ways
    ([(1, 'argmaxable', 'unargmaxable')], [('argmaxable', 'unargmaxable', 1)])
    >>> compare_shards(report("f16.json", True, True), report("q4.json", True, True, True))
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: f16.json has 2 classes, q4.json has 3: compare needs reports \
of the same classes
    """
    names = shown_name(a.path), shown_name(b.path)
    x, y = a.report, b.report
    if x.class_count != y.class_count:
        raise InputError("%s has %d classes, %s has %d: compare needs reports of the same"
                         " classes" % (names[0], x.class_count, names[1], y.class_count))
    classes = [r.index for r in x.results]
    if classes != [r.index for r in y.results]:
        raise InputError("%s holds classes %s of %d, %s classes %s: compare needs reports of"
                         " the same classes (merge each one's shards first)"
                         % (names[0], ranges_text(classes), x.class_count, names[1],
                            ranges_text(r.index for r in y.results)))
    _same_tokens(x, y, names)
    changes = [(p.index, verdict(p), verdict(q)) for p, q in zip(x.results, y.results)
               if verdict(p) != verdict(q)]
    counted = collections.Counter((p, q) for _, p, q in changes)
    ways = [(p, q, counted[p, q]) for p in VERDICTS for q in VERDICTS if counted[p, q]]
    tokens = None
    if x.tokens is not None or y.tokens is not None:
        named = {**(y.tokens or {}), **(x.tokens or {})}
        tokens = {i: named[i] for i, _, _ in changes if i in named}
    return Comparison(a, b, classes, changes, ways, tokens, _question_note(x, y))


def _same_tokens(a, b, names):
    """InputError for a class that the two reports name by other tokens:
    their vocabularies, and so their classes, are not the same."""
    if a.tokens is None or b.tokens is None:
        return
    for index in sorted(a.tokens.keys() & b.tokens.keys()):
        if a.tokens[index] != b.tokens[index]:
            raise InputError("class %d is %s in %s and %s in %s: compare needs reports of the"
                             " same classes" % (index, excerpt(a.tokens[index]), names[0],
                                                excerpt(b.tokens[index]), names[1]))


def _question_note(a, b):
    """The note for reports that ask different questions, or None; it
    names them A and B, as the reports do, and no file, so that it reads
    the same in every format.

    They are compared all the same: each verdict is exact for its own
    question, and comparing the questions on one layer is itself a use
    (which classes the released detector's tolerance drops)."""
    if a.question == b.question:
        return None
    return ("the reports ask different questions (A: %s; B: %s): a verdict may change with"
            " the question as well as with the layer" % (_question(a), _question(b)))


def _question(report):
    """ "box R = 100, tolerance T = 1e-8": the question a report asks."""
    box, tolerance, inputs = report.question
    where = "no box" if box is None else "box R = %s" % exact_text(box)
    if inputs is not None:
        where = "inputs %s" % shown_inputs(inputs)
    return "%s, tolerance T = %s" % (where, exact_text(tolerance))
