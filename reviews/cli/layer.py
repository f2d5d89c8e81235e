"""``check-layer``: decide exactly which classes of a user's layer are argmaxable.

    check_layer_command     parse the options, read the layer, run the check
                            (reviews.run.layer), report it; the exit status
"""

import argparse
import os
import platform
import re

from reviews import __version__
from reviews.argmax.question import Question
from reviews.argmax.workers import job_count
from reviews.cli.shard import parse_shard
from reviews.cli.streams import (NORM_INPUTS, PROGRAM, SUITE_NAME, Parser, UsageError,
                                 WriteFailed,
                                 add_format, add_output, attached, certificates_asked, columns,
                                 deliver, exact_number, interval, not_empty, write_notes)
from reviews.formats.folders import model_files
from reviews.formats.classes import parse_classes, ranges_text
from reviews.formats.source import STDIN
from reviews.report.files import refuse_folder, refuse_inputs
from reviews.record import LayerReport, Provenance
from reviews.report.layer import CERTIFICATES, LAYER_FORMATS
from reviews.report.progress import Progress
from reviews.report.verdicts import Suite, version_line
from reviews.run.layer import EXAMPLES, RunOptions, example_path, read_run_layer, run_layer
from reviews.shown import shown_name

__all__ = ["check_layer_command"]

_LAYER_FILES = (".json, .csv, .tsv, .txt, .vec, .npy, .npz, .safetensors, .bin, .pt, .pth,"
                " .pkl, .pickle, .onnx, .gguf, a spaCy component's model, or a model folder"
                " (config.json and weights) or its *.index.json; - reads JSON or CSV from"
                " stdin")
def _layer_parser(out):
    parser = Parser(out, prog=PROGRAM + " check-layer",
                     description="Decide exactly which classes of a softmax layer are"
                                 " argmaxable.  Classes are numbered from 0.")
    parser.add_argument("file", metavar="FILE", type=not_empty("a file name"), nargs="?",
                        help="the layer, one row of weights per class: %s" % _LAYER_FILES)
    parser.add_argument("--example", choices=sorted(EXAMPLES),
                        help="check a layer shipped with the suite instead of FILE: figure1 is"
                             " the low-rank paper's Figure 1 (4 classes, d = 2, class 3"
                             " unargmaxable)")
    parser.add_argument("--bias", metavar="FILE", type=not_empty("a file name"),
                        help="the bias, one number per class, if not in FILE")
    parser.add_argument("--tensor", metavar="NAME", type=not_empty("an array name"),
                        help="the weights' array in a model, .npz or .safetensors FILE"
                             " (needed unless it is the only 2-D one or the model's output"
                             " layer by name)")
    parser.add_argument("--bias-tensor", metavar="NAME", type=not_empty("an array name"),
                        help="the bias's array, in the --bias file if given, else in FILE")
    parser.add_argument("--no-bias", action="store_true",
                        help="read no bias, for W x alone (by default the bias beside the"
                             " weights is read, with a note)")
    parser.add_argument("--vocab", metavar="FILE", type=not_empty("a file name"),
                        help="name each class by its token: tokenizer.json, vocab.json,"
                             " vocab.txt, a sentencepiece .vocab or one token per line (a"
                             " model folder's own is read without it)")
    parser.add_argument("--transpose", action="store_true",
                        help="the weights are stored as (d, C): one column per class")
    parser.add_argument("--classes", metavar="LIST",
                        help="decide only these classes, each against every row: ids and"
                             " half-open ranges as Python slices (0:1000, 3,17,40:50), or"
                             " @FILE with one id a line; default: every class")
    parser.add_argument("--shard", metavar="I/N",
                        help="decide only part I of N of the classes (numbered from 0): for"
                             " C classes, --classes C*I//N:C*(I+1)//N, whose report it"
                             " writes; auto: the part from a Slurm job array"
                             " (SLURM_ARRAY_TASK_ID - _MIN of _COUNT); auto/N: part"
                             " JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or"
                             " SLURM_ARRAY_TASK_ID of N")
    parser.add_argument("--jobs", metavar="N", type=_jobs,
                        help="worker processes to split the classes across (default, and 0:"
                             " one per CPU, %d here, but one for a small layer; never more"
                             " than the CPUs); the output is the same for every N"
                             % job_count(None))
    parser.add_argument("--box", metavar="R",
                        type=exact_number("a positive number", lambda value: value > 0),
                        help="only inputs with |x_k| <= R for every k (the released"
                             " detector looks in R = 100)")
    parser.add_argument("--inputs", metavar="LO:HI", type=interval,
                        help="only inputs with LO <= x_k <= HI for every k: 0:inf after a"
                             " ReLU, -1:1 after tanh, 0:1 after a sigmoid; -R:R is --box R;"
                             " all for R^d; layernorm or rmsnorm for the outputs of a final"
                             " norm (of weight 1 and bias 0: the ball of radius sqrt(d), in"
                             " the hyperplane sum x = 0 for a LayerNorm)")
    parser.add_argument("--norm-weight", metavar="NAME", type=not_empty("an array name"),
                        help="with --inputs layernorm or rmsnorm: the norm's weight g, an"
                             " array of FILE (default: 1 everywhere)")
    parser.add_argument("--norm-bias", metavar="NAME", type=not_empty("an array name"),
                        help="with --inputs layernorm: the norm's bias beta, an array of FILE"
                             " (default: 0)")
    parser.add_argument("--tolerance", metavar="T", default=0,
                        type=exact_number("a number of 0 or more", lambda value: value >= 0),
                        help="a class passes only where a ball of radius above T wins; with"
                             " --box 100, T = 1e-8 is the question of the released detector's"
                             " linear program, which it asks only of the classes its search"
                             " misses (the search has no tolerance); default 0")
    add_format(parser, LAYER_FORMATS)
    parser.add_argument("--certificates", choices=CERTIFICATES,
                        help="the classes whose certificates the JSON lists (default: all;"
                             " unargmaxable: their combinations only, no witnesses, for a"
                             " small file from a large layer)")
    parser.add_argument("--fail-on-unargmaxable", action="store_true",
                        help="exit 1 when any class is unargmaxable (a gate for CI)")
    parser.add_argument("--checkpoint", metavar="FILE", type=not_empty("a file name"),
                        help="keep each class's result in FILE as it is decided; run again"
                             " with the same FILE, layer and options to decide only the"
                             " classes it lacks (its certificates are checked again first)")
    parser.add_argument("--progress", action="store_true",
                        help="show progress on stderr when it is not a terminal too: a plain"
                             " line every few seconds, for CI logs")
    add_output(parser)
    return parser


def _jobs(text):
    """--jobs N: a whole number, 0 (None) for one process per CPU."""
    if not _WHOLE_NUMBER.fullmatch(text):
        raise argparse.ArgumentTypeError("expected a whole number of processes, got %r"
                                         % text[:60])
    return int(text) or None


_WHOLE_NUMBER = re.compile(r"[0-9]{1,4}")   # ASCII digits only, as in a layer file

def _shown(path):
    """A file name as the reader's messages show it: - is standard input."""
    return STDIN if path == "-" else path


def check_layer_command(argv, out, err):
    """check-layer: parse the options, read the layer, check it, report it; the exit status."""
    arguments = _parse(argv, out)
    # Notes are held until the layer is checked: a layer that the reader or
    # the checker refuses gets its one error line only.
    notes = []
    progress = None
    if err.isatty():
        progress = Progress(err, failure=WriteFailed, columns=columns(err.stream))
    elif arguments.progress:
        progress = Progress(err, failure=WriteFailed, plain=True)
    try:
        if progress is not None:
            progress.status("reading %s" % arguments.shown)
        layer, asked, files = read_run_layer(
            arguments.file, arguments.bias, arguments.asked, notes, tensor=arguments.tensor,
            bias_tensor=arguments.bias_tensor, transpose=arguments.transpose,
            no_bias=arguments.no_bias, binary=True, vocab=arguments.vocab,
            norm=arguments.norm,
            name=arguments.name if arguments.example is not None else None)
        if arguments.shard is not None and arguments.shard.startswith("auto"):
            # A scheduler's task log says which classes the task took, and why.
            notes.append("%s: part %d of %d: classes %s (%d of %d)" % (
                arguments.asked.origin, arguments.asked.index, arguments.asked.parts,
                ranges_text(asked), len(asked), len(layer.weights)))
        if layer.norm is not None:
            arguments.question = arguments.question._replace(inputs=layer.norm)
        if arguments.output is not None:
            # A model folder names its files only as it is read; the report is not written yet.
            refuse_inputs(arguments.output, layer.files)
        options = RunOptions(arguments.shown, arguments.question, arguments.jobs,
                             arguments.checkpoint, arguments.transpose, arguments.bias_shown)
        results, found = run_layer(layer, asked, files, options, notes, progress)
    finally:
        if progress is not None:
            progress.wipe()
    write_notes(notes, err)
    return _report(arguments, layer, asked, files, results, found, out)


def _parse(argv, out):
    """The options, checked before any file is read; ``asked`` the classes
    listed (unresolved), ``name`` the layer's name in the report, ``shown``
    and ``bias_shown`` the names its messages give the files."""
    arguments = _layer_parser(out).parse_args(attached(attached(argv, "--inputs"), "--shard"))
    arguments.certificates = certificates_asked(arguments)
    arguments.question = Question(arguments.box, arguments.tolerance, arguments.inputs)
    arguments.norm = _norm_asked(arguments)
    if (arguments.file is None) == (arguments.example is None):
        raise UsageError("check-layer needs FILE or --example NAME (one of them)")
    if arguments.no_bias and (arguments.bias is not None or arguments.bias_tensor is not None):
        raise UsageError("--no-bias reads no bias: it cannot go with %s"
                         % ("--bias" if arguments.bias is not None else "--bias-tensor"))
    if arguments.example is not None:
        arguments.file = example_path(arguments.example)
    # Read before the layer: a mistake in the list costs no reading of a large file.
    if arguments.shard is None:
        arguments.asked = None if arguments.classes is None else parse_classes(arguments.classes)
    elif arguments.classes is not None:
        raise UsageError("--shard and --classes both choose the classes: give one of them")
    else:
        arguments.asked = parse_shard(arguments.shard, os.environ)
    listed = arguments.classes[1:] if arguments.classes and arguments.classes[0] == "@" else None
    inputs = (arguments.file, arguments.bias, listed) + model_files(arguments.file)
    if arguments.checkpoint is not None:
        if arguments.checkpoint == "-":
            raise UsageError("--checkpoint needs a file name, not -")
        if arguments.file == "-":
            raise UsageError("--checkpoint needs the layer in a file: standard input has no"
                             " SHA-256 to match a rerun to")
        refuse_inputs(arguments.checkpoint, inputs, "--checkpoint")
        if arguments.output is not None and os.path.realpath(arguments.output) \
                == os.path.realpath(arguments.checkpoint):
            raise UsageError("--output and --checkpoint name one file, %s"
                             % shown_name(arguments.output))
    if arguments.output is not None:
        refuse_folder(arguments.output)
        refuse_inputs(arguments.output, inputs + (arguments.checkpoint,))
    # The reader's messages and notes already start with the file they are about.
    arguments.name, bias_name = _shown(arguments.file), _shown(arguments.bias)
    if arguments.example is not None:
        arguments.name = "example:%s" % arguments.example   # the same wherever it is installed
    arguments.shown = shown_name(arguments.name)
    arguments.bias_shown = bias_name and shown_name(bias_name)
    return arguments


def _norm_asked(arguments):
    """What read_model is asked of a final norm: the tensors named with
    --inputs layernorm or rmsnorm; "auto" for a model folder asked nothing
    else (its config.json names the norm that feeds its head); else None."""
    named = (arguments.norm_weight, arguments.norm_bias)
    if arguments.inputs in NORM_INPUTS:
        if arguments.inputs == "rmsnorm" and arguments.norm_bias is not None:
            raise UsageError("--norm-bias goes with --inputs layernorm: an RMSNorm has no bias")
        return (arguments.inputs,) + named if any(named) else None
    if any(named):
        raise UsageError("--norm-weight and --norm-bias go with --inputs layernorm or rmsnorm")
    folder = arguments.file is not None and os.path.isdir(arguments.file)
    asked_else = (arguments.inputs is not None or arguments.box is not None
                  or arguments.tolerance)
    return "auto" if folder and not asked_else else None


def _report(arguments, layer, asked, files, results, found, out):
    """Deliver the report; the exit status."""
    provenance = Provenance(
        version_line(Suite(SUITE_NAME, __version__, platform.python_version())), files,
        layer.weights_tensor, layer.bias_tensor, arguments.transpose)
    report = LayerReport(arguments.name, results, len(layer.weights[0]), layer.bias is not None,
                         found, layer.tokens, provenance, len(layer.weights), asked is not None)
    extra = {"certificates": arguments.certificates} if arguments.format == "json" else {}
    deliver(LAYER_FORMATS[arguments.format](report, **extra), arguments.output, out)
    if arguments.fail_on_unargmaxable and not all(r.argmaxable for r in results):
        return 1
    return 0
