"""Renderers: what the command prints, in every format it knows.

A renderer takes checked claims (reviews.claims.Result) or a checked layer
(reviews.argmax.check results) and returns text; it knows nothing about
any paper: everything it prints comes from the results it is given.

    verdicts    the claims as text, markdown and JSON; the lines every
                format shares (version, citation, tally)
    markdown    markdown's pieces: names as code spans, table cells, links
    layer       a checked layer (check-layer) as text, markdown and JSON
    compare     two checked layers' reports compared (compare), in the same formats
    html        the claims as one self-contained HTML page
    svg         SVG figures (charts, region maps, tables) from computed data
    progress    the progress line of a long check on a terminal
    files       writing a report to a file: whole or not at all, never over
                an input

Import the renderers from their module (``from reviews.report.verdicts import
FORMATS``); this package imports nothing itself.
"""
