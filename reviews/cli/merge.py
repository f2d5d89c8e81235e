"""``merge``: shards of one layer's check joined into the report of one run.

    merge_command   parse the options, read the shards, join them, report

Each shard is the JSON report of ``check-layer FILE --classes A:B
--format json``; reviews.report.shards reads them back and checks that
they fit together.  The report is the one ``check-layer FILE`` gives with
the same --format and --certificates, byte for byte.
"""

from reviews import __version__
from reviews.cli.layer import reports_radii
from reviews.cli.streams import (PROGRAM, SUITE_NAME, Parser, add_output, certificates_asked,
                                 deliver, not_empty)
from reviews.errors import InputError
from reviews.formats.source import open_regular
from reviews.report.files import refuse_folder, refuse_inputs
from reviews.report.layer import CERTIFICATES, LAYER_FORMATS
from reviews.report.shards import join, read_shard
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
    add_output(parser)
    return parser


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
    shards = [read_shard(path, _read(path)) for path in arguments.shards]
    first = shards[0]
    joined = join(shards, "%s %s" % (SUITE_NAME, __version__),
                  radii=reports_radii(first.classes, first.classes, first.dim))
    shown = {}
    if arguments.format == "json":
        if arguments.certificates == "all" and joined.certificates != "all":
            raise InputError("--certificates all needs every shard's certificates: %s lists"
                             " the unargmaxable classes' only"
                             % shown_name(next(s.path for s in shards
                                               if s.certificates != "all")))
        shown["certificates"] = arguments.certificates
    render = LAYER_FORMATS[arguments.format]
    deliver(render(joined.name, joined.results, joined.dim, joined.bias, joined.radii,
                   tokens=joined.tokens, provenance=joined.provenance, **shown),
            arguments.output, out)
    if arguments.fail_on_unargmaxable and not all(r.argmaxable for r in joined.results):
        return 1
    return 0
