"""Number text: CSV, whitespace-, tab- or semicolon-separated (JSON: json_text).

Number text is read as the Decimal it spells, so 0.9 is 9/10.  Only plain
ASCII numbers are numbers: an optional sign, digits with an optional
fraction, an optional exponent (``-1.5e-3``, ``.5``, ``2.``).  ``1_000``,
fullwidth or other non-ASCII digits, ``inf`` and ``nan`` are errors, and so
is a field in quotes: a numeric layer file has none, except that a bias
may be ``-inf`` or ``-Infinity`` (JSON's ``-Infinity``): read as MASKED,
the float -inf, it masks its class.  A row ends only at
``\\n``, ``\\r\\n`` or ``\\r``.  A number past reviews.exact's size limit is
refused as it is read.

    decimal_from_text   the Decimal a text spells (ValueError: why it is not one)
    decimal_or_reason   the Decimal a text spells, or why not (for a reader that names the place)
    is_number           whether a text spells a number
    delimited_rows      the rows of numbers of a CSV or other separated file
    Numbers             a layer file's number fields read, within MAX_TEXT_VALUES
    MASKED              float -inf, a bias that masks its class
    MAX_TEXT_VALUES     2**22: the most numbers a text layer may have
"""

import decimal
import re

from reviews.errors import InputError
from reviews.exact import decimal_size_error
from reviews.shown import excerpt

__all__ = ["MASKED", "MAX_TEXT_VALUES", "Numbers", "decimal_from_text", "decimal_or_reason",
           "is_number", "delimited_rows"]

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


def decimal_from_text(text):
    """The Decimal that ``text`` spells; ValueError saying why it is not accepted.

    >>> decimal_from_text("-1.5e-3")
    Decimal('-0.0015')
    >>> decimal_from_text("-inf")
    Traceback (most recent call last):
      ...
    ValueError: not a finite number
    """
    value = decimal_or_reason(text)
    if isinstance(value, str):
        raise ValueError(value)
    return value


def is_number(text):
    """Whether ``text`` spells a number decimal_from_text accepts.

    >>> is_number("2.5e3"), is_number("1_000"), is_number("\\uff11")
    (True, False, False)
    """
    return not isinstance(decimal_or_reason(text), str)


def decimal_or_reason(text):
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
            value = decimal_or_reason(field)
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
