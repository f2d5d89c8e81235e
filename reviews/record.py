"""A check-layer report as one record: what check-layer renders, merge
joins, compare and resume read.

A ``LayerReport`` holds everything a report of a checked layer says: the
layer's name, each class's result (a ClassResult, which carries the
question it answers: reviews.argmax.question), the dimension, whether
there is a bias, the radii, the classes' tokens, what produced it (a
Provenance: the version, each file by size and SHA-256, the tensors read,
the transposition), the layer's number of classes, whether only some
classes were asked, and which certificates it lists.  Its JSON is written
by ``to_json`` and read back by ``LayerReport.from_json``, strictly: a
report read and written again is the same text, byte for byte, and a file
that contradicts itself anywhere (a class both argmaxable and masked, a
rounded value that is not its exact value rounded, a thin class of a
radius above 1e-8) is refused in one line naming it.  The renderers
(reviews.report.layer) show the same record as text and markdown.

    LayerReport     the record, with to_json and from_json
    Provenance      the version, files, tensors and transposition of a report
    question_json   a Question as a report's keys ("box", "inputs", "tolerance")
    approximation   an exact value rounded as the reports show it beside it
    CERTIFICATES    what a report can list: every class, or the unargmaxable

A report's classes are numbered from 0, as in Python and the API; its
rationals are exact text ("p/q" or "p") beside their approximation to 6
significant digits.

>>> from fractions import Fraction
>>> from reviews.argmax.check import check_layer
>>> made = Provenance("review-counterexamples 0.7.0", [("w.csv", 9, "ab12")], None, None, False)
>>> report = LayerReport("w.csv", check_layer([[0], [1], [3]]), 1, False, provenance=made)
>>> LayerReport.from_json(report.to_json(), "w.json").to_json() == report.to_json()
True
"""

import decimal
import json
import re
from collections import namedtuple
from fractions import Fraction

from reviews.argmax.question import LayerNorm, Question, RMSNorm, inputs_value
from reviews.argmax.kernels.witness import Witness
from reviews.argmax.result import ClassResult
from reviews.argmax.tolerance import THRESHOLD, Radius
from reviews.errors import InputError
from reviews.exact import (MAX_BITS, common_denominator, decimal_size_error, exact_text,
                           rational_from_text, rational_text, to_decimal)
from reviews.formats.classes import ranges_text
from reviews.formats.layers import Tensor
from reviews.formats.source import MAX_VALUES
from reviews.shown import shown_name

__all__ = ["LayerReport", "Provenance", "question_json", "approximation", "CERTIFICATES"]

CERTIFICATES = ("all", "unargmaxable")

_DIGITS = 6
# Correct rounding of any rational a certificate holds: a coefficient can be
# 1e-4400, which a float would show as 0.  Never the global context.
_APPROXIMATE = decimal.Context(prec=_DIGITS, rounding=decimal.ROUND_HALF_EVEN,
                               Emin=decimal.MIN_EMIN, Emax=decimal.MAX_EMAX)


def approximation(value):
    """``value`` correctly rounded to 6 significant digits (fewer when that
    is exact), in Python's notation.

    >>> approximation(Fraction(61, 145)), approximation(0.5), approximation(Fraction(1, 10 ** 4400))
    ('0.420690', '0.5', '1e-4400')
    """
    return format(to_decimal(value, _APPROXIMATE), "g")


class Provenance(namedtuple("Provenance", "version files weights_tensor bias_tensor transpose")):
    """What produced a checked layer's report: the version line, the files
    read as (path, bytes, SHA-256 in hex; None and None for standard input),
    the tensors read as (name, dtype, shape) or None, and whether the layer
    was read transposed."""

    __slots__ = ()

    def json_items(self):
        """The report's first keys, in order, as (key, JSON value)."""
        def tensor(t):
            return None if t is None else {"name": t.name, "dtype": t.dtype,
                                           "shape": list(t.shape)}
        return [("version", self.version),
                ("files", [{"path": p, "bytes": n, "sha256": d} for p, n, d in self.files]),
                ("weights_tensor", tensor(self.weights_tensor)),
                ("bias_tensor", tensor(self.bias_tensor)), ("transpose", self.transpose)]


def question_json(question):
    """The report's keys of ``question``, in the order reports give them:
    "box" (exact text, or null), "inputs" (where asked: [low, high], each
    end exact text or null; for a norm's outputs {"norm": "layernorm" or
    "rmsnorm", "weight" and "bias": lists of exact text or null for 1 and
    0, "eps": exact text or null, "names": [the weight's, the bias's],
    each text or null}) and "tolerance" (exact text)."""
    box, tolerance, inputs = question
    items = [("box", None if box is None else rational_text(box))]
    if question.normed:
        items.append(("inputs", {"norm": inputs.kind, "weight": _texts(inputs.weight),
                                 "bias": _texts(inputs.bias),
                                 "eps": None if inputs.eps is None else rational_text(inputs.eps),
                                 "names": list(inputs.names)}))
    elif inputs is not None:
        items.append(("inputs", [None if end is None else rational_text(end) for end in inputs]))
    return items + [("tolerance", rational_text(tolerance))]


def _texts(values):
    return None if values is None else [rational_text(v) for v in values]


class LayerReport(namedtuple("LayerReport", "name results dim bias radii tokens provenance"
                                            " class_count selected certificates")):
    """A checked layer's report: ``name`` (the layer as the report names
    it), ``results`` (a ClassResult per class decided, in increasing
    order, all answering one question), ``dim``, ``bias`` (whether the
    layer has one), ``radii`` (a Radius or None per result, or None where
    no radius is reported: reviews.argmax.tolerance), ``tokens`` ({class:
    token}, or None without a vocabulary), ``provenance`` (a Provenance,
    or None), ``class_count`` (the layer's number of classes; None: as
    many as the results), ``selected`` (whether only some classes were
    asked, as with --classes: the reports name them) and ``certificates``
    ("all", or "unargmaxable" where only those classes' certificates are
    listed: the argmaxable ones are then results without a witness).
    """

    __slots__ = ()

    def __new__(cls, name, results, dim, bias, radii=None, tokens=None, provenance=None,
                class_count=None, selected=False, certificates="all"):
        if certificates not in CERTIFICATES:
            raise ValueError("certificates must be one of %s, not %r"
                             % (", ".join(CERTIFICATES), certificates))
        return super().__new__(cls, name, results, dim, bias, radii, tokens, provenance,
                               len(results) if class_count is None else class_count, selected,
                               certificates)

    @property
    def question(self):
        """The Question every result answers."""
        return self.results[0].question if self.results else Question()

    @property
    def unargmaxable(self):
        """The results of the classes that are not argmaxable."""
        return [r for r in self.results if not r.argmaxable]

    def thin(self):
        """[(class, its Radius)] for the classes of an exact radius (at most 1e-8)."""
        return [(r.index, radius) for r, radius in zip(self.results, self.radii or ())
                if radius is not None and radius.exact]

    def to_json(self, certificates=None):
        """The report as one JSON object, listing the certificates of every
        class or (``certificates`` "unargmaxable") of the unargmaxable only;
        None lists those the record holds.

        Keys: the provenance's ("version", "files", each {"path", "bytes",
        "sha256"}, "weights_tensor", "bias_tensor", each {"name", "dtype",
        "shape"} or null, "transpose"), then "file", "classes" (the layer's
        number), "asked" (the classes held, as --classes takes them), "dim",
        "bias", the question's "box" and, where asked, "inputs"
        (question_json), "numbered_from" (0), "unargmaxable" (their
        indices), the question's "tolerance", with radii
        "thinner_than_1e-8", then "certificates" and "results": one line per
        class listed.  An argmaxable class has its "witness" as d pairs
        [exact, approximation] (and its "radius", with "radius_at_most" for
        a thin class's largest radius between two values); an unargmaxable
        one its "terms" as triples [j, exact, approximation] in increasing
        j, or "masked": true; with tokens, each line has its "token" (null
        for none).

        >>> results = [ClassResult(0, True, (Fraction(1, 3),)),
        ...            ClassResult(1, False, None, ((0, Fraction(1)),))]
        >>> print(LayerReport("f.csv", results, 1, True).to_json(), end="")
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
        """
        certificates = self.certificates if certificates is None else certificates
        if certificates not in CERTIFICATES:
            raise ValueError("certificates must be one of %s, not %r"
                             % (", ".join(CERTIFICATES), certificates))
        if certificates == "all" and self.certificates != "all":
            raise ValueError("a report of the unargmaxable classes' certificates cannot list"
                             " every class's")
        question = question_json(self.question)
        header = [] if self.provenance is None else self.provenance.json_items()
        header += [("file", self.name), ("classes", self.class_count),
                   ("asked", ranges_text(r.index for r in self.results)), ("dim", self.dim),
                   ("bias", self.bias)] + question[:-1]
        header += [("numbered_from", 0), ("unargmaxable", [r.index for r in self.unargmaxable]),
                   question[-1]]
        if self.radii is not None:
            header.append(("thinner_than_1e-8", [i for i, _ in self.thin()]))
        header.append(("certificates", certificates))
        listed = [(r, radius) for r, radius in zip(self.results,
                                                   self.radii or [None] * len(self.results))
                  if certificates == "all" or not r.argmaxable]
        lines = ["{"] + ["  %s: %s," % (json.dumps(key), json.dumps(value))
                         for key, value in header]
        lines.append('  "results": [')
        if listed:
            lines.append(",\n".join("    " + json.dumps(_class_json(r, radius, self.tokens))
                                     for r, radius in listed))
        lines += ["  ]", "}"]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_json(cls, text, path):
        """The LayerReport of a check-layer (or merge) JSON report ``text``
        read from ``path``; InputError naming ``path`` for anything else,
        or for a report that contradicts itself."""
        return _read(path, text)


def radius_text(value):
    """A radius (a decimal of a few significant digits) as its exact text;
    None is unbounded ("inf")."""
    return "inf" if value is None else exact_text(value)


def _class_json(result, radius=None, tokens=None):
    entry = {"index": result.index, "argmaxable": result.argmaxable}
    if tokens is not None:
        entry["token"] = tokens.get(result.index)
    if result.argmaxable:
        entry["witness"] = _witness_json(result.witness)
        if radius is not None:
            entry["radius"] = radius_text(radius.value)
            if radius.upper is not None and radius.upper != radius.value:
                entry["radius_at_most"] = radius_text(radius.upper)
    elif result.masked:
        entry["masked"] = True
    else:
        entry["terms"] = [[j, rational_text(v), approximation(v)] for j, v in result.terms]
    return entry


def _witness_json(witness):
    # A sparse witness is thousands of zeros, and one in a box or on a domain
    # has most coordinates at an end: each value is written once.
    witness = Witness.of(witness)
    shown = {0: ["0", "0"]}
    for n in witness.numerators:
        if n not in shown:
            value = Fraction(n, witness.denominator)
            shown[n] = [rational_text(value), approximation(value)]
    return [shown[n] for n in witness.numerators]


# A report's ints are class ids, sizes and dimensions: no more digits than these.
_INT_DIGITS = 20
# A report of the unargmaxable lists no argmaxable class: so that a small
# file stands for no more than a few seconds of work, it may hold at most
# this many classes a byte (a Llama-3 shard holds a few).
_CLASSES_A_BYTE = 256
_ASKED = re.compile(r"([0-9]{1,%d})(?::([0-9]{1,%d}))?" % (_INT_DIGITS, _INT_DIGITS), re.ASCII)
# A radius as to_json writes it: 3 significant digits, rounded down.
_RADIUS = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]{1,5})?", re.ASCII)


def _read(path, text):
    """LayerReport.from_json."""
    fields = _Keys(path, _document(path, text))
    provenance = Provenance(fields.text("version"), fields.files(),
                            fields.tensor("weights_tensor"), fields.tensor("bias_tensor"),
                            fields.flag("transpose"))
    classes, dim = fields.count("classes"), fields.count("dim")
    box = fields.get("box")
    box = None if box is None else fields.rational("box", box)
    tolerance = fields.rational("tolerance", fields.get("tolerance"))
    certificates = fields.get("certificates")
    if certificates not in CERTIFICATES:
        raise fields.error('"certificates" is %s, not "all" or "unargmaxable"'
                           % _shown(certificates))
    if classes * dim > MAX_VALUES:
        raise fields.error("a layer of %d x %d is past the limit of %d values"
                           % (classes, dim, MAX_VALUES))
    lines = fields.get("results")
    if not isinstance(lines, list):
        raise fields.error('"results" is not a list')
    asked = fields.asked(classes, len(lines) if certificates == "all"
                         else _CLASSES_A_BYTE * len(text))
    thin = fields.get("thinner_than_1e-8", None)
    with_radii = thin is not None
    thin = set(fields.ids("thinner_than_1e-8", thin, classes)) if with_radii else set()
    unargmaxable = fields.ids("unargmaxable", fields.get("unargmaxable"), classes)
    if thin & set(unargmaxable):
        raise fields.error('its "thinner_than_1e-8" names an unargmaxable class')
    inputs = fields.inputs()
    if box is not None and inputs is not None:
        raise fields.error('it names both a "box" and "inputs": one question has one of them')
    if tolerance and isinstance(inputs, (LayerNorm, RMSNorm)):
        raise fields.error('it names a tolerance beside a norm\'s outputs, which are asked at'
                           ' tolerance 0 only')
    question = Question.exact(box, tolerance, inputs)
    reader = _Results(fields, classes, dim, question, with_radii, thin)
    for line in lines:
        reader.read(line)
    results, radii = reader.results, reader.radii
    if [r.index for r in results if not r.argmaxable] != unargmaxable:
        raise fields.error('its "unargmaxable" are not the classes its results say are')
    if certificates == "all":
        if [r.index for r in results] != asked:
            raise fields.error('its results are not of the classes it says it holds ("asked")')
    else:
        if any(r.argmaxable for r in results) or not set(unargmaxable) <= set(asked):
            raise fields.error('its results are not the unargmaxable of the classes it holds')
        listed = {r.index: r for r in results}
        results = [listed.get(i) or ClassResult(i, True, question=question) for i in asked]
        radii = [None] * len(results)
    return LayerReport(fields.text("file"), results, dim, fields.flag("bias"),
                       radii if with_radii else None, reader.tokens, provenance, classes,
                       len(results) != classes, certificates)


def _document(path, text):
    def short_int(digits):
        if len(digits.lstrip("-")) > _INT_DIGITS:
            raise ValueError("an integer of %d digits" % len(digits))
        return int(digits)
    try:
        document = json.loads(text, parse_int=short_int, parse_constant=_no_constant,
                              object_pairs_hook=_no_repeats)
    except RecursionError:
        raise InputError("%s: not a check-layer JSON report: nested too deep"
                         % shown_name(path)) from None
    except ValueError as error:
        raise InputError("%s: not a check-layer JSON report: %s"
                         % (shown_name(path), error)) from None
    if not isinstance(document, dict) or "results" not in document:
        raise InputError("%s: not a check-layer JSON report (no \"results\")"
                         % shown_name(path))
    return document


def _no_repeats(pairs):
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        repeated = next(key for key in keys if keys.count(key) > 1)
        raise ValueError("the key %s is there twice" % _shown(repeated))
    return dict(pairs)


def _no_constant(name):
    raise ValueError("%s is no number of a report" % name)


def _shown(value):
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


class _Keys:
    """A report's keys, each read as the type it must be, or InputError."""

    def __init__(self, path, document):
        self.path, self.document = path, document

    def error(self, message):
        return InputError("%s: %s" % (shown_name(self.path), message))

    _MISSING = object()

    def get(self, key, default=_MISSING):
        if key not in self.document:
            if default is not self._MISSING:
                return default
            raise self.error('not a check-layer JSON report of a layer (no "%s")' % key)
        return self.document[key]

    def text(self, key):
        value = self.get(key)
        if not isinstance(value, str):
            raise self.error('"%s" is %s, not text' % (key, _shown(value)))
        return value

    def flag(self, key):
        value = self.get(key)
        if not isinstance(value, bool):
            raise self.error('"%s" is %s, not true or false' % (key, _shown(value)))
        return value

    def count(self, key):
        value = self.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.error('"%s" is %s, not a positive whole number' % (key, _shown(value)))
        return value

    def rational(self, key, value):
        if not isinstance(value, str):
            raise self.error('"%s" is %s, not an exact number as text' % (key, _shown(value)))
        number = rational_from_text(value, '%s: "%s"' % (shown_name(self.path), key))
        if number < 0 or (key == "box" and number == 0):
            raise self.error('"%s" is %s' % (key, "0" if number == 0 else "negative"))
        return number

    def inputs(self):
        """The inputs asked (an Inputs, a LayerNorm or an RMSNorm), or None
        where the report names none."""
        ends = self.get("inputs", None)
        if ends is None:
            return None
        if isinstance(ends, dict):
            return self.norm(ends)
        if not (isinstance(ends, list) and len(ends) == 2
                and all(end is None or isinstance(end, str) for end in ends)):
            raise self.error('"inputs" is %s, not [low, high] as exact text or null'
                             % _shown(ends))
        where = '%s: "inputs"' % shown_name(self.path)
        try:
            inputs = inputs_value([None if end is None else rational_from_text(end, where)
                                   for end in ends])
        except InputError as error:
            raise self.error(str(error)) from None
        if Question.exact(inputs=inputs) != Question(inputs=inputs):
            raise self.error('"inputs" is %s, which a report names as %s'
                             % (_shown(ends), "its box" if inputs.bounded else "R^d"))
        return inputs

    def norm(self, value):
        """The norm of "inputs" {"norm", "weight", "bias", "eps", "names"}."""
        kinds = {"layernorm": LayerNorm, "rmsnorm": RMSNorm}
        if (set(value) != {"norm", "weight", "bias", "eps", "names"}
                or value["norm"] not in kinds or not isinstance(value["names"], list)):
            raise self.error('"inputs" is %s, not a norm as check-layer writes it'
                             % _shown(value))
        where = '%s: "inputs"' % shown_name(self.path)

        def exact(key):
            texts = value[key]
            if texts is None:
                return None
            if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
                raise self.error('"inputs"\'s %s is %s, not exact text' % (key, _shown(texts)))
            return [rational_from_text(text, where) for text in texts]

        eps = value["eps"]
        if eps is not None and not isinstance(eps, str):
            raise self.error('"inputs"\'s eps is %s, not exact text' % _shown(eps))
        try:
            norm = kinds[value["norm"]]._make((
                exact("weight"), exact("bias"),
                None if eps is None else rational_from_text(eps, where), value["names"])).exact()
        except (InputError, TypeError) as error:
            raise self.error(str(error)) from None
        dim = self.count("dim")
        if norm.dimension_error(dim):
            raise self.error(norm.dimension_error(dim))
        return norm

    def files(self):
        files = self.get("files")
        if not isinstance(files, list) or not files:
            raise self.error('"files" is %s, not a list of files' % _shown(files))
        read = []
        for entry in files:
            if not isinstance(entry, dict) or set(entry) != {"path", "bytes", "sha256"}:
                raise self.error('a file of "files" is %s, not {"path", "bytes", "sha256"}'
                                 % _shown(entry))
            path, size, digest = entry["path"], entry["bytes"], entry["sha256"]
            if not isinstance(path, str) or (size is None) != (digest is None) or (
                    size is not None and (isinstance(size, bool) or not isinstance(size, int)
                                          or not isinstance(digest, str))):
                raise self.error('a file of "files" is %s' % _shown(entry))
            read.append((path, size, digest))
        return read

    def tensor(self, key):
        value = self.get(key)
        if value is None:
            return None
        if (not isinstance(value, dict) or set(value) != {"name", "dtype", "shape"}
                or not isinstance(value["name"], str) or not isinstance(value["dtype"], str)
                or not isinstance(value["shape"], list)
                or not all(isinstance(n, int) and not isinstance(n, bool)
                           for n in value["shape"])):
            raise self.error('"%s" is %s, not {"name", "dtype", "shape"}' % (key, _shown(value)))
        return Tensor(value["name"], value["dtype"], tuple(value["shape"]))

    def asked(self, classes, most):
        """The classes of "asked", written as ranges_text writes them (ids
        and ranges START:STOP, increasing); at most ``most`` of them."""
        value = self.text("asked")
        parts = []
        for item in value.split(","):
            match = _ASKED.fullmatch(item)
            if not match:
                raise self.error('"asked" is %s, not class ids and ranges in increasing order'
                                 % _shown(value))
            start = int(match.group(1))
            stop = start + 1 if match.group(2) is None else int(match.group(2))
            if stop <= start or stop > classes or parts and start < parts[-1][1]:
                raise self.error('"asked" is %s, not class ids and ranges in increasing order'
                                 ' of the layer\'s %d' % (_shown(value), classes))
            parts.append((start, stop))
        if sum(stop - start for start, stop in parts) > most:
            raise self.error('"asked" names more classes than the report holds')
        return [i for start, stop in parts for i in range(start, stop)]

    def ids(self, key, value, classes):
        if not isinstance(value, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < classes
                for i in value) or value != sorted(set(value)):
            raise self.error('"%s" is %s, not classes in increasing order' % (key, _shown(value)))
        return value


class _Results:
    """A report's result lines read one by one into ClassResults and Radii."""

    def __init__(self, fields, class_count, dim, question, with_radii, thin):
        self.fields, self.class_count, self.dim = fields, class_count, dim
        self.question, self.with_radii, self.thin = question, with_radii, thin
        self.results, self.radii, self.tokens = [], [], None

    def read(self, line):
        fields = self.fields
        if not isinstance(line, dict):
            raise fields.error("a result is %s, not an object" % _shown(line))
        index = line.get("index")
        if (isinstance(index, bool) or not isinstance(index, int)
                or not 0 <= index < self.class_count):
            raise fields.error("a result's index is %s, not a class of %d"
                               % (_shown(index), self.class_count))
        where = "class %d" % index
        if self.results and index <= self.results[-1].index:
            raise fields.error("%s: results go in increasing class order" % where)
        argmaxable = line.get("argmaxable")
        if not isinstance(argmaxable, bool):
            raise fields.error("%s: \"argmaxable\" is %s" % (where, _shown(argmaxable)))
        self._token(line, where, index)
        masked = line.get("masked", False)
        if masked is not False and (masked is not True or argmaxable or "terms" in line):
            raise fields.error('%s: "masked" is %s beside %s' % (
                where, _shown(masked), "argmaxable" if argmaxable else "its terms"))
        if argmaxable:
            result = ClassResult(index, True, self._witness(line.get("witness"), where),
                                 question=self.question)
        elif line.get("masked") is True:
            result = ClassResult(index, False, class_count=self.class_count,
                                 question=self.question, masked=True)
        else:
            result = ClassResult(index, False, None, self._terms(line.get("terms"), where, index),
                                 self.class_count, self.question)
        self.results.append(result)
        self.radii.append(self._radius(line, where, argmaxable, index))

    def _token(self, line, where, index):
        if self.tokens is None and not self.results and "token" in line:
            self.tokens = {}
        if ("token" in line) != (self.tokens is not None):
            raise self.fields.error("%s: some results have a token and some none" % where)
        token = line.get("token")
        if token is not None:
            if not isinstance(token, str):
                raise self.fields.error("%s: its token is %s, not text" % (where, _shown(token)))
            self.tokens[index] = token

    def _witness(self, pairs, where):
        if not isinstance(pairs, list) or len(pairs) != self.dim:
            raise self.fields.error("%s: its witness is not %d pairs [exact, approximation]"
                                    % (where, self.dim))
        witness = tuple(self._exact(pair, 2, 0, "%s's witness" % where) for pair in pairs)
        self._rounded_as_shown(pairs, witness, 0, "%s's witness" % where)
        return witness

    def _terms(self, triples, where, index):
        if not isinstance(triples, list) or not triples:
            raise self.fields.error("%s: not argmaxable, with no terms or mask" % where)
        terms = []
        for triple in triples:
            value = self._exact(triple, 3, 1, "%s's terms" % where)
            j = triple[0]
            if (isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < self.class_count
                    or (terms and j <= terms[-1][0])):
                raise self.fields.error("%s: its terms are not of classes in increasing order"
                                        % where)
            terms.append((j, value))
        if index in (j for j, _ in terms) or any(v <= 0 for _, v in terms):
            raise self.fields.error("%s: its terms are not positive weights of other classes"
                                    % where)
        # Terms share a denominator or nearly: one past the size limit is no
        # certificate, and summing the weights would take minutes.
        common = common_denominator((v for _, v in terms), MAX_BITS)
        if sum(v.numerator * (common // v.denominator) for _, v in terms) != common:
            raise self.fields.error("%s: its weights do not sum to 1" % where)
        self._rounded_as_shown(triples, [v for _, v in terms], 1, "%s's terms" % where)
        return tuple(terms)

    def _exact(self, entry, length, position, where):
        if not isinstance(entry, list) or len(entry) != length:
            raise self.fields.error("%s: %s is not a list of %d" % (where, _shown(entry), length))
        return rational_from_text(entry[position], "%s: %s" % (shown_name(self.fields.path),
                                                               where))

    def _rounded_as_shown(self, entries, values, position, where):
        """InputError where a rounded value is not its exact value's rounding."""
        for entry, value in zip(entries, values):
            if entry[position + 1] != approximation(value):
                raise self.fields.error("%s: %s is shown as %s, not as it rounds (%s)"
                                        % (where, _shown(entry[position]),
                                           _shown(entry[position + 1]), approximation(value)))

    def _radius(self, line, where, argmaxable, index):
        has = "radius" in line
        if has != (self.with_radii and argmaxable):
            raise self.fields.error("%s: %s" % (where, "a radius where the report has none"
                                                if has else "no radius"))
        if not has:
            return None
        text = line["radius"]
        if text == "inf":
            return Radius(None, False)
        value = self._radius_value(text, where, "radius")
        thin = index in self.thin
        upper = line.get("radius_at_most")
        if upper is None:
            radius = Radius(value, thin, value if thin else None)
            return self._thin_radius(radius, where) if thin else radius
        upper = self._radius_value(upper, where, "radius_at_most")
        if not thin or upper <= value:
            raise self.fields.error("%s: its radius_at_most is %s, not above its radius of a"
                                    " thin class" % (where, _shown(line["radius_at_most"])))
        return self._thin_radius(Radius(value, True, upper), where)

    def _thin_radius(self, radius, where):
        if radius.value > THRESHOLD:
            raise self.fields.error('%s: listed in "thinner_than_1e-8" with a radius of %s'
                                    % (where, exact_text(radius.value)))
        return radius

    def _radius_value(self, text, where, key):
        value = None
        if isinstance(text, str) and len(text) < 60 and _RADIUS.fullmatch(text):
            value = decimal.Decimal(text)
            value = None if decimal_size_error(value) else Fraction(value)
        if value is None or value <= 0:
            raise self.fields.error("%s: its %s is %s, not a positive number or \"inf\""
                                    % (where, key, _shown(text)))
        return value
