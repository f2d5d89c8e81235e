"""Markdown's pieces for the reports: names as code spans, table cells, link targets.

Whatever a user named (a file, a tensor, a token) is shown in markdown
where no markdown or HTML in it takes effect.

    markdown_name   a user's name as a code span, on one line
    code_span       any text as a markdown code span
    table_cell      a table cell's text, pipes escaped
    link_target     a path as a link target, percent-encoded
"""

import re
import urllib.parse

from reviews.shown import shown_name

__all__ = ["markdown_name", "code_span", "table_cell", "link_target"]


def table_cell(value):
    """A markdown table cell's text: pipes escaped."""
    return str(value).replace("|", "\\|")


def link_target(path):
    """A path as a markdown link target: percent-encoded as in a URL, so that
    nothing in it (a space, brackets, <, a newline) is markdown or HTML."""
    return urllib.parse.quote(path.encode("utf-8", "surrogateescape"), safe="/")


def markdown_name(name):
    """A user's name as markdown: on one line (shown_name), in a code span,
    where no markdown or HTML in it takes effect.

    >>> print(markdown_name("x\\n<img src=x>`.csv"))
    ``x\\n<img src=x>`.csv``
    """
    return code_span(shown_name(name))


def code_span(text):
    """``text`` as a markdown code span, whatever backticks it holds."""
    fence = "`" * (max(map(len, re.findall("`+", text)), default=0) + 1)
    padding = " " if text[:1] == "`" or text[-1:] == "`" else ""
    return fence + padding + text + padding + fence
