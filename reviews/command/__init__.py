"""The command line, one module per subcommand, below reviews.counterexamples.

reviews/counterexamples.py is the entry point (the script, ``python -m``
and the installed ``counterexamples`` command); it dispatches to these:

    suite       the reviewed claims: run them, report them, draw figures
    layer       check-layer: a user's layer read, checked and reported
    streams     what both share: output streams, the parser, the errors
"""
