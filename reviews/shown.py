"""Names and numbers as messages and reports show them: one printable line, short.

What every layer of the suite prints about a user's input (a file name, a
tensor's name, a number it refused, an array's shape) goes through these,
so that a name can neither split a line nor forge one, and a huge number
costs no time to show.

    shown_name      a user's name (file, folder, tensor, claim id) on one
                    printable line, for any message or report
    excerpt         repr of at most 60 characters of text, for a message
    shown_number    an int or Decimal in at most about 60 characters
    shown_shape     an array's shape in at most about 60 characters
    shown_value     any value's repr in at most 60 characters; a huge int by its size
"""

__all__ = ["shown_name", "excerpt", "shown_number", "shown_shape", "shown_value"]

_EXCERPT = 60
# 2**190 has 58 digits: an int of at most this many bits is shown whole.
_SHOWN_BITS = 190


def _escaped(char):
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:
        # A byte that was not UTF-8 in a file name (os.fsdecode's surrogate escape).
        return "\\x%02x" % (code - 0xDC00)
    return repr(char)[1:-1]


def shown_name(name):
    """A user's name (a file, folder, tensor, token or claim id) as one line
    of printable text, for a message or a report.

    Control characters (newline, tab, escape), line and paragraph
    separators, format characters (bidirectional overrides) and unpaired
    surrogates are written as Python's backslash escapes, so that a name can
    neither split a line nor forge one; a byte that was not UTF-8 in a file
    name (a surrogate escape) is written as \\xNN.  Printable characters,
    non-ASCII ones too, and backslashes are kept as they are (a name is
    shown, not encoded for reading back).  A report format adds its own
    quoting on top (a markdown code span, HTML escapes).

    >>> print(shown_name("x\\n<img>.csv"), shown_name("\\udcff.csv"), shown_name("a\\u202eb"))
    x\\n<img>.csv \\xff.csv a\\u202eb
    >>> shown_name("caf\\xe9.csv") == "caf\\xe9.csv"
    True
    """
    if name.isprintable():
        return name
    return "".join(char if char.isprintable() else _escaped(char) for char in name)


def excerpt(text):
    """repr of at most 60 characters of ``text``, for a message.

    >>> excerpt("1,2"), excerpt("9" * 100)[-6:]
    ("'1,2'", "99'...")
    """
    if len(text) <= _EXCERPT:
        return repr(text)
    return repr(text[:_EXCERPT - 3]) + "..."


def shown_number(n):
    """An int or a Decimal in at most about 60 characters, for a message.

    A huge int is described by its size: its digits would be long, and on
    Python 3.11 and later str() refuses ints of more than 4,300 digits.

    >>> shown_number(-12), shown_number(3 ** 1000)
    ('-12', 'an int of 1585 bits')
    """
    if isinstance(n, int):
        return str(n) if n.bit_length() <= _SHOWN_BITS else "an int of %d bits" % n.bit_length()
    text = str(n)
    if len(text) <= _EXCERPT:
        return text
    return "a number of %d digits, %s..." % (len(n.as_tuple().digits), text[:20])


def shown_shape(shape):
    """A tuple of ints in at most about 60 characters, for a message.

    >>> shown_shape((3,)), shown_shape((2, 10 ** 100))
    ('(3,)', '(2, an int of 333 bits)')
    >>> shown_shape((1,) * 100000)
    '(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, ... 100000 dimensions)'
    """
    parts, length = [], 0
    for n in shape:
        part = shown_number(n)
        length += len(part) + 2
        if length > _EXCERPT:
            return "(%s... %d dimensions)" % ("".join(p + ", " for p in parts), len(shape))
        parts.append(part)
    return "(%s)" % (parts[0] + "," if len(parts) == 1 else ", ".join(parts))


def shown_value(x):
    """At most 60 characters of repr(x), for a message; a huge int by its size.

    >>> shown_value(10 ** 5000), shown_value(12)
    ('an int of 16610 bits', '12')
    """
    if isinstance(x, int) and not isinstance(x, bool) and not -10 ** 12 < x < 10 ** 12:
        return "an int of %d bits" % x.bit_length()
    try:
        text = repr(x)
    except Exception:
        text = "<%s>" % type(x).__name__
    return text if len(text) <= 60 else text[:57] + "..."
