"""``merge``: shards of one layer's check joined into the report of one run.

    merge_command   parse the options, read the shards, join them, report

Each shard is the JSON report of ``check-layer FILE --classes A:B
--format json``; reviews.run.shards reads them back and checks that
they fit together, and that none contradicts itself.  Where the layer is at
hand (at the path the shards name, or ``--layer FILE``, with ``--bias
FILE`` for a bias in a file of its own), its files must be the ones the
shards were made from (size and SHA-256), and every certificate listed is
checked exactly against it, as a resumed run checks its checkpoint, with
each radius found again: the report is then the one ``check-layer FILE``
gives with the same --format and --certificates, byte for byte.  Where it
is not, the report says in its first lines that the certificates were not
checked against the layer.
"""

import os


from reviews import __version__
from reviews.cli.streams import (PROGRAM, SUITE_NAME, Parser, UsageError, add_output,
                                 certificates_asked, deliver, not_empty)
from reviews.argmax.certified import verify_all
from reviews.argmax.tolerance import radii
from reviews.errors import InputError
from reviews.formats.layers import read_model
from reviews.formats.source import file_digest, open_regular
from reviews.report.files import refuse_folder, refuse_inputs
from reviews.report.layer import CERTIFICATES, LAYER_FORMATS
from reviews.run.plan import reports_radii
from reviews.run.shards import join, read_shard
from reviews.shown import shown_name

__all__ = ["merge_command"]


def _merge_parser(out):
    parser = Parser(out, prog=PROGRAM + " merge",
                    description="Join the JSON reports of check-layer --classes (shards of one"
                                " layer, made with the same files, options and version) into"
                                " the report of one run over every class.")
    parser.add_argument("shards", metavar="SHARD", type=not_empty("a file name"), nargs="+",
                        help="a shard: check-layer FILE --classes A:B --format json --output"
                             " SHARD; together they hold every class once")
    parser.add_argument("--format", choices=sorted(LAYER_FORMATS), default="text",
                        help="report format (default: text)")
    parser.add_argument("--certificates", choices=CERTIFICATES,
                        help="as check-layer's: the classes whose certificates the JSON lists"
                             " (default: all)")
    parser.add_argument("--fail-on-unargmaxable", action="store_true",
                        help="exit 1 when any class is unargmaxable (a gate for CI)")
    parser.add_argument("--layer", metavar="FILE", type=not_empty("a file name"),
                        help="the layer the shards were made from, where it is not at the path"
                             " they name: every certificate is checked against it")
    parser.add_argument("--bias", metavar="FILE", type=not_empty("a file name"),
                        help="with --layer: the bias file the shards were made with")
    add_output(parser)
    return parser


def _layer_at_hand(joined, arguments):
    """The layer the shards name (read as check-layer read it), or None
    where it is not at hand; InputError where its files differ."""
    path = arguments.layer or joined.name
    if arguments.layer is None and (joined.name == "-" or not os.path.exists(path)):
        return None
    provenance = joined.provenance
    bias = arguments.bias
    if (bias is None and joined.bias and provenance.bias_tensor is None
            and not os.path.isdir(path) and len(provenance.files) > 1):
        bias = provenance.files[1][0] if arguments.layer is None else None
    layer = read_model(path, bias,
                       tensor=provenance.weights_tensor and provenance.weights_tensor.name,
                       bias_tensor=provenance.bias_tensor and provenance.bias_tensor.name,
                       transpose=provenance.transpose)
    made_from = {(size, digest) for _, size, digest in provenance.files}
    for name in layer.files:
        if file_digest(name) not in made_from:
            raise InputError("%s is not a file the shards were made from (its size and SHA-256"
                             " are none of theirs)" % shown_name(name))
    if len(layer.weights) != joined.classes or len(layer.weights[0]) != joined.dim \
            or (layer.bias is not None) != joined.bias:
        raise InputError("%s is not the layer of the shards: %d x %d%s, not %d x %d%s" % (
            shown_name(path), len(layer.weights), len(layer.weights[0]),
            " with a bias" if layer.bias is not None else "", joined.classes, joined.dim,
            " with a bias" if joined.bias else ""))
    return layer


def _check_against(joined, layer, shards):
    """InputError naming the shard and class of a certificate that does not
    hold on the layer, or of a radius that is not the one found again."""
    listed = [r for r in joined.results if r.argmaxable is False or r.witness is not None]
    holds = verify_all(layer.weights, layer.bias, listed, joined.results[0].box,
                       joined.results[0].tolerance)
    if not all(holds):
        index = listed[holds.index(False)].index
        raise InputError("%s: class %d's certificate does not hold on the layer"
                         % (shown_name(_holding(shards, index)), index))
    if joined.radii is not None:
        found = radii(layer.weights, layer.bias, joined.results)
        for result, given, again in zip(joined.results, joined.radii, found):
            if given != again:
                raise InputError("%s: class %d's radius is not the one found again on the"
                                 " layer" % (shown_name(_holding(shards, result.index)),
                                             result.index))


def _holding(shards, index):
    """The path of the shard that holds class ``index``."""
    return next(s.path for s in shards if any(r.index == index for r in s.results))


def _read(path):
    """A shard's text: a regular file read whole, as UTF-8."""
    handle, size = open_regular(path)
    with handle:
        data = handle.read(size)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError("%s: not a check-layer JSON report: not UTF-8 (byte %d)"
                         % (shown_name(path), error.start)) from None


def merge_command(argv, out, err):
    arguments = _merge_parser(out).parse_args(argv)
    arguments.certificates = certificates_asked(arguments)
    if arguments.output is not None:
        refuse_folder(arguments.output)
        refuse_inputs(arguments.output, arguments.shards)
    if arguments.bias is not None and arguments.layer is None:
        raise UsageError("--bias needs --layer: the layer the shards were made from")
    shards = [read_shard(path, _read(path)) for path in arguments.shards]
    first = shards[0]
    joined = join(shards, "%s %s" % (SUITE_NAME, __version__),
                  radii=reports_radii(first.classes, first.classes, first.dim))
    layer = _layer_at_hand(joined, arguments)
    if layer is None:
        note = ("the certificates were not checked against the layer: it is not at %s (give"
                " --layer FILE)" % shown_name(joined.name))
        joined = joined._replace(provenance=joined.provenance._replace(
            version=joined.provenance.version + "; " + note))
        err.write("%s: note: %s\n" % (PROGRAM, note))
    else:
        _check_against(joined, layer, shards)
    extra = {}
    if arguments.format == "json":
        if arguments.certificates == "all" and joined.certificates != "all":
            raise InputError("--certificates all needs every shard's certificates: %s lists"
                             " the unargmaxable classes' only"
                             % shown_name(next(s.path for s in shards
                                               if s.certificates != "all")))
        extra["certificates"] = arguments.certificates
    render = LAYER_FORMATS[arguments.format]
    deliver(render(joined.name, joined.results, joined.dim, joined.bias, joined.radii,
                   tokens=joined.tokens, provenance=joined.provenance, **extra),
            arguments.output, out)
    if arguments.fail_on_unargmaxable and not all(r.argmaxable for r in joined.results):
        return 1
    return 0
