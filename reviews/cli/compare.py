"""``compare``: two check-layer reports of the same classes, and the verdicts that differ.

    compare_command   parse the options, compare the reports
                      (reviews.run.compare), report; the exit status

The reports are check-layer's (or merge's) JSON, of one layer before and
after a change (a quantization, say): the report lists each class whose
verdict differs, and exits 1 with ``--fail-on-change`` when one does.
"""

from reviews.cli.streams import PROGRAM, Parser, add_format, add_output, deliver, not_empty
from reviews.report.compare import COMPARE_FORMATS
from reviews.report.files import refuse_folder, refuse_inputs
from reviews.run.compare import compare_reports

__all__ = ["compare_command"]


def _compare_parser(out):
    parser = Parser(out, prog=PROGRAM + " compare",
                    description="List the classes whose verdict differs between two JSON"
                                " reports of check-layer (or merge) of the same classes: a"
                                " layer before and after a change, such as a quantization.")
    for name, which in (("a", "the report before the change"),
                        ("b", "the report after it, of the same classes")):
        parser.add_argument(name, metavar=name.upper() + ".json", type=not_empty("a file name"),
                            help="%s: check-layer FILE --format json --output %s.json"
                                 % (which, name.upper()))
    add_format(parser, COMPARE_FORMATS)
    parser.add_argument("--fail-on-change", action="store_true",
                        help="exit 1 when any class's verdict differs (a gate for CI)")
    add_output(parser)
    return parser


def compare_command(argv, out, err):
    """compare: parse the options, compare the two reports, report; the exit status."""
    arguments = _compare_parser(out).parse_args(argv)
    if arguments.output is not None:
        refuse_folder(arguments.output)
        refuse_inputs(arguments.output, [arguments.a, arguments.b])
    comparison = compare_reports(arguments.a, arguments.b)
    if comparison.note is not None:
        err.write("%s: note: %s\n" % (PROGRAM, comparison.note))
    deliver(COMPARE_FORMATS[arguments.format](comparison), arguments.output, out)
    return 1 if arguments.fail_on_change and comparison.changes else 0
