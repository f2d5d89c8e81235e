"""A check of a layer as one run: the layer read, its classes decided by
worker processes, kept in a checkpoint file and resumed from it, with
their radii where they are worth it.  The command line (reviews.cli.layer)
parses, calls run_layer, renders and exits.

    read_run_layer  a layer read for a run, the classes asked, its files' digests
    run_layer       the results and radii of a layer read by read_run_layer
    RunOptions      what a run is asked: the question, jobs, checkpoint, names
    example_path    the path of a layer shipped with the suite (--example NAME)
    EXAMPLES        those layers' names and files
"""

import functools
import os
from collections import namedtuple

from reviews import SUITE_NAME, __version__
from reviews.argmax.check import iter_checked
from reviews.argmax.question import ANYWHERE
from reviews.argmax.result import Checked
from reviews.argmax.tolerance import radii
from reviews.argmax.verify import Verifier
from reviews.argmax.workers import start_method
from reviews.errors import InputError
from reviews.formats.classes import ranges_text
from reviews.formats.layers import read_model
from reviews.formats.source import file_digest
from reviews.record import question_json
from reviews.run.plan import jobs_for, reports_radii
from reviews.run.resume import ResumeFile
from reviews.shown import shown_name

__all__ = ["read_run_layer", "run_layer", "RunOptions", "example_path", "EXAMPLES"]

EXAMPLES = {"figure1": "figure1.json"}   # --example NAME: files in reviews/data

# What a run is asked: the question (reviews.argmax.question), jobs (None:
# one process per CPU, as worth it), checkpoint (a path or None),
# transpose; shown and bias_shown, the names its messages give the layer's
# file and the bias file (None: no bias file).
RunOptions = namedtuple("RunOptions", "shown question jobs checkpoint transpose bias_shown",
                        defaults=(ANYWHERE, None, None, False, None))


def example_path(name):
    """The path of the shipped layer ``name``; KeyError for another name.

    >>> os.path.basename(example_path("figure1"))
    'figure1.json'
    """
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                        EXAMPLES[name])


def read_run_layer(path, bias, asked, notes, name=None, **reading):
    """(the layer read by reviews.formats.layers.read_model, the classes
    ``asked`` (a list of reviews.formats.classes or a part of
    reviews.cli.shard, or None for all) resolved on it,
    (name, size, SHA-256) of each file read), ``name``, if given, standing
    for ``path`` itself in that list; ``reading`` goes to read_model, and
    its notes to ``notes``.

    >>> layer, asked, files = read_run_layer(example_path("figure1"), None, None, [],
    ...                                      name="example:figure1")
    >>> len(layer.weights), asked, files[0][0]
    (4, None, 'example:figure1')
    """
    layer = read_model(path, bias, note=notes.append, **reading)
    files = [((name if name is not None and file == path else file),) + file_digest(file)
             for file in layer.files]
    return layer, None if asked is None else asked.resolve(len(layer.weights)), files


def run_layer(layer, asked, files, options, notes, progress=None):
    """(a ClassResult per class decided, their radii or None if not worth
    it) for a layer read by reviews.formats.layers.read_model: ``asked``
    the classes resolved on it (None: all), ``files`` (name, size, SHA-256)
    of each file read, ``options`` a RunOptions; each note for the user is
    appended to ``notes``, and ``progress``, if given, is told what runs.

    >>> layer, asked, files = read_run_layer(example_path("figure1"), None, None, [])
    >>> results, found = run_layer(layer, asked, files, RunOptions("figure1"), [])
    >>> [r.argmaxable for r in results]
    [True, True, True, False]
    """
    weights = layer.weights
    decided = len(weights) if asked is None else len(asked)
    jobs = jobs_for(options.jobs, len(weights), len(weights[0]), start_method(), decided)
    if options.jobs is not None and jobs < options.jobs:
        # "At most": a one-dimensional layer, or one class left to decide
        # after its twins, is checked in this process whatever is asked.
        notes.append("--jobs %d: %d CPU%s usable here, so at most %d worker process%s"
                     " (more only take turns)" % (options.jobs, jobs,
                                                  "" if jobs == 1 else "s", jobs,
                                                  "" if jobs == 1 else "es"))
    if progress is not None:
        progress.status("preparing %d classes of dimension %d" % (len(weights), len(weights[0])))
    with_radii = reports_radii(decided, len(weights), len(weights[0]), options.question)
    if options.question.normed:
        notes.append("no radius reported: a radius is a ball's inside a box or an interval,"
                     " and none is found inside a norm's ball")
    check = functools.partial(_named, options, iter_checked, weights, layer.bias,
                              options.question, progress, jobs=jobs, radii=with_radii)
    if options.checkpoint is None:
        checked = list(check(classes=asked))
    else:
        header = _checkpoint_header(files, layer, options, asked)
        checked = _resumed(options, header, check, layer, asked, with_radii, notes)
    if not with_radii and not options.question.normed:
        notes.append("no radius reported: past N * C * d = 2**26, N the classes"
                     " decided, the radii would take minutes more (pass --tolerance T"
                     " to ask about a ball of radius above T)")
    return [c.result for c in checked], [c.radius for c in checked] if with_radii else None


def _named(options, check, *layer, **keywords):
    """What ``check(*layer, **keywords)`` yields, its errors naming the file
    they are about: the check says which input a message is about (the
    bias, or the whole layer: its spread), each read from its own file."""
    try:
        yield from check(*layer, **keywords)
    except InputError as error:
        shown = options.shown
        if options.bias_shown is not None and error.input == "layer":
            shown = "%s with bias %s" % (shown, options.bias_shown)
        elif options.bias_shown is not None and error.input == "bias":
            shown = options.bias_shown
        raise InputError("%s: %s" % (shown, error)) from None


def _checkpoint_header(files, layer, options, asked):
    """What a checkpoint says of its run: the files by size and SHA-256 (not
    their names: a moved file is the same layer), the tensors, the options
    that change a result, the classes asked and the version."""
    def tensor(t):
        return None if t is None else [t.name, t.dtype, list(t.shape)]
    return {"version": "%s %s" % (SUITE_NAME, __version__),
            "files": [[size, digest] for _, size, digest in files],
            "weights_tensor": tensor(layer.weights_tensor),
            "bias_tensor": tensor(layer.bias_tensor), "transpose": options.transpose,
            # Every class listed is no list: the same classes as none.
            "asked": None if asked is None or len(asked) == len(layer.weights)
            else ranges_text(asked), **dict(question_json(options.question))}


def _resumed(options, header, check, layer, asked, with_radii, notes):
    """The Checked of every class asked: those the checkpoint keeps (each
    certificate checked again, each radius found again), then the rest,
    decided and kept there one by one."""
    weights, bias = layer.weights, layer.bias
    wanted = range(len(weights)) if asked is None else asked
    with ResumeFile(options.checkpoint, header, options.question) as checkpoint:
        kept = sorted(checkpoint.kept, key=lambda result: result.index)
        where = shown_name(options.checkpoint)
        if kept:
            asked_set = set(wanted)
            stranger = next((r.index for r in kept if r.index not in asked_set), None)
            if stranger is not None:
                raise InputError("%s: class %d is not one of the classes asked"
                                 % (where, stranger))
            try:
                holds = Verifier(weights, bias, options.question).holds_all(kept)
            except InputError as error:
                raise InputError("%s: %s" % (where, error)) from None
            if not all(holds):
                raise InputError("%s: class %d's certificate does not hold for this layer"
                                 % (where, kept[holds.index(False)].index))
            notes.append("%s: %d classes kept from an earlier run, their certificates checked"
                         " again" % (where, len(kept)))
        done = {r.index for r in kept}
        remaining = [i for i in wanted if i not in done]
        decided = {}
        if remaining:
            try:
                for checked in check(classes=remaining):
                    checkpoint.append(checked.result)
                    decided[checked.result.index] = checked
            except BaseException as stop:
                # Read by the command line where a signal ended the run.
                stop.resume = ("%s keeps %d of the %d classes asked: the same command resumes"
                               " from them" % (where, len(kept) + len(decided), len(wanted)))
                raise
    found = radii(weights, bias, kept) if with_radii and kept else [None] * len(kept)
    decided.update((r.index, Checked(r, radius)) for r, radius in zip(kept, found))
    return [decided[i] for i in wanted]
