"""``merge``: shards of one layer's check joined into the report of one run.

    merge_command   parse the options, merge the shards (reviews.run.merge),
                    report; the exit status

Where the layer is at hand (at the path the shards name, or ``--layer
FILE``, with ``--bias FILE`` for a bias in a file of its own), the report
is the one ``check-layer FILE`` gives with the same --format and
--certificates, byte for byte; where it is not, it says in its first lines
that the certificates were not checked against the layer.
"""

from reviews.cli.streams import (PROGRAM, Parser, UsageError, add_format, add_output,
                                 certificates_asked, deliver, not_empty)
from reviews.errors import InputError
from reviews.report.files import refuse_folder, refuse_inputs
from reviews.report.layer import CERTIFICATES, LAYER_FORMATS
from reviews.run.merge import merge_shards
from reviews.shown import shown_name

__all__ = ["merge_command"]


def _merge_parser(out):
    parser = Parser(out, prog=PROGRAM + " merge",
                    description="Join the JSON reports of check-layer --classes (shards of one"
                                " layer, made with the same files, options and version) into"
                                " the report of one run over every class.")
    parser.add_argument("shards", metavar="SHARD", type=not_empty("a file name"), nargs="+",
                        help="a shard: check-layer FILE --shard I/N (or --classes A:B)"
                             " --format json --output SHARD; together they hold every class"
                             " once")
    add_format(parser, LAYER_FORMATS)
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


def merge_command(argv, out, err):
    arguments = _merge_parser(out).parse_args(argv)
    arguments.certificates = certificates_asked(arguments)
    if arguments.output is not None:
        refuse_folder(arguments.output)
        refuse_inputs(arguments.output, arguments.shards)
    if arguments.bias is not None and arguments.layer is None:
        raise UsageError("--bias needs --layer: the layer the shards were made from")
    joined, shards, note = merge_shards(arguments.shards, arguments.layer, arguments.bias)
    if note is not None:
        err.write("%s: note: %s\n" % (PROGRAM, note))
    extra = {}
    if arguments.format == "json":
        if arguments.certificates == "all" and joined.certificates != "all":
            raise InputError("--certificates all needs every shard's certificates: %s lists"
                             " the unargmaxable classes' only"
                             % shown_name(next(path for path, shard in shards
                                               if shard.certificates != "all")))
        extra["certificates"] = arguments.certificates
    deliver(LAYER_FORMATS[arguments.format](joined, **extra), arguments.output, out)
    if arguments.fail_on_unargmaxable and not all(r.argmaxable for r in joined.results):
        return 1
    return 0
