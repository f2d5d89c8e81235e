"""JSON text read safely: a document's numbers as Decimals, nesting and
repeated keys checked before anything is built, and JSON layer files.

``parse_json`` reads a JSON document with every number the Decimal it
spells (0.9 is 9/10), refusing nesting past 32 levels before json
recurses into it, and letting a refused number, a NaN or an object with a
key twice stand in the document as a value that ``describe_json``
explains, so that a message can name its place (a JSON path).  Every
reader of JSON in reviews.formats (config.json, tokenizer files, a
safetensors header, spaCy's cfg, Keras's model config, layer files) reads
it so.

    parse_json      a JSON document with Decimal numbers, checked
    describe_json   a JSON value in a few words, for a message
    json_layer      (weights, bias or None) from a JSON layer file
    json_bias       the list of numbers of a JSON bias file
    json_numbers    a JSON list of numbers, or InputError naming the place
"""

import decimal
import json
import os
import re

from reviews.errors import InputError
from reviews.formats.number_text import MASKED, Numbers, decimal_or_reason
from reviews.shown import excerpt, shown_number

__all__ = ["parse_json", "describe_json", "json_layer", "json_bias", "json_numbers"]

_MAX_JSON_DEPTH = 32
# A string runs to its closing quote or, unterminated, to the end: each
# unmatched quote must not cost a scan of the rest of the text.
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.?[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


class _Refused:
    """Stands in the parsed document for a value refused while parsing,
    so that the message can name its place (a JSON path) afterwards."""

    def __init__(self, shown, problem):
        self.shown, self.problem = shown, problem


def _json_number(text, read=decimal_or_reason):
    value = read(text)
    return value if isinstance(value, decimal.Decimal) else _Refused(excerpt(text), value)


def _json_integer(text):
    """An integer of at most 18 digits as an int (cheaper than a Decimal,
    and small ones are shared); else as _json_number reads it."""
    if len(text) <= 18 + (text[:1] == "-"):
        return int(text)
    return _json_number(text)


_JSON_MASK = excerpt("-Infinity")


def _json_constant(name):
    return _Refused(excerpt(name), "not a finite number")


def _json_object(pairs):
    keys = set()
    for key, _ in pairs:
        if key in keys:
            return _Refused("an object", "with the key %s twice" % excerpt(key))
        keys.add(key)
    return dict(pairs)


def _check_nesting(text, path, objects):
    """Refuse nesting past _MAX_JSON_DEPTH before json recurses into it,
    and, if ``objects`` is (limit, problem), more than ``limit`` objects in
    the top-level object or list before json builds them (InputError:
    path: problem)."""
    depth = made = 0
    for match in _JSON_NESTING.finditer(text):
        bracket = match.group()
        if bracket in "[{":
            depth += 1
            if depth > _MAX_JSON_DEPTH:
                line = text.count("\n", 0, match.start()) + 1
                raise InputError("%s: line %d: nested more than %d deep (a layer needs 3)"
                                 % (path, line, _MAX_JSON_DEPTH))
            if bracket == "{" and depth == 2 and objects is not None:
                made += 1
                if made > objects[0]:
                    raise InputError("%s: %s" % (path, objects[1]))
        elif bracket in "]}":
            depth -= 1


def parse_json(text, path, numbers=None, integers=False, objects=None):
    """The JSON document ``text``: numbers as Decimals; a refused number, a
    NaN or an object with a duplicate key stand in it as values that
    describe_json explains.  ``numbers`` (a Numbers) reads the numbers of
    a layer, within its limit; with ``integers``, integers of at most 18
    digits are ints; ``objects``, (limit, problem), bounds the number of
    objects in the top-level one, counted before any is built."""
    _check_nesting(text, path, objects)
    number = _json_number if numbers is None else (lambda text: _json_number(text, numbers))
    try:
        return json.loads(text, parse_float=number,
                          parse_int=_json_integer if integers else number,
                          parse_constant=_json_constant, object_pairs_hook=_json_object)
    except InputError:   # past a limit of ``numbers``
        raise
    except ValueError as error:
        raise InputError("%s is not valid JSON: %s" % (path, error)) from None


def describe_json(value):
    """A parsed JSON value in a few words, for a message.

    >>> describe_json({}), describe_json([1]), describe_json("abc"), describe_json(True)
    ('an object', 'a list', "'abc'", 'true')
    >>> describe_json(None)
    'null'
    """
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, _Refused):
        return "%s, %s" % (value.shown, value.problem)
    if isinstance(value, decimal.Decimal):
        return shown_number(value)
    return excerpt(value) if isinstance(value, str) else repr(value)


def json_numbers(values, path, where, expected, masked=False):
    """``values`` if it is a list of numbers, else InputError; with
    ``masked``, -Infinity is read as MASKED."""
    if not isinstance(values, list):
        raise InputError("%s: %s is %s; expected %s"
                         % (path, where, describe_json(values), expected))
    for k, value in enumerate(values):
        if masked and isinstance(value, _Refused) and value.shown == _JSON_MASK:
            values[k] = MASKED
        elif not isinstance(value, decimal.Decimal):
            if isinstance(value, _Refused):
                problem = describe_json(value)
            elif isinstance(value, list):
                problem = "a list, not a number; expected %s" % expected
            else:
                problem = "%s, not a real number" % describe_json(value)
            raise InputError("%s: %s[%d] is %s" % (path, where, k, problem))
    return values


_ROWS = "a list of rows of numbers, like [[1, 2], [3, 4]]"
_NUMBERS = "a list of numbers, one per class"


def _json_weights(rows, path):
    if not isinstance(rows, list) or not rows:
        shown = "an empty list" if rows == [] else describe_json(rows)
        raise InputError("%s: weights is %s; expected %s" % (path, shown, _ROWS))
    for j, row in enumerate(rows):
        if not isinstance(row, list):
            hint = ""
            if isinstance(row, decimal.Decimal):
                hint = " (a list of numbers looks like a bias)"
            raise InputError("%s: weights[%d] is %s, not a row; expected %s%s"
                             % (path, j, describe_json(row), _ROWS, hint))
        json_numbers(row, path, "weights[%d]" % j, "a row of numbers")
    return rows


def json_layer(text, path):
    """(weights, bias or None) of the ``text`` of JSON layer file ``path``:
    an object with "weights" and an optional "bias", or just the list of
    rows."""
    document = parse_json(text, path, Numbers(path))
    if isinstance(document, list):
        return _json_weights(document, path), None
    if isinstance(document, _Refused):
        raise InputError("%s: the document is %s" % (path, describe_json(document)))
    if not isinstance(document, dict) or "weights" not in document:
        hint = ("; a model's config.json describes it: pass the model's folder"
                if os.path.basename(path) == "config.json" else "")
        raise InputError('%s: expected an object {"weights": [[...], ...], "bias": [...]}%s'
                         % (path, hint))
    unknown = sorted(set(document) - {"weights", "bias"})
    if unknown:
        raise InputError("%s: unknown key %s (expected weights, bias)"
                         % (path, excerpt(unknown[0])))
    weights = _json_weights(document["weights"], path)
    if "bias" not in document:
        return weights, None
    return weights, json_numbers(document["bias"], path, "bias", _NUMBERS, masked=True)


def json_bias(text, path):
    """The bias in the ``text`` of JSON bias file ``path``: a list of numbers."""
    return json_numbers(parse_json(text, path, Numbers(path)), path, "bias", _NUMBERS,
                        masked=True)
