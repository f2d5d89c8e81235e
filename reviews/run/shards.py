"""Shards of one layer's check, joined into the report of the whole layer.

A shard is the JSON report that ``check-layer FILE --classes A:B --format
json`` writes: some of a layer's classes, each decided against every row,
read back as a LayerReport (reviews.record), which holds the layer's
provenance (the version, each file by SHA-256, the tensors, the
transposition) and the question asked.  ``join`` checks that shards are of
one layer, one question and one version, and that their classes cover the
layer exactly once; the LayerReport it gives renders (reviews.report.layer)
as the report of one run over every class, byte for byte.

    Shard        a shard read back: its path and its LayerReport
    read_shard   a shard report's text, read back, or InputError
    join         shards of one layer: the LayerReport of the whole layer

Reading a shard checks that it contradicts itself nowhere
(LayerReport.from_json); joining checks where the shards fit together,
and that no combination uses a class another shard says is masked; the
certificates against the layer are checked by reviews.run.merge, which
reads it.
"""

import collections

from reviews.errors import InputError
from reviews.formats.classes import ranges_text
from reviews.record import LayerReport
from reviews.shown import shown_name

__all__ = ["Shard", "read_shard", "join"]

Shard = collections.namedtuple("Shard", "path report")
Shard.__doc__ = """One shard: the path it was read from, and its LayerReport."""

# What says which layer and which question: equal in every shard.
_SAME = (("version", "the version of the suite or of Python that made it",
          lambda r: r.provenance.version),
         ("files", "the files (names, sizes or SHA-256)", lambda r: r.provenance.files),
         ("weights_tensor", "the weights' tensor", lambda r: r.provenance.weights_tensor),
         ("bias_tensor", "the bias's tensor", lambda r: r.provenance.bias_tensor),
         ("transpose", "--transpose", lambda r: r.provenance.transpose),
         ("file", "the layer's name", lambda r: r.name),
         ("classes", "the number of classes", lambda r: r.class_count),
         ("dim", "the dimension", lambda r: r.dim),
         ("bias", "whether there is a bias", lambda r: r.bias),
         ("box", "--box", lambda r: r.question.box),
         ("inputs", "--inputs", lambda r: r.question.inputs),
         ("tolerance", "--tolerance", lambda r: r.question.tolerance))


def read_shard(path, text):
    """The Shard of a check-layer JSON report ``text`` read from ``path``;
    InputError naming ``path`` for anything else.

    >>> from fractions import Fraction
    >>> from reviews.argmax.result import ClassResult
    >>> from reviews.record import Provenance
    >>> results = [ClassResult(2, True, (Fraction(1, 3), Fraction(0))),
    ...            ClassResult(3, False, None, ((1, Fraction(1, 2)), (2, Fraction(1, 2))))]
    >>> provenance = Provenance("review-counterexamples 0.4.0 (Python 3.11.7)",
    ...                         [("w.csv", 40, "9d32")], None, None, False)
    >>> text = LayerReport("w.csv", results, 2, False, provenance=provenance,
    ...                    class_count=4, selected=True).to_json()
    >>> shard = read_shard("part.json", text).report
    >>> shard.class_count, [(r.index, r.argmaxable) for r in shard.results]
    (4, [(2, True), (3, False)])
    """
    return Shard(path, LayerReport.from_json(text, path))


def join(shards, version, radii=True):
    """The LayerReport of the whole layer of ``shards`` (Shards), or InputError.

    They must be made by ``version`` (a version line that starts with it)
    and agree on every file, tensor and option, and their classes must
    cover the layer's exactly once.  ``radii`` False leaves out every
    shard's radii (the whole layer's run would give none); with it, every
    shard must have radii and every certificate.
    """
    if not shards:
        raise InputError("merge needs at least one shard")
    first = shards[0].report
    for path, shard in shards:
        if len(shards) > 1 and any(size is None for _, size, _ in shard.provenance.files):
            raise InputError("%s: its layer was read from standard input, which has no SHA-256"
                             " to match the other shards' to: check a layer in a file"
                             % shown_name(path))
        if not shard.provenance.version.startswith(version + " "):
            raise InputError("%s: made by %s, not %s: merge shards with the version that"
                             " made them" % (shown_name(path), shard.provenance.version,
                                             version))
        for key, what, said in _SAME:
            if said(shard) != said(first):
                if key == "files" and _contents(shard) == _contents(first):
                    what = ("the files' names (the same sizes and SHA-256): give every shard"
                            " the files by the same names, as the report shows them")
                raise InputError("%s is not a shard of the layer and options of %s: %s differ"
                                 % (shown_name(path), shown_name(shards[0].path), what))
        if radii and (shard.radii is None or shard.certificates != "all"):
            raise InputError("%s: a layer of %d x %d has radii in its report: its shards need"
                             " them and every certificate (write them with --certificates all)"
                             % (shown_name(path), first.class_count, first.dim))
    _cover(shards, first.class_count)
    results = [None] * first.class_count
    found = [None] * first.class_count
    for _, shard in shards:
        for n, result in enumerate(shard.results):
            results[result.index] = result
            found[result.index] = shard.radii and shard.radii[n]
    _no_masked_terms(shards, results)
    tokens = None
    for _, shard in shards:
        # A shard that lists no class says nothing of tokens.
        if shard.tokens is not None:
            tokens = tokens or {}
            tokens.update(shard.tokens)
    certificates = ("all" if all(s.report.certificates == "all" for s in shards)
                    else "unargmaxable")
    return LayerReport(first.name, results, first.dim, first.bias, found if radii else None,
                       tokens, first.provenance, first.class_count, False, certificates)


def _no_masked_terms(shards, results):
    """InputError where a combination uses a masked class: the others are
    decided without the masked ones, whose logits are -inf."""
    for path, shard in shards:
        for result in shard.results:
            used = [j for j, _ in result.terms or () if results[j] is not None
                    and results[j].masked]
            if used:
                raise InputError("%s: class %d's combination uses class %d, which is masked:"
                                 " no certificate" % (shown_name(path), result.index, used[0]))


def _cover(shards, classes):
    """InputError unless the shards hold each of the classes exactly once.

    Worked out from the classes held, not from a list of every class: a
    shard may claim a layer of billions."""
    held = sorted(r.index for shard in shards for r in shard.report.results)
    doubled = sorted({i for i, j in zip(held, held[1:]) if i == j})
    if doubled:
        raise InputError("%s in more than one shard" % _classes_are(doubled))
    gaps = [(a + 1, b) for a, b in zip([-1] + held, held + [classes]) if b > a + 1]
    if gaps:
        text = ",".join(str(a) if b == a + 1 else "%d:%d" % (a, b) for a, b in gaps)
        many = len(gaps) > 1 or gaps[0][1] > gaps[0][0] + 1
        raise InputError("%s %s %s in no shard" % ("classes" if many else "class", text,
                                                   "are" if many else "is"))


def _classes_are(ids):
    """ "class 7 is", "classes 2:4,9 are": ids as --classes takes them."""
    return ("class %d is" % ids[0] if len(ids) == 1 else "classes %s are" % ranges_text(ids))


def _contents(shard):
    """The shard's files by size and SHA-256 alone."""
    return [(size, digest) for _, size, digest in shard.provenance.files]
