"""Word vectors as text: GloVe and word2vec, read as a layer with tokens.

GloVe's text has one line per class, ``token v1 ... vd``, separated by
spaces; word2vec's text (and fastText's .vec) is the same after a first
line ``C d``.  The token is whatever comes before the last d numbers, so
it may hold any character but a line break (GloVe's larger files have
tokens with spaces), except that it may not end in a field that is a
number: ``and 0.3 0.3 7`` in a file of d = 2 is a line with a number too
many, not the token ``and 0.3``.  A .txt or .vec file is read this way when its first
field is not a number and the rest of its first row are; numbers are read
exactly, as everywhere (reviews.formats.number_text).

    embedding_rows   (rows, {id: token}) of such a text, or None if it is not one
"""

import decimal

from reviews.errors import InputError
from reviews.shown import excerpt
from reviews.formats.number_text import Numbers, is_number

__all__ = ["embedding_rows"]


# A count's digits: int() of thousands of digits raises (Python >= 3.11)
# or takes long; no file holds 10**18 vectors or dimensions.
_MAX_DIGITS = 18


def _header(lines, path):
    """(C, d) of a word2vec first line "C d", or None."""
    fields = lines[0].split() if lines else []
    if len(fields) == 2 and all(field.isdigit() and field.isascii() for field in fields):
        for field in fields:
            if len(field.lstrip("0")) > _MAX_DIGITS:
                raise InputError("%s: line 1: the count %s has more than %d digits"
                                 % (path, excerpt(field), _MAX_DIGITS))
        return int(fields[0]), int(fields[1])
    return None


def embedding_rows(text, path):
    """(rows of Decimals, {id: token}) of a GloVe or word2vec text, or None
    if ``text`` is not one (its first field is a number).

    >>> rows, tokens = embedding_rows("2 1\\nthe 0.5\\n, -1\\n", "v.txt")
    >>> rows, tokens
    ([[Decimal('0.5')], [Decimal('-1')]], {0: 'the', 1: ','})
    """
    lines = [line.rstrip("\r") for line in text.split("\n")]
    while lines and not lines[-1].strip(" "):
        lines.pop()
    header = _header(lines, path)
    body = lines[1:] if header else lines
    first = body[0].split() if body else []
    if (len(first) < 2 or is_number(first[0]) or not all(map(is_number, first[1:]))
            or all(map(is_number, body[0].replace(" ", "").split(";")))):
        # Numbers first, or numbers separated by semicolons ("1; 2").
        return None
    dim = header[1] if header else len(first) - 1
    rows, tokens, read_number = [], {}, Numbers(path)
    for number, line in enumerate(body, 2 if header else 1):
        fields = line.split(" ")
        while fields and fields[-1] == "":
            fields.pop()
        token, values = " ".join(fields[:-dim]), fields[-dim:]
        if not token or len(values) != dim:
            raise InputError("%s: line %d has %d fields; a line is a token and %d numbers"
                             % (path, number, len(fields), dim))
        if len(fields) > dim + 1 and is_number(fields[-dim - 1]):
            # A token may hold spaces, but one ending in a number is a row
            # with a number too many, not the token 'and 0.3'.
            start = next((k for k in range(len(fields) - dim - 1, 0, -1)
                          if not is_number(fields[k - 1])), 0)
            after = ("after its token %s" % excerpt(" ".join(fields[:start])) if start
                     else "and no token")
            raise InputError("%s: line %d has %d numbers %s; a line is a token and %d numbers"
                             % (path, number, len(fields) - start, after, dim))
        parsed = list(map(read_number, values))
        for column, (field, value) in enumerate(zip(values, parsed), 2):
            if not isinstance(value, decimal.Decimal):
                raise InputError("%s: line %d, field %d: %s is %s"
                                 % (path, number, column, excerpt(field), value))
        tokens[len(rows)] = token
        rows.append(parsed)
    if header and header[0] != len(rows):
        raise InputError("%s: the first line says %d vectors; the file has %d"
                         % (path, header[0], len(rows)))
    return rows, tokens
