"""Shards of one layer's check, joined into the report of the whole layer.

A shard is the JSON report that ``check-layer FILE --classes A:B --format
json`` writes: some of a layer's classes, each decided against every row,
with the layer's provenance (the version, each file by SHA-256, the
tensors, the transposition) and the question asked (the box, the
tolerance).  ``join`` checks that shards are of one layer, one question
and one version, and that their classes cover the layer exactly once;
what it gives renders (reviews.report.layer) as the report of one run
over every class, byte for byte.

    Shard        one shard read back
    read_shard   a shard report's text, read back, or InputError
    join         shards of one layer: a Joined, for the renderers

Joining checks where the shards fit together, and that none contradicts
itself (a class both argmaxable and masked, a combination that uses a
masked class, a rounded value that is not its exact value rounded, a thin
class of a radius above 1e-8); the certificates against the layer are
checked by the merge command (reviews.cli.merge), which reads it.
"""

import collections
import decimal
import json
import re
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import (MAX_BITS, common_denominator, decimal_size_error, exact_text,
                           rational_from_text)
from reviews.argmax.question import Question, inputs_value
from reviews.argmax.result import ClassResult
from reviews.argmax.tolerance import THRESHOLD, Radius
from reviews.formats.classes import ranges_text
from reviews.formats.layers import Tensor
from reviews.formats.source import MAX_VALUES
from reviews.report.layer import Provenance, approximation
from reviews.shown import shown_name

__all__ = ["Shard", "read_shard", "join", "Joined"]

Shard = collections.namedtuple(
    "Shard", "path provenance name class_count dim bias box tolerance certificates results radii"
             " tokens inputs", defaults=(None,))
Shard.__doc__ = """One shard: where it was read from; the Provenance; the layer's name,
class_count C and dimension d; whether it has a bias; the box (a Fraction or
None) and tolerance (a Fraction) asked; "all" or "unargmaxable" (the
certificates it lists); a ClassResult per class it holds, in increasing
order (an argmaxable class without its witness where only the
unargmaxable were listed); a Radius or None per result, or None without
radii; {class: token} or None without a vocabulary; the inputs asked
(reviews.argmax.domain.Inputs), or None for the box or R^d."""

Joined = collections.namedtuple(
    "Joined", "provenance name class_count dim bias results radii tokens certificates inputs",
    defaults=(None,))
Joined.__doc__ = """The whole layer from its shards: as Shard, every class's result in
order, the radii only where ``join`` was asked for them, and the
certificates every shard lists ("all" unless one lists the unargmaxable
only)."""

# The report's keys that say which layer and which question: equal in every shard.
_SAME = (("version", "the version of the suite or of Python that made it"),
         ("files", "the files (names, sizes or SHA-256)"), ("weights_tensor", "the weights'"
         " tensor"), ("bias_tensor", "the bias's tensor"), ("transpose", "--transpose"),
         ("file", "the layer's name"), ("classes", "the number of classes"),
         ("dim", "the dimension"), ("bias", "whether there is a bias"), ("box", "--box"),
         ("inputs", "--inputs"), ("tolerance", "--tolerance"))
_CERTIFICATES = ("all", "unargmaxable")
# A shard's ints are class ids, sizes and dimensions: no more digits than these.
_INT_DIGITS = 20
_CLASSES_A_BYTE = 256
_ASKED = re.compile(r"([0-9]{1,%d})(?::([0-9]{1,%d}))?" % (_INT_DIGITS, _INT_DIGITS), re.ASCII)
# A radius as layer_json writes it: 3 significant digits, rounded down.
_RADIUS = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:e[-+][0-9]{1,5})?", re.ASCII)


def read_shard(path, text):
    """The Shard of a check-layer JSON report ``text`` read from ``path``;
    InputError naming ``path`` for anything else.

    >>> from reviews.report.layer import layer_json
    >>> results = [ClassResult(2, True, (Fraction(1, 3), Fraction(0))),
    ...            ClassResult(3, False, None, ((1, Fraction(1, 2)), (2, Fraction(1, 2))))]
    >>> provenance = Provenance("review-counterexamples 0.4.0 (Python 3.11.7)",
    ...                         [("w.csv", 40, "9d32")], None, None, False)
    >>> report = layer_json("w.csv", results, 2, False, provenance=provenance, class_count=4)
    >>> shard = read_shard("part.json", report)
    >>> shard.class_count, [(r.index, r.argmaxable) for r in shard.results]
    (4, [(2, True), (3, False)])
    """
    document = _document(path, text)
    fields = _ShardKeys(path, document)
    provenance = Provenance(fields.text("version"), fields.files(), fields.tensor("weights_tensor"),
                            fields.tensor("bias_tensor"), fields.flag("transpose"))
    classes, dim = fields.count("classes"), fields.count("dim")
    box = fields.get("box")
    box = None if box is None else fields.rational("box", box)
    tolerance = fields.rational("tolerance", fields.get("tolerance"))
    certificates = fields.get("certificates")
    if certificates not in _CERTIFICATES:
        raise fields.error('"certificates" is %s, not "all" or "unargmaxable"'
                           % _shown(certificates))
    if classes * dim > MAX_VALUES:
        raise fields.error("a layer of %d x %d is past the limit of %d values"
                           % (classes, dim, MAX_VALUES))
    lines = fields.get("results")
    if not isinstance(lines, list):
        raise fields.error('"results" is not a list')
    # A shard of the unargmaxable lists no argmaxable class: so that a small
    # file stands for no more than a few seconds of work, it may hold at
    # most this many classes a byte (a Llama-3 shard holds a few).
    asked = fields.asked(classes, len(lines) if certificates == "all"
                         else _CLASSES_A_BYTE * len(text))
    thin = fields.get("thinner_than_1e-8", None)
    with_radii = thin is not None
    thin = set(fields.ids("thinner_than_1e-8", thin, classes)) if with_radii else set()
    unargmaxable = fields.ids("unargmaxable", fields.get("unargmaxable"), classes)
    if thin & set(unargmaxable):
        raise fields.error('its "thinner_than_1e-8" names an unargmaxable class')
    inputs = fields.inputs()
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
        results, radii = _filled(asked, results, question, with_radii)
    return Shard(path, provenance, fields.text("file"), classes, dim, fields.flag("bias"), box,
                 tolerance, certificates, results, radii if with_radii else None,
                 reader.tokens, inputs)


def _filled(asked, results, question, with_radii):
    """Every class asked: the listed unargmaxable, the others argmaxable (unlisted)."""
    listed = {r.index: r for r in results}
    filled = [listed.get(i) or ClassResult(i, True, question=question) for i in asked]
    return filled, [None] * len(filled) if with_radii else None


def join(shards, version, radii=True):
    """The Joined report of ``shards`` (Shards) of one layer, or InputError.

    They must be made by ``version`` (a version line that starts with it)
    and agree on every file, tensor and option, and their classes must
    cover the layer's exactly once.  ``radii`` False leaves out every
    shard's radii (the whole layer's run would give none); with it, every
    shard must have radii and every certificate.
    """
    if not shards:
        raise InputError("merge needs at least one shard")
    first = shards[0]
    for shard in shards:
        if len(shards) > 1 and any(size is None for _, size, _ in shard.provenance.files):
            raise InputError("%s: its layer was read from standard input, which has no SHA-256"
                             " to match the other shards' to: check a layer in a file"
                             % shown_name(shard.path))
        if not shard.provenance.version.startswith(version + " "):
            raise InputError("%s: made by %s, not %s: merge shards with the version that"
                             " made them" % (shown_name(shard.path), shard.provenance.version,
                                             version))
        for key, what in _SAME:
            if _key(shard, key) != _key(first, key):
                if key == "files" and _contents(shard) == _contents(first):
                    what = ("the files' names (the same sizes and SHA-256): give every shard"
                            " the files by the same names, as the report shows them")
                raise InputError("%s is not a shard of the layer and options of %s: %s differ"
                                 % (shown_name(shard.path), shown_name(first.path), what))
        if radii and (shard.radii is None or shard.certificates != "all"):
            raise InputError("%s: a layer of %d x %d has radii in its report: its shards need"
                             " them and every certificate (write them with --certificates all)"
                             % (shown_name(shard.path), first.class_count, first.dim))
    _cover(shards, first.class_count)
    results = [None] * first.class_count
    found = [None] * first.class_count
    for shard in shards:
        for n, result in enumerate(shard.results):
            results[result.index] = result
            found[result.index] = shard.radii and shard.radii[n]
    _no_masked_terms(shards, results)
    tokens = None
    for shard in shards:
        # A shard that lists no class says nothing of tokens.
        if shard.tokens is not None:
            tokens = tokens or {}
            tokens.update(shard.tokens)
    certificates = "all" if all(s.certificates == "all" for s in shards) else "unargmaxable"
    return Joined(first.provenance, first.name, first.class_count, first.dim, first.bias, results,
                  found if radii else None, tokens, certificates, first.inputs)


def _no_masked_terms(shards, results):
    """InputError where a combination uses a masked class: the others are
    decided without the masked ones, whose logits are -inf."""
    for shard in shards:
        for result in shard.results:
            used = [j for j, _ in result.terms or () if results[j] is not None
                    and results[j].masked]
            if used:
                raise InputError("%s: class %d's combination uses class %d, which is masked:"
                                 " no certificate" % (shown_name(shard.path), result.index,
                                                      used[0]))


def _cover(shards, classes):
    """InputError unless the shards hold each of the classes exactly once.

    Worked out from the classes held, not from a list of every class: a
    shard may claim a layer of billions."""
    held = sorted(r.index for shard in shards for r in shard.results)
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


def _key(shard, key):
    """What a shard says for one of the report's keys (_SAME)."""
    provenance = shard.provenance
    return {"version": provenance.version, "files": provenance.files,
            "weights_tensor": provenance.weights_tensor, "bias_tensor": provenance.bias_tensor,
            "transpose": provenance.transpose, "file": shard.name, "classes": shard.class_count,
            "dim": shard.dim, "bias": shard.bias, "box": shard.box, "inputs": shard.inputs,
            "tolerance": shard.tolerance}[key]


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


class _ShardKeys:
    """A shard's keys, each read as the type it must be, or InputError."""

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
        if number < 0:
            raise self.error('"%s" is negative' % key)
        return number

    def inputs(self):
        """The inputs asked (an Inputs), or None where the report names none."""
        ends = self.get("inputs", None)
        if ends is None:
            return None
        if not (isinstance(ends, list) and len(ends) == 2
                and all(end is None or isinstance(end, str) for end in ends)):
            raise self.error('"inputs" is %s, not [low, high] as exact text or null'
                             % _shown(ends))
        where = '%s: "inputs"' % shown_name(self.path)
        try:
            return inputs_value([None if end is None else rational_from_text(end, where)
                                 for end in ends])
        except InputError as error:
            raise self.error(str(error)) from None

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
            raise self.error('"asked" names more classes than the shard holds')
        return [i for start, stop in parts for i in range(start, stop)]

    def ids(self, key, value, classes):
        if not isinstance(value, list) or not all(
                isinstance(i, int) and not isinstance(i, bool) and 0 <= i < classes
                for i in value) or value != sorted(set(value)):
            raise self.error('"%s" is %s, not classes in increasing order' % (key, _shown(value)))
        return value


class _Results:
    """A shard's result lines read one by one into ClassResults and Radii."""

    def __init__(self, fields, classes, dim, question, with_radii, thin):
        self.fields, self.classes, self.dim = fields, classes, dim
        self.question, self.with_radii, self.thin = question, with_radii, thin
        self.results, self.radii, self.tokens = [], [], None

    def read(self, line):
        fields = self.fields
        if not isinstance(line, dict):
            raise fields.error("a result is %s, not an object" % _shown(line))
        index = line.get("index")
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.classes:
            raise fields.error("a result's index is %s, not a class of %d"
                               % (_shown(index), self.classes))
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
            result = ClassResult(index, False, class_count=self.classes, question=self.question,
                                 masked=True)
        else:
            result = ClassResult(index, False, None, self._terms(line.get("terms"), where, index),
                                 self.classes, self.question)
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
            if (isinstance(j, bool) or not isinstance(j, int) or not 0 <= j < self.classes
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
