"""``check-layer --shard``: the part of a layer's classes one run decides,
as the user numbers it or as a scheduler gives it.

Part I of N of a layer of C classes is the range ``C*I//N : C*(I+1)//N``,
as docs/sharding.md cuts it: the N parts hold every class once, in order,
and each is what ``--classes`` of that range decides, so that ``merge``
joins them into the report of one run.  A layer of fewer classes than
parts is refused: some part would hold no class, and a report of none
says nothing a merge can check.

``auto`` reads the part from a Slurm job array: the task's position in
the array (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN, over
SLURM_ARRAY_TASK_STEP where there is one) of SLURM_ARRAY_TASK_COUNT.
``auto/N`` takes the index as the scheduler gives it, of N parts: a
Kubernetes Indexed Job's JOB_COMPLETION_INDEX, or Slurm's
SLURM_ARRAY_TASK_ID itself, so that a rerun of some tasks
(``sbatch --array=3,7``) decides those parts again.

    parse_shard     the text of --shard as a ClassPart, or InputError
    ClassPart       part ``index`` of ``parts``; resolve(count): its ids
"""

import re
from collections import namedtuple

from reviews.errors import InputError
from reviews.shown import excerpt

__all__ = ["parse_shard", "ClassPart"]

_SLURM_INDEX = "SLURM_ARRAY_TASK_ID"
_SLURM_FIRST = "SLURM_ARRAY_TASK_MIN"
_SLURM_LAST = "SLURM_ARRAY_TASK_MAX"
_SLURM_STEP = "SLURM_ARRAY_TASK_STEP"
_SLURM_COUNT = "SLURM_ARRAY_TASK_COUNT"
_SLURM_ARRAY = (_SLURM_INDEX, _SLURM_FIRST, _SLURM_LAST, _SLURM_STEP, _SLURM_COUNT)
_KUBERNETES_INDEX = "JOB_COMPLETION_INDEX"

# As a class id (reviews.formats.classes): a number of parts is at most the
# layer's classes, and no layer has more than 2**31; a longer number is
# refused before int() reads it.
_DIGITS = 12
_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
_SYNTAX = ("expected I/N (part I of N, numbered from 0), auto (a Slurm job array) or auto/N"
           " (an index from a Kubernetes Indexed Job or a Slurm job array)")


class ClassPart(namedtuple("ClassPart", "index parts origin")):
    """Part ``index`` of ``parts`` of a layer's classes; ``origin`` is how
    it was given: the option's text, with the variables read for ``auto``.

    >>> part = parse_shard("1/3", {})
    >>> part.bounds(7), part.resolve(7)
    ((2, 4), [2, 3])
    >>> [parse_shard("%d/4" % i, {}).bounds(10) for i in range(4)]
    [(0, 2), (2, 5), (5, 7), (7, 10)]
    """

    __slots__ = ()

    def bounds(self, count):
        """(start, stop) of the part's classes in a layer of ``count``."""
        return count * self.index // self.parts, count * (self.index + 1) // self.parts

    def resolve(self, count):
        """The part's ids in a layer of ``count`` classes, in increasing
        order (as reviews.formats.classes.ClassList.resolve gives a list's);
        InputError where the layer has fewer classes than parts.

        >>> parse_shard("0/5", {}).resolve(4)
        Traceback (most recent call last):
          ...
        reviews.errors.InputError: --shard 0/5: 5 parts of 4 classes leave a part empty: give at most 4 parts
        """
        if self.parts > count:
            raise InputError("%s: %d parts of %d class%s leave a part empty: give at most %d"
                             " part%s" % (self.origin, self.parts, count,
                                          "" if count == 1 else "es", count,
                                          "" if count == 1 else "s"))
        return list(range(*self.bounds(count)))


def parse_shard(text, environ):
    """The part ``text`` names (I/N, auto or auto/N: module docstring),
    ``environ`` holding the scheduler's variables for auto (os.environ);
    InputError, in one line, for anything else.

    >>> parse_shard("3/16", {})
    ClassPart(index=3, parts=16, origin='--shard 3/16')
    >>> parse_shard("auto", {"SLURM_ARRAY_TASK_ID": "7", "SLURM_ARRAY_TASK_MIN": "1",
    ...                      "SLURM_ARRAY_TASK_COUNT": "16"})[:2]
    (6, 16)
    >>> parse_shard("auto/8", {"JOB_COMPLETION_INDEX": "5"})[:2]
    (5, 8)
    >>> parse_shard("4/4", {})
    Traceback (most recent call last):
      ...
    reviews.errors.InputError: --shard 4/4: part 4 of 4 is no part: they are numbered 0 to 3
    """
    where = ("--shard %s" % (text if len(text) <= 60 else text[:57] + "...")).rstrip()
    first, slash, last = text.partition("/")
    if "/" in last or not slash and first != "auto":
        raise InputError("%s: %s" % (where, _SYNTAX))
    index = None if first == "auto" else _whole(first, where, "the part", _SYNTAX)
    parts = _whole(last, where, "the number of parts", _SYNTAX) if slash else None
    if parts == 0:
        raise InputError("%s: 0 parts: a layer is cut into at least 1" % where)
    if index is None:
        return _slurm_array(environ, where) if parts is None else _given_index(environ, where,
                                                                                parts)
    if index >= parts:
        raise InputError("%s: part %d of %d is no part: they are numbered 0 to %d"
                         % (where, index, parts, parts - 1))
    return ClassPart(index, parts, where)


def _whole(value, where, what, expected=""):
    """``value`` as a whole number (ASCII digits), or InputError saying what
    it is, then ``expected``."""
    if not _INTEGER.fullmatch(value):
        raise InputError("%s: %s is %s, not a whole number%s"
                         % (where, what, excerpt(value), expected and ": " + expected))
    if value.startswith("-"):
        raise InputError("%s: %s is %s, below 0" % (where, what, excerpt(value)))
    if len(value) > _DIGITS:
        raise InputError("%s: %s has %d digits, more than %d: no layer has that many classes"
                         % (where, what, len(value), _DIGITS))
    return int(value)


def _variable(environ, name, where):
    """The scheduler's variable ``name`` as a whole number."""
    return _whole(environ[name], where, name)


def _slurm_array(environ, where):
    """--shard auto: the task's position in its Slurm job array, of the array's tasks."""
    if _SLURM_INDEX not in environ:
        if _KUBERNETES_INDEX in environ:
            raise InputError("%s: %s (a Kubernetes Indexed Job) gives an index but not the"
                             " number of parts: give --shard auto/N, N the Job's completions"
                             % (where, _KUBERNETES_INDEX))
        raise InputError("%s: %s is not set: run it as a task of a Slurm job array (sbatch"
                         " --array), or give --shard auto/N for a Kubernetes Indexed Job"
                         " (%s), or --shard I/N" % (where, _SLURM_INDEX, _KUBERNETES_INDEX))
    missing = [name for name in (_SLURM_FIRST, _SLURM_COUNT) if name not in environ]
    if missing:
        raise InputError("%s: %s is set but not %s: give --shard auto/N or --shard I/N"
                         % (where, _SLURM_INDEX, missing[0]))
    task, first = _variable(environ, _SLURM_INDEX, where), _variable(environ, _SLURM_FIRST, where)
    count = _variable(environ, _SLURM_COUNT, where)
    step = _variable(environ, _SLURM_STEP, where) if _SLURM_STEP in environ else 1
    last = _variable(environ, _SLURM_LAST, where) if _SLURM_LAST in environ else None
    said = ", ".join("%s=%s" % (name, environ[name]) for name in _SLURM_ARRAY
                     if name in environ)
    if count == 0 or step == 0 or task < first or (task - first) % step or last is not None \
            and (task > last or (last - first) % step or (last - first) // step + 1 != count):
        # A list such as --array=1,3,8 is no range MIN-MAX:STEP: its tasks'
        # positions cannot be told from these variables.
        raise InputError("%s: the job array is not MIN-MAX:STEP, %s tasks with this one"
                         " among them (%s): give --shard auto/N to take %s as the part of N"
                         % (where, _SLURM_COUNT, said, _SLURM_INDEX))
    index = (task - first) // step
    if index >= count:
        raise InputError("%s: task %d is position %d of an array of %d tasks (%s)"
                         % (where, task, index, count, said))
    return ClassPart(index, count, "%s (%s)" % (where, said))


def _given_index(environ, where, parts):
    """--shard auto/N: the index a Kubernetes Indexed Job or a Slurm job array gives."""
    given = [name for name in (_KUBERNETES_INDEX, _SLURM_INDEX) if name in environ]
    if not given:
        raise InputError("%s: neither %s (a Kubernetes Indexed Job) nor %s (a Slurm job array)"
                         " is set: give --shard I/N" % (where, _KUBERNETES_INDEX, _SLURM_INDEX))
    if len(given) > 1:
        raise InputError("%s: both %s and %s are set, which may be different parts: give"
                         " --shard I/N" % (where, _KUBERNETES_INDEX, _SLURM_INDEX))
    index = _variable(environ, given[0], where)
    if index >= parts:
        raise InputError("%s: %s is %d: the parts of %d are numbered 0 to %d"
                         % (where, given[0], index, parts, parts - 1))
    return ClassPart(index, parts, "%s (%s=%d)" % (where, given[0], index))
