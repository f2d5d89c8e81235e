"""A checkpoint file: the classes of a long check decided so far, kept on disk.

``check-layer --checkpoint FILE`` appends each class's result to FILE as
the class is decided, one line each, flushed at once, so that a run that
is killed loses only the classes in flight; a rerun with the same FILE
reads what is there and decides the rest.  The first line says which
layer and which question the file is about (each file's size and SHA-256,
the tensors, the question's keys as a report gives them: the box, the
inputs where asked, the tolerance; the classes asked, the version); a
file that says another is refused.  The certificates read back are the
caller's to check exactly (reviews.argmax.certified.verify_all) before
they are reported: a checkpoint is a file like any other.

    ResumeFile   a checkpoint file (--checkpoint) opened for reading what it keeps and adding to it

Each result line is a JSON list: ``[i, "w", q, [p_1, ..., p_d]]`` for an
argmaxable class with witness (p_1/q, ..., p_d/q), ``[i, "t", [[j, p, q],
...]]`` for a combination, ``[i, "m"]`` for a masked class; every integer
is hexadecimal text, which any interpreter reads and writes at any length
in linear time.  A last line cut short (the kill came while it was
written) is dropped.
"""

import json
import os
import re
import stat
from fractions import Fraction

from reviews.errors import InputError
from reviews.exact import MAX_BITS, common_denominator
from reviews.argmax.question import ANYWHERE
from reviews.argmax.result import ClassResult
from reviews.argmax.kernels.witness import Witness
from reviews.shown import shown_name

__all__ = ["ResumeFile"]

_FORMAT = "review-counterexamples checkpoint 1"
_HEX = re.compile(r"-?[0-9a-f]{1,%d}" % (MAX_BITS // 4 + 1), re.ASCII)


class ResumeFile:
    """The checkpoint file ``path`` of the check that ``header`` (a dict
    of JSON values) describes: made if absent, else read and checked.

    ``kept`` lists the ClassResults the file holds, in the order decided
    (each with ``question``, the Question the header's "box", "tolerance"
    and "inputs" say); ``append(result)`` adds one and
    flushes it.  Use it as a context manager, or call ``close``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "run.checkpoint")
    >>> with ResumeFile(path, {"layer": "w.csv"}) as checkpoint:
    ...     checkpoint.append(ClassResult(0, True, (Fraction(1, 2), Fraction(-3))))
    >>> with ResumeFile(path, {"layer": "w.csv"}) as checkpoint:
    ...     [(r.index, tuple(r.witness)) for r in checkpoint.kept]
    [(0, (Fraction(1, 2), Fraction(-3, 1)))]
    >>> ResumeFile(path, {"layer": "v.csv"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: ... is a checkpoint of another layer or options (its "layer" differs): remove it to start again, or name another file
    >>> import shutil; shutil.rmtree(os.path.dirname(path))
    """

    def __init__(self, path, header, question=ANYWHERE):
        self.path, self.kept = path, []
        self._question = question
        first = json.dumps({"checkpoint": _FORMAT, **header}, sort_keys=True)
        self._handle = _open(path)
        try:
            # Line by line: a checkpoint of a large head has gigabytes of them.
            line = self._handle.readline()
            if not line.endswith(b"\n") and first.encode().startswith(line):
                # Empty, or this run's header cut short by a kill: start afresh.
                self._handle.seek(0)
                self._handle.truncate()
                self._handle.write(first.encode() + b"\n")
                self._handle.flush()
                return
            if not line.endswith(b"\n"):
                raise self._error("not a checkpoint of check-layer (its first line says none)")
            self._check_header(line, header)
            seen = set()
            complete = self._handle.tell()
            for number, line in enumerate(self._handle, 2):
                if not line.endswith(b"\n"):
                    break   # cut short by a kill: dropped below
                result = self._result(line, number)
                if result.index in seen:
                    raise self._error("line %d: class %d is there twice" % (number,
                                                                           result.index))
                seen.add(result.index)
                self.kept.append(result)
                complete += len(line)
            self._handle.seek(complete)
            self._handle.truncate()
        except BaseException:
            self._handle.close()
            raise

    def _error(self, message):
        return InputError("%s: %s" % (shown_name(self.path), message))

    def _check_header(self, line, header):
        try:
            found = json.loads(line)
        except (ValueError, RecursionError):
            found = None
        if not isinstance(found, dict) or found.get("checkpoint") != _FORMAT:
            raise self._error("not a checkpoint of check-layer (its first line says none)")
        for key in sorted(set(header) | set(found) - {"checkpoint"}):
            if found.get(key) != header.get(key):
                raise self._error('is a checkpoint of another layer or options (its "%s"'
                                  ' differs): remove it to start again, or name another file'
                                  % key)

    def _result(self, line, number):
        try:
            entry = json.loads(line)
            return self._decoded(entry)
        except (ValueError, TypeError, KeyError, IndexError, ZeroDivisionError,
                RecursionError, InputError):
            raise self._error("line %d is not a class's result" % number) from None

    def _decoded(self, entry):
        index, kind = entry[0], entry[1]
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise ValueError(index)
        if kind == "w" and len(entry) == 4:
            denominator = _integer(entry[2])
            if denominator <= 0:
                raise ValueError(denominator)
            witness = Witness([_integer(p) for p in entry[3]], denominator)
            return ClassResult(index, True, witness, question=self._question)
        if kind == "t" and len(entry) == 3 and entry[2]:
            terms = tuple((_class(j), Fraction(_integer(p), _integer(q)))
                          for j, p, q in entry[2])
            # A checker's terms share a denominator or nearly: one past the
            # size limit is no certificate, and summing it would take minutes.
            common_denominator((v for _, v in terms), MAX_BITS)
            return ClassResult(index, False, None, terms, question=self._question)
        if kind == "m" and len(entry) == 2:
            return ClassResult(index, False, question=self._question, masked=True)
        raise ValueError(kind)

    def append(self, result):
        """Write ``result`` (a ClassResult) as the next line, flushed to the file."""
        if result.argmaxable:
            witness = Witness.of(result.witness)
            entry = [result.index, "w", _hex(witness.denominator),
                     [_hex(p) for p in witness.numerators]]
        elif result.masked:
            entry = [result.index, "m"]
        else:
            entry = [result.index, "t", [[j, _hex(v.numerator), _hex(v.denominator)]
                                         for j, v in result.terms]]
        self._handle.write(json.dumps(entry, separators=(",", ":")).encode() + b"\n")
        self._handle.flush()

    def close(self):
        self._handle.close()

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


def _open(path):
    """The file ``path`` for reading and appending: a regular file, made if absent."""
    try:
        descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
                             | getattr(os, "O_BINARY", 0), 0o644)
    except OSError as error:
        raise InputError("cannot open the checkpoint %s: %s"
                         % (shown_name(path), error.strerror or error)) from None
    if not stat.S_ISREG(os.fstat(descriptor).st_mode):
        os.close(descriptor)
        raise InputError("the checkpoint %s is not a regular file" % shown_name(path))
    return open(descriptor, "r+b")


def _hex(n):
    return format(n, "x")


def _integer(text):
    if not isinstance(text, str) or not _HEX.fullmatch(text):
        raise ValueError(text)
    return int(text, 16)


def _class(j):
    if isinstance(j, bool) or not isinstance(j, int) or j < 0:
        raise ValueError(j)
    return j
