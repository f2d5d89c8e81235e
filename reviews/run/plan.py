"""How a check of a layer is run: its worker processes and whether it reports radii.

    jobs_for        the worker processes a layer gets for --jobs
    reports_radii   whether a report gives radii, by the classes decided
"""

from reviews.argmax.workers import job_count

__all__ = ["jobs_for", "reports_radii"]

# One process per CPU pays only for a layer whose check takes a good deal
# longer than starting the processes: measured, about 0.03 s under fork,
# 0.4 s under spawn (each one imports the package).  The check of a class
# costs about one pass over the layer (C * d products) plus a fixed part
# worth some 8192 of them (its exact linear programs); one process checks
# a layer below this much in all: about 0.1 s under fork, 1 s otherwise.
_CLASS_WORK = 8192
_PARALLEL_WORK = 1 << 21
_PARALLEL_WORK_IMPORTING = 1 << 24   # under spawn or forkserver


def jobs_for(jobs, class_count, dim, method="fork", decided=None):
    """The processes for ``--jobs``: N as asked, at most one per usable
    CPU; for one per CPU (None), one process for a check too small to gain
    from more (``decided`` of the layer's ``class_count``, all if None), and a
    larger one when processes start by ``method`` "spawn" or "forkserver"
    than "fork".

    >>> jobs_for(1, 4, 2), jobs_for(None, 4, 2)
    (1, 1)
    >>> jobs_for(None, 1000, 4) == jobs_for(1000, 1000, 4) == job_count(None)
    True
    >>> jobs_for(None, 1000, 4, "spawn")
    1
    """
    least = _PARALLEL_WORK if method == "fork" else _PARALLEL_WORK_IMPORTING
    decided = class_count if decided is None else decided
    if jobs is None and decided * (class_count * dim + _CLASS_WORK) < least:
        return 1
    return min(job_count(jobs), job_count(None))


# The radii cost a few packed products per argmaxable class, as its check
# does, and the rivals they list measured exactly (reviews.argmax.tolerance),
# with a second copy of the layer: past this size that is minutes more.
_RADIUS_WORK = 1 << 26


def reports_radii(decided, class_count, dim, question):
    """Whether a report of ``decided`` of a layer's ``class_count`` classes
    of dimension ``dim`` for ``question`` gives radii: only where they cost
    at most minutes more, and not on a norm's outputs (which have none).

    >>> from reviews.argmax.question import ANYWHERE
    >>> reports_radii(753, 753, 64, ANYWHERE), reports_radii(128256, 128256, 4096, ANYWHERE)
    (True, False)
    """
    return decided * class_count * dim <= _RADIUS_WORK and not question.normed
