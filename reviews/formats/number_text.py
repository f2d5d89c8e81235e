"""Number text: CSV, whitespace-, tab- or semicolon-separated, and JSON.

Number text is read as the Decimal it spells, so 0.9 is 9/10.  Only plain
ASCII numbers are numbers: an optional sign, digits with an optional
fraction, an optional exponent (``-1.5e-3``, ``.5``, ``2.``).  ``1_000``,
fullwidth or other non-ASCII digits, ``inf`` and ``nan`` are errors, and so
is a field in quotes: a numeric layer file has none, except that a bias
may be ``-inf`` or ``-Infinity`` (JSON's ``-Infinity``): read as MASKED,
the float -inf, it masks its class.  A row ends only at
``\\n``, ``\\r\\n`` or ``\\r``.  A number past reviews.exact's size limit is
refused as it is read, JSON nesting past 32 levels before it is parsed.

    decimal_from_text   the Decimal a text spells (ValueError: why it is not one)
    is_number           whether a text spells a number
    delimited_rows      the rows of numbers of a CSV or other separated file
    parse_json          a JSON document with Decimal numbers, checked
    describe_json       a JSON value in a few words, for a message
    json_layer          (weights, bias or None) from a JSON layer file
    json_bias           the list of numbers of a JSON bias file
    json_numbers        a JSON list of numbers, or InputError naming the place
    Numbers             a layer file's number fields read, within MAX_TEXT_VALUES
    MASKED              float -inf, a bias that masks its class
    MAX_TEXT_VALUES     2**22: the most numbers a text layer may have
"""

import decimal
import json
import os
import re

from reviews.errors import InputError
from reviews.exact import decimal_size_error
from reviews.shown import excerpt, shown_number

__all__ = ["MASKED", "MAX_TEXT_VALUES", "Numbers", "decimal_from_text", "is_number",
           "delimited_rows", "parse_json", "describe_json", "json_layer", "json_bias",
           "json_numbers"]

_MAX_JSON_DEPTH = 32
# Each digit belongs to one place of the pattern, so that a failed match
# backtracks in linear time, not quadratic ("1" * 10**5 + "x").
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?([0-9]+))?")
# At most 1,000 digits and an exponent of at most 4: within 10**+-11000, far
# below the size limit, so that the common number needs no further test.
_PLAIN_NUMBER = re.compile(r"[+-]?(?:[0-9]{1,500}(?:\.[0-9]{0,500})?|\.[0-9]{1,500})"
                           r"(?:[eE][+-]?[0-9]{1,4})?")
_NOT_FINITE = re.compile(r"[+-]?(?:inf|infinity|s?nan[0-9]*)", re.IGNORECASE)
_MINUS_INFINITY = re.compile(r"-(?:inf|infinity)", re.IGNORECASE)
# A bias of -inf masks its class (reviews.argmax.reductions.masked).
MASKED = float("-inf")
# A text layer's numbers (JSON, CSV, word vectors): each is a Decimal of
# about 100 bytes, checked and made an integer once it is read, some 2 us
# and 150 bytes in all; 2**22 of them take some 10 s and 600 MB.  An 8 MiB
# CSV of distinct numbers has about 10**6, of zeros 4 * 10**6 (their
# fields of at most _SHARED_CHARACTERS are one Decimal each, read once).
MAX_TEXT_VALUES = 2 ** 22
_SHARED_CHARACTERS = 4
# The size limit's wording, from its one home in reviews.exact.
_PAST_LIMIT = decimal_size_error(decimal.Decimal("1e99999"))
_LINE_END = re.compile(r"\r\n|\r|\n")
_BLANKS = re.compile(r"[ \t]+")
# A field holding another file type's separator: the file was likely saved
# with that one (np.savetxt's spaces in a .csv, say).
_SEPARATOR_NAMES = {",": "commas", "\t": "tabs", ";": "semicolons", " ": "spaces"}
_OTHER_SEPARATORS = re.compile(r"[,;\t ]+")
# A string runs to its closing quote or, unterminated, to the end: each
# unmatched quote must not cost a scan of the rest of the text.
_JSON_NESTING = re.compile(r'"[^"\\]*(?:\\.?[^"\\]*)*"?|[\[\]{}]', re.DOTALL)


def decimal_from_text(text):
    """The Decimal that ``text`` spells; ValueError saying why it is not accepted.

    >>> decimal_from_text("-1.5e-3")
    Decimal('-0.0015')
    >>> decimal_from_text("-inf")
    Traceback (most recent call last):
      ...
    ValueError: not a finite number
    """
    value = _decimal_or_reason(text)
    if isinstance(value, str):
        raise ValueError(value)
    return value


def is_number(text):
    """Whether ``text`` spells a number decimal_from_text accepts.

    >>> is_number("2.5e3"), is_number("1_000"), is_number("\\uff11")
    (True, False, False)
    """
    return not isinstance(_decimal_or_reason(text), str)


def _decimal_or_reason(text):
    """The Decimal that ``text`` spells, or why not (a str): a file's
    reader keeps the reason until it can say where the field is."""
    if _PLAIN_NUMBER.fullmatch(text):
        return decimal.Decimal(text)
    match = _NUMBER.fullmatch(text)
    if match is None:
        return "not a finite number" if _NOT_FINITE.fullmatch(text) else "not a number"
    if len((match.group(1) or "").lstrip("0")) > 8:
        # Past Decimal's exponent range on some builds.  A file of at most
        # 64 MiB spells fewer than 10**8 digits, so with |exponent| >= 10**8
        # only zero is within the size limit.
        if text[:match.start(1)].strip("+-.0eE"):
            return _PAST_LIMIT
        return decimal.Decimal(0)
    value = decimal.Decimal(text)
    return decimal_size_error(value) or value


class Numbers:
    """The number fields of one layer file, each read as it comes (a
    Decimal, or a str saying why the field is not one): at most
    MAX_TEXT_VALUES of them (InputError past that, naming ``path``), and a
    field of at most a few characters read once, its Decimal shared by
    every field that spells it (a file of 0s is one Decimal, not
    millions)."""

    def __init__(self, path):
        self.path, self.count, self._known = path, 0, {}

    def __call__(self, field):
        self.count += 1
        if self.count > MAX_TEXT_VALUES:
            raise InputError("%s: more than %s numbers, past the limit of a text layer (save a"
                             " larger one as .npy or .safetensors)"
                             % (self.path, format(MAX_TEXT_VALUES, ",")))
        value = self._known.get(field)
        if value is None:
            value = _decimal_or_reason(field)
            if len(field) <= _SHARED_CHARACTERS:
                self._known[field] = value
        return value


def _fields(line, separator):
    if separator is None:
        return _BLANKS.split(line.strip(" \t"))
    return [field.strip(" \t") for field in line.split(separator)]


def delimited_rows(text, path, separator, note=None, masked=False):
    """The rows of Decimals of the ``text`` of file ``path``, fields split
    at ``separator`` (None: at runs of spaces and tabs, or at ';' in a text
    that has one).

    Blank lines are skipped.  A first row in which no field is a number is
    a header (unless its fields are numbers joined by another separator):
    it is skipped, and ``note`` (if given) is called with a line saying
    so.  Anything else that is not a number is an error naming its line and
    column (the field's number), and the separator the file was read with
    if the field holds another.

    >>> delimited_rows("x,y\\n1,2.5\\n", "l.csv", ",", print)
    l.csv: line 1 is taken as a header: 'x,y'
    [[Decimal('1'), Decimal('2.5')]]
    """
    if separator is None and ";" in text:
        separator = ";"
    number = Numbers(path)
    rows = []
    first = True
    for line_number, line in enumerate(_LINE_END.split(text), 1):
        if not line.strip(" \t"):
            continue
        fields = _fields(line, separator)
        values = [MASKED if masked and _MINUS_INFINITY.fullmatch(field) else
                  number(field) for field in fields]
        if first and all(value == "not a number" for value in values) and not any(
                _numbers_otherwise_separated(field) for field in fields):
            if note is not None:
                note("%s: line %d is taken as a header: %s" % (path, line_number, excerpt(line)))
        else:
            for column, (field, value) in enumerate(zip(fields, values), 1):
                if not isinstance(value, decimal.Decimal) and value is not MASKED:
                    if '"' in field:
                        value = "quoted: a numeric layer file has no quotes"
                    elif not field:
                        value = "an empty field"
                    else:
                        value += _separator_hint(field, separator)
                    raise InputError("%s: line %d, column %d: %s is %s"
                                     % (path, line_number, column, excerpt(field), value))
            rows.append(values)
        first = False
    if not rows:
        raise InputError("%s has no rows of numbers" % path)
    return rows


def _numbers_otherwise_separated(field):
    """Whether ``field`` is numbers joined by another separator: a row, not a header."""
    parts = _OTHER_SEPARATORS.split(field.strip(" \t"))
    return len(parts) > 1 and all(map(is_number, parts))


def _separator_hint(field, separator):
    """', in a file whose fields are separated by ...' if ``field`` holds another separator."""
    others = [name for mark, name in _SEPARATOR_NAMES.items()
              if mark in field and mark != separator and not (separator is None and mark in " \t")]
    if not others:
        return ""
    expected = _SEPARATOR_NAMES.get(separator, "spaces and tabs")   # None: the .txt default
    return (" (it holds %s; this file's fields are separated by %s: a .csv file's by commas,"
            " a .tsv's by tabs, a .txt's by spaces and tabs, or by semicolons if it has one)"
            % (others[0], expected))


class _Refused:
    """Stands in the parsed document for a value refused while parsing,
    so that the message can name its place (a JSON path) afterwards."""

    def __init__(self, shown, problem):
        self.shown, self.problem = shown, problem


def _json_number(text, read=_decimal_or_reason):
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
