"""The report as one self-contained HTML page, ready to publish.

The page holds the version line, the claims table, each claim's evidence and
every figure inline as SVG: inline CSS, no scripts, no fonts or images from
elsewhere, so that the one file is the whole review; its only links leave
the page for each paper's arXiv abstract.  It reads from 600 to 1200 pixels
wide with nothing hidden or scrolled sideways: below 760 pixels each row of
the claims table stacks its cells, each under its column's name.  Like the
other renderers (reviews.report.verdicts) it knows nothing about any paper.

    html        the page, from the suite, the results and the drawn figures
"""

import html as _html
import re

from reviews.claims import BY_SUITE
from reviews.shown import shown_name
from reviews.report.verdicts import (SELECTED_ONLY, alt_text, citation, mismatch_line,
                                     sampled_line, stated, tally, verdict_cell, version_line,
                                     words_label)

__all__ = ["html"]

# System fonts only: nothing is fetched.
_STYLE = """\
body{margin:0;background:#fff;color:#111;\
font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",Arial,sans-serif}
main{max-width:1100px;margin:0 auto;padding:12px 16px 32px}
h1{font-size:1.45em;margin:.4em 0 .2em}
h2{font-size:1.15em;margin:2em 0 .4em;padding-top:.6em;border-top:1px solid #ccc;\
overflow-wrap:anywhere}
.version{margin:0 0 1em;color:#333}
.scroll{overflow-x:auto;margin:.6em 0 1em}
table{border-collapse:collapse;font-size:.92em}
th,td{border:1px solid #c8c8c8;padding:4px 8px;text-align:left;vertical-align:top}
th{background:#f0f0f0}
table.claims td:nth-child(1){min-width:11em}
table.claims td:nth-child(2){min-width:11em}
table.claims td:nth-child(4){min-width:13em}
@media (max-width:760px){
table.claims,table.claims tbody,table.claims tr,table.claims td{display:block}
table.claims thead{display:none}
table.claims tr{border:1px solid #c8c8c8;margin:0 0 .8em}
table.claims td{border:0;min-width:0}
table.claims td+td{border-top:1px solid #e4e4e4}
table.claims td::before{content:attr(data-label);display:block;font-size:.8em;color:#555}
table.evidence tr th{white-space:normal;width:30%}
}
.small{font-size:.86em;color:#444}
table.evidence{width:100%}
table.evidence th{font-weight:normal;white-space:nowrap;width:1%}
code{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.92em}
table.evidence code{white-space:pre-wrap;overflow-wrap:anywhere}
.verdict{font-weight:bold;white-space:nowrap}
.verdict-pass{color:#1a6e2e}
.verdict-fail{color:#a50000;border:2px solid #a50000;padding:0 4px}
.verdict-not-checked{color:#555;font-style:italic}
.mismatch{color:#fff;background:#b34700;padding:0 4px;border:2px dashed #111}
.scope{margin:0 0 1em;font-style:italic}
blockquote{margin:.6em 0;padding:.1em 0 .1em 1em;border-left:4px solid #0072B2}
figure{margin:1.2em 0}
figure svg{display:block;width:100%;max-width:600px;height:auto;border:1px solid #ddd}
figcaption{font-size:.92em;color:#333;margin-top:.3em}
figcaption code{overflow-wrap:anywhere}
"""


def _e(text):
    """Text as HTML, ASCII only (anything else as a character reference)."""
    return _html.escape(str(text)).encode("ascii", "xmlcharrefreplace").decode("ascii")


def _verdict(result):
    """The verdict as its word in its own style: PASS plain, FAIL boxed,
    NOT CHECKED in italics, a MISMATCH boxed on a dark ground, so that
    each reads apart from the others without colour too."""
    verdict = _e(verdict_cell(result))
    kind = "verdict-" + result.outcome.verdict.lower().replace(" ", "-")
    if result.matches:
        return '<span class="verdict %s">%s</span>' % (kind, verdict)
    return '<span class="verdict %s mismatch">%s</span>' % (kind, verdict)


def _anchor(claim):
    return "claim-" + re.sub(r"[^A-Za-z0-9_.-]", "-", claim.id)


def _inline_svg(svg, prefix):
    """An SVG document as an element of the page: no namespace declaration
    (HTML implies it), ids made unique to the figure."""
    svg = re.sub(r'\s+xmlns="[^"]*"', "", svg, count=1).strip()
    for name in re.findall(r'\sid="([^"]+)"', svg):
        unique = "%s-%s" % (prefix, name)
        svg = svg.replace('id="%s"' % name, 'id="%s"' % unique)
        svg = svg.replace("url(#%s)" % name, "url(#%s)" % unique)
    return svg.encode("ascii", "xmlcharrefreplace").decode("ascii")


def _arxiv(arxiv_id):
    """ "arXiv:ID" as a link to the paper's abstract page (a link: nothing is fetched)."""
    return '<a href="https://arxiv.org/abs/%s">arXiv:%s</a>' % (_e(arxiv_id), _e(arxiv_id))


def _by(claim):
    """Whose the statement is, under it in the table: a source's statement
    is this suite's paraphrase of it."""
    if claim.source == BY_SUITE:
        return "by this suite: its own finding"
    return "by the %s, in this suite's paraphrase" % claim.source


def _claims_table(results):
    """The claims table; on a narrow screen each row stacks its cells, each
    under its column's name (data-label), so that nothing scrolls sideways."""
    columns = ("Claim (where)", "Statement (by)", "This suite's verdict", "Key numbers")
    lines = ['<table class="claims">',
             "<thead><tr>%s</tr></thead>" % "".join("<th>%s</th>" % _e(c) for c in columns),
             "<tbody>"]
    for result in results:
        claim, outcome = result
        cells = ('<a href="#%s"><code>%s</code></a><br><span class="small">%s %s</span>'
                 % (_anchor(claim), _e(claim.id),
                    _arxiv(claim.paper.arxiv + (claim.paper.version or "")), _e(claim.where)),
                 '%s<br><span class="small">%s</span>' % (_e(claim.statement),
                                                          _e(_by(claim))),
                 _verdict(result), _e(outcome.summary))
        lines.append("<tr>%s</tr>" % "".join('<td data-label="%s">%s</td>' % (_e(column), cell)
                                             for column, cell in zip(columns, cells)))
    lines += ["</tbody>", "</table>"]
    return lines


def _section(result, drawn, number):
    claim, outcome = result
    versioned = claim.paper.arxiv + (claim.paper.version or "")
    lines = ['<section id="%s">' % _anchor(claim),
             "<h2><code>%s</code>: %s</h2>" % (_e(claim.id), _verdict(result)),
             "<p>%s.</p>" % _e(citation(claim)).replace(
                 "arXiv:%s" % _e(versioned), _arxiv(versioned), 1),
             "<p>%s: %s</p>" % (_e(claim.whose), _e(claim.statement))]
    if claim.quoted:
        lines += ["<p>%s:</p>" % _e(words_label(claim)),
                  "<blockquote>%s</blockquote>" % _e(claim.quoted)]
    if not claim.by_default:
        lines.append('<p class="small">%s</p>' % _e(SELECTED_ONLY))
    lines.append("<p>%s<br>Found: %s%s</p>" % (
        _e(stated(claim)), _e(outcome.summary),
        "<br>" + _e(sampled_line(outcome)) if outcome.sampled is not None else ""))
    if not result.matches:
        lines.append('<p class="mismatch">%s</p>' % _e(mismatch_line(result)))
    if outcome.evidence:
        lines.append('<div class="scroll"><table class="evidence">')
        lines += ["<tr><th>%s</th><td><code>%s</code></td></tr>" % (_e(row.label),
                                                                   _e(row.value))
                  for row in outcome.evidence]
        lines.append("</table></div>")
    for k, figure in enumerate(drawn):
        caption = _e(alt_text(claim, figure))
        if figure.path is not None:
            caption += " (file <code>%s</code>)" % _e(shown_name(figure.path))
        lines += ['<figure aria-label="%s">' % _e(alt_text(claim, figure)),
                  _inline_svg(figure.svg, "figure%d-%d" % (number, k + 1)),
                  "<figcaption>%s</figcaption>" % caption, "</figure>"]
    lines.append("</section>")
    return lines


def html(suite, results, figures=None):
    """One self-contained HTML page: version line, claims table, tally,
    then each claim's evidence and its figures inline as SVG.

    ``figures`` maps a claim id to its figures (reviews.report.verdicts.Drawn); each
    is shown inline, and its file path, when written, in the caption.

    >>> from reviews.report.verdicts import Suite
    >>> page = html(Suite("suite", "1.0", "3.x"), [])
    >>> page.startswith("<!DOCTYPE html>"), "<script" in page
    (True, False)
    """
    figures = figures or {}
    lines = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>%s</title>" % _e(version_line(suite)),
             "<style>", _STYLE.rstrip("\n"), "</style>", "</head>", "<body>", "<main>",
             "<h1>Review of claims</h1>",
             '<p class="version">%s</p>' % _e(version_line(suite))]
    if suite.scope:
        lines.append('<p class="scope">%s</p>' % _e(suite.scope))
    lines += _claims_table(results)
    lines.append("<p>%s</p>" % _e(tally(results)))
    for number, result in enumerate(results, 1):
        lines += _section(result, figures.get(result.claim.id, ()), number)
    lines += ["</main>", "</body>", "</html>"]
    return "\n".join(lines) + "\n"
