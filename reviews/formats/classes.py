"""Lists of class ids as a user writes them: ``0:1000``, ``3,17,40:50``, ``@FILE``.

A list is ids and ranges separated by commas.  A range is half-open, as a
Python slice is: ``40:50`` is 40 to 49, ``:10`` is 0 to 9 and ``700:`` is
700 to the layer's last class.  ``@FILE`` reads the ids from a file, one
a line (blank lines and spaces around an id are passed over), read as any
text a layer comes in (a regular file within the text size limit, UTF-8).
Ids are numbered from 0, as the layer's rows; repeats and overlaps count
once.  Whether an id is a class is known only with the layer: ``resolve``
says.

    ClassList       a parsed list; resolve(count): its ids, in increasing order
    parse_classes   the text of a list (or @FILE) as a ClassList, or InputError
    ranges_text     ids in increasing order as the shortest such list
"""

import array
import io
import itertools
import re

from reviews.errors import InputError
from reviews.formats.source import read_text
from reviews.shown import excerpt, shown_name

__all__ = ["ClassList", "parse_classes", "ranges_text"]

# No layer has more classes than values, at most 2**31 (source.MAX_VALUES):
# a longer id is no class of any layer, and is refused before int() reads it.
_ID_DIGITS = 12
_ITEM = re.compile(r"([0-9]*)(:?)([0-9]*)")
_SPACE = " \t"
_SHOWN = 60


class ClassList:
    """Class ids as a user wrote them: ``ranges`` [(start, stop or None)]
    and ``ids`` (an array of ints), and the ``text`` they came from."""

    def __init__(self, ranges, ids, text):
        self.ranges = ranges
        self.ids = ids
        self.text = text

    def resolve(self, count):
        """The ids for a layer of ``count`` classes, in increasing order,
        each once; InputError naming the first that is not a class.

        >>> parse_classes("3,0:2,1").resolve(5), parse_classes("3:").resolve(5)
        ([0, 1, 3], [3, 4])
        >>> parse_classes("2:9").resolve(5)
        Traceback (most recent call last):
          ...
        reviews.errors.InputError: --classes 2:9: the range 2:9 goes past the layer's 5 classes (0 to 4)
        """
        marks = bytearray(count)
        for start, stop in self.ranges:
            stop = count if stop is None else stop
            if stop > count or start >= count:
                shown = "%d:%s" % (start, "" if stop == count else stop)
                raise InputError("%s: the range %s goes past the layer's %s" % (
                    self._name(), shown, _classes(count)))
            marks[start:stop] = b"\x01" * (stop - start)
        for i in self.ids:
            if i >= count:
                raise InputError("%s: class %d is past the layer's %s"
                                 % (self._name(), i, _classes(count)))
            marks[i] = 1
        return list(itertools.compress(range(count), marks))

    def _name(self):
        return _option(self.text)


def _option(text):
    """The option as a message names it: at most about 60 characters of the list."""
    return "--classes %s" % shown_name(text if len(text) <= _SHOWN else text[:_SHOWN - 3] + "...")


def _classes(count):
    return "%d class%s (0 to %d)" % (count, "" if count == 1 else "es", count - 1)


def _number(digits, where):
    if len(digits) > _ID_DIGITS:
        raise InputError("%s: %s has more than %d digits: no layer has that many classes"
                         % (where, excerpt(digits), _ID_DIGITS))
    return int(digits)


def parse_classes(text):
    """The list ``text`` (module docstring) as a ClassList; InputError for
    an empty or malformed list, or an @FILE that cannot be read.

    >>> classes = parse_classes("3,17,40:50")
    >>> classes.ranges, list(classes.ids)
    ([(40, 50)], [3, 17])
    >>> parse_classes("5:5")
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: --classes 5:5: the range 5:5 is empty (a range is half-open, as a slice: 40:50 is 40 to 49)
    """
    if text.startswith("@"):
        return _read_file(text[1:], text)
    where = _option(text)
    if not text:
        raise InputError("--classes: expected class ids such as 0:1000 or 3,17,40:50, got"
                         " nothing")
    ranges, ids = [], array.array("q")
    for item in text.split(","):
        match = _ITEM.fullmatch(item)
        if not item or not match or match.group(2) == "" and not match.group(1):
            raise InputError("%s: %s is not a class id or a range START:STOP"
                             % (where, excerpt(item)))
        start = _number(match.group(1), where) if match.group(1) else 0
        if not match.group(2):
            ids.append(start)
            continue
        stop = _number(match.group(3), where) if match.group(3) else None
        if stop is not None and stop <= start:
            raise InputError("%s: the range %s is empty (a range is half-open, as a slice:"
                             " 40:50 is 40 to 49)" % (where, shown_name(item)))
        ranges.append((start, stop))
    return ClassList(ranges, ids, text)


def _read_file(path, text):
    if not path:
        raise InputError("--classes @: expected a file name after @")
    ids = array.array("q")
    # Line by line, not split into a list: a 64 MiB file of ids would make
    # some 30 million strings at once.
    for number, line in enumerate(io.StringIO(read_text(path), newline="\n"), 1):
        line = line.rstrip("\n")
        line = (line[:-1] if line.endswith("\r") else line).strip(_SPACE)
        if not line:
            continue
        if not line.isdigit() or not line.isascii():
            raise InputError("%s: line %d: expected a class id (digits 0-9), got %s"
                             % (shown_name(path), number, excerpt(line)))
        ids.append(_number(line, "%s: line %d" % (shown_name(path), number)))
    if not ids:
        raise InputError("%s: no class id in the file (one a line)" % shown_name(path))
    return ClassList([], ids, text)


def ranges_text(ids):
    """Ids in increasing order as the shortest list that names them.

    >>> ranges_text([0, 1, 2, 5, 7, 8]), ranges_text(range(4)), ranges_text([9])
    ('0:3,5,7:9', '0:4', '9')
    """
    parts = []
    for _, run in itertools.groupby(enumerate(ids), lambda pair: pair[1] - pair[0]):
        run = [i for _, i in run]
        parts.append(str(run[0]) if len(run) == 1 else "%d:%d" % (run[0], run[-1] + 1))
    return ",".join(parts)
