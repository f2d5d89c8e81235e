"""Claims as data, and the runner that checks them.

A reviewed claim names its paper, where in the paper it is made, the
statement, the verdict expected of it (the review's, where the review
gives one in words, else this suite's), and a check: a function of no
arguments that returns an ``Outcome`` (a verdict, a one-line summary of the
key numbers, and the evidence rows behind it).  The runner compares the
verdict with the expected one.  A claim whose check takes many times the
rest runs only when asked for by id or paper (``by_default`` False), so
that the default run stays quick.

Each reviewed paper is one module in ``reviews.papers`` with a ``CLAIMS``
tuple; ``reviews.papers.all_claims`` finds them all, so adding a paper adds
one module.

Public names:

    Paper, Claim, Outcome, Row, Result, Figure    the data
    PASS, FAIL, NOT_CHECKED                       the verdicts
    BY_PAPER, BY_REVIEW, BY_SUITE                 whose statement a claim is
    select, run                                   choose claims (by id or paper), run them
    default_claims                                the claims a run without --claim runs
    scope_line                                    a review's own words on what its checks are
    float_row                                     a float beside its exact value
    written                                       a number as a person writes it (1e6)
"""

import decimal
from collections import namedtuple

from reviews.errors import InputError
from reviews.shown import shown_name
from reviews.rounded import ulp_distance

__all__ = [
    "Paper", "Claim", "Outcome", "Row", "Result", "Figure",
    "PASS", "FAIL", "NOT_CHECKED", "VERDICTS", "BY_PAPER", "BY_REVIEW", "BY_SUITE",
    "SOURCES",
    "scope_line", "select", "default_claims", "run", "float_row", "written",
]

_SHOWN_DIGITS = 20

PASS = "PASS"
FAIL = "FAIL"
NOT_CHECKED = "NOT CHECKED"
VERDICTS = (PASS, FAIL, NOT_CHECKED)

BY_PAPER = "paper"     # whose statement a claim is: the paper's,
BY_REVIEW = "review"   # a published review's own,
BY_SUITE = "suite"     # or this suite's own finding, which no source states
SOURCES = (BY_PAPER, BY_REVIEW, BY_SUITE)

Paper = namedtuple("Paper", "title authors year arxiv version review scope",
                   defaults=(None, None, None))
Paper.__doc__ = """A reviewed paper: full title, authors (a tuple), year, arXiv id, the
arXiv version read ("v2", or None), the title of the published review of
it whose statements the claims quote (None where the sources hold no
review), and what that review says its own checks are, in its words (or
None): a report that holds a claim of the paper quotes it once."""

Row = namedtuple("Row", "label value")
Row.__doc__ = "One line of evidence: a label and its value, both text."

Outcome = namedtuple("Outcome", "verdict summary evidence sampled", defaults=(None,))
Outcome.__doc__ = """What a check found: verdict, a one-line summary, evidence rows, and,
where the verdict rests only on the cases it computed while the statement
speaks of every case, what those cases were (``sampled``: "the 3 gaps
checked ..."; None where the cases computed decide the statement as made)."""

class Result(namedtuple("Result", "claim outcome")):
    """A claim with the outcome of its check."""

    __slots__ = ()

    @property
    def matches(self):
        """Whether the verdict is the one the claim expects (claim.expected_by)."""
        return self.outcome.verdict == self.claim.expected


class Figure(namedtuple("Figure", "name draw description", defaults=(None,))):
    """A figure of a claim: its file name, draw() (which returns SVG text),
    and a sentence saying what it shows (a report's alt text and caption),
    or a function of no arguments that returns it, where the sentence gives
    numbers computed with the figure's (so that only a run that draws the
    figure computes them)."""

    __slots__ = ()

    def caption(self):
        """The sentence that says what the figure shows, or None.

        >>> Figure("a.svg", str, lambda: "Computed.").caption()
        'Computed.'
        """
        return self.description() if callable(self.description) else self.description


class Claim(namedtuple("Claim", "id paper where statement expected check figures source"
                                 " by_default verdict_words quoted")):
    """A reviewed claim; ``check()`` returns its Outcome; ``figures`` illustrate it.

    ``source`` says whose statement it is: BY_PAPER, a claim the paper
    makes; BY_REVIEW, the published review's own statement about the paper
    (a repair, a judgement), which a reader must not quote as the paper's;
    or BY_SUITE, this suite's own finding, stated by neither (a test of the
    paper's released code, a point no source makes).  ``by_default`` False:
    the claim runs only when selected (``--claim`` with its id or its
    paper), as its check takes long.  ``verdict_words``: the review's own
    words that judge a claim of the paper ("That fails at the boundary."),
    which make the expected verdict the review's; a review asserts its own
    statements and judges none of them, so without such words the expected
    verdict is this suite's.

    ``statement`` is this suite's paraphrase, which every report marks as
    one; ``quoted`` holds the source's own words, verbatim, where a report
    may quote them (" [...] " marks words left out): the review's where the
    paper reaches us through one, else the paper's.
    """

    __slots__ = ()

    def __new__(cls, id, paper, where, statement, expected, check, figures=(),
                source=BY_PAPER, by_default=True, verdict_words=None, quoted=None):
        if expected not in VERDICTS:
            raise ValueError("claim %s: expected verdict %r is not one of %s"
                             % (id, expected, ", ".join(VERDICTS)))
        if source not in SOURCES:
            raise ValueError("claim %s: source %r is not one of %s"
                             % (id, source, ", ".join(SOURCES)))
        if source == BY_REVIEW and paper is not None and paper.review is None:
            raise ValueError("claim %s: a review's statement, but its paper names no review"
                             % id)
        if not isinstance(by_default, bool):
            raise TypeError("claim %s: by_default must be True or False, not %r"
                             % (id, by_default))
        if verdict_words is not None:
            if not isinstance(verdict_words, str) or not verdict_words.strip():
                raise TypeError("claim %s: verdict_words must be the review's words, not %r"
                                % (id, verdict_words))
            if source != BY_PAPER or paper is None or paper.review is None:
                raise ValueError("claim %s: only a review judges, and only the paper's"
                                 " claims: verdict_words need a paper's claim and its review"
                                 % id)
        if quoted is not None:
            if not isinstance(quoted, str) or not quoted.strip():
                raise TypeError("claim %s: quoted must be the source's words, not %r"
                                % (id, quoted))
            if source == BY_SUITE:
                raise ValueError("claim %s: this suite's own finding quotes no source" % id)
        return super().__new__(cls, id, paper, where, statement, expected, check,
                               tuple(figures), source, by_default, verdict_words, quoted)

    @property
    def whose(self):
        """Whose statement this is, as a report labels it: a paper's claim
        that reaches us through its review is the review's wording of it;
        the statement of a source is this suite's paraphrase, and says so.

        >>> Claim("a.b", None, "", "", PASS, None, source=BY_SUITE).whose
        "This suite's own finding (stated by no paper or review)"
        >>> reviewed = Paper("T", ("A",), 2025, "2501.00001", "v2", "R")
        >>> Claim("a.b", reviewed, "", "", PASS, None).whose
        "The paper's claim as the review states it, in this suite's paraphrase"
        """
        if self.source == BY_SUITE:
            return "This suite's own finding (stated by no paper or review)"
        if self.source == BY_REVIEW:
            whose = "The review's own statement"
        elif self.paper is not None and self.paper.review is not None:
            whose = "The paper's claim as the review states it"
        else:
            whose = "The paper's claim"
        return whose + ", in this suite's paraphrase"

    @property
    def quoted_from(self):
        """Whose words ``quoted`` are: "review" where the paper reaches us
        through its review, else "paper".

        >>> Claim("a.b", Paper("T", ("A",), 2025, "2501.00001"), "", "", PASS, None).quoted_from
        'paper'
        """
        return BY_REVIEW if self.paper is not None and self.paper.review is not None else BY_PAPER

    @property
    def attribution(self):
        """Who states the claim and through which review, for a citation.

        >>> reviewed = Paper("T", ("A",), 2025, "2501.00001", "v2", "R")
        >>> print(Claim("a.b", reviewed, "", "", PASS, None).attribution)
        the paper's claim as the review "R" states it
        >>> Claim("a.b", reviewed, "", "", PASS, None, source=BY_SUITE).attribution
        "this suite's own finding"
        """
        if self.source == BY_SUITE:
            return "this suite's own finding"
        if self.source == BY_REVIEW:
            return 'stated by the review "%s"' % self.paper.review
        if self.paper is not None and self.paper.review is not None:
            return 'the paper\'s claim as the review "%s" states it' % self.paper.review
        return "the paper's claim"

    @property
    def expected_by(self):
        """Whose the expected verdict is: "review" where the review judges the
        paper's claim in words of its own (``verdict_words``), else "suite":
        a review's own statements it asserts, and gives no verdict.

        >>> reviewed = Paper("T", ("A",), 2025, "2501.00001", "v2", "R")
        >>> Claim("a.b", reviewed, "", "", FAIL, None, verdict_words="No.").expected_by
        'review'
        >>> Claim("a.b", reviewed, "", "", PASS, None, source=BY_REVIEW).expected_by
        'suite'
        """
        return BY_SUITE if self.verdict_words is None else BY_REVIEW

    @property
    def runs(self):
        """When the claim runs, as --list shows it: "default", or "--claim"
        for one that runs only when selected.

        >>> Claim("a.b", None, "", "", PASS, None).runs
        'default'
        """
        return "default" if self.by_default else "--claim"


def scope_line(claims):
    """What the reviews of the claims' papers say their own checks are, in
    their words, naming each review; None where no review says it.

    >>> reviewed = Paper("T", ("A",), 2025, "2501.00001", "v2", "R", "Checks only.")
    >>> print(scope_line([Claim("a.b", reviewed, "", "", PASS, None)]))
    The review "R" says of its checks: "Checks only."
    >>> scope_line([Claim("a.b", Paper("T", ("A",), 2025, "2501.00001"), "", "", PASS, None)])
    """
    said = dict.fromkeys((claim.paper.review, claim.paper.scope) for claim in claims
                         if claim.paper is not None and claim.paper.scope is not None)
    if not said:
        return None
    return " ".join('The review "%s" says of its checks: "%s"' % pair for pair in said)


def _paper_of(claim_id):
    """The paper prefix of a claim id: "low-rank" for "low-rank.box"."""
    return claim_id.split(".", 1)[0]


def select(claims, ids):
    """The claims with the given ids or paper prefixes, in registry order;
    unknown ones raise.

    >>> made = [Claim(i, None, "", "", PASS, None) for i in ("a.x", "b.y", "a.z")]
    >>> [c.id for c in select(made, ["b.y", "a"])]
    ['a.x', 'b.y', 'a.z']
    """
    known = {claim.id for claim in claims} | {_paper_of(claim.id) for claim in claims}
    unknown = [i for i in ids if i not in known]
    if unknown:
        raise InputError("unknown claim id or paper %s (see --list)"
                         % ", ".join(map(shown_name, unknown)))
    wanted = set(ids)
    return [claim for claim in claims
            if claim.id in wanted or _paper_of(claim.id) in wanted]


def default_claims(claims):
    """The claims a run without --claim runs: all but those that run only
    when selected.

    >>> made = [Claim("a.x", None, "", "", PASS, None),
    ...         Claim("a.y", None, "", "", PASS, None, by_default=False)]
    >>> [c.id for c in default_claims(made)]
    ['a.x']
    """
    return [claim for claim in claims if claim.by_default]


def run(claims):
    """Run each claim's check; a list of Results in the same order."""
    results = []
    for claim in claims:
        outcome = claim.check()
        if outcome.verdict not in VERDICTS:
            raise RuntimeError("claim %s returned verdict %r" % (claim.id, outcome.verdict))
        results.append(Result(claim, outcome))
    return results


def float_row(label, value, exact):
    """Evidence row: the float (repr), its exact value, the distance in ulp.

    >>> from decimal import Decimal
    >>> float_row("p", 0.1, Decimal(1) / 10).value
    '0.1 (exact 0.1; 0.40 ulp)'
    """
    shown = decimal.Context(prec=_SHOWN_DIGITS).plus(decimal.Decimal(exact))
    return Row(label, "%r (exact %s; %.2f ulp)"
               % (value, shown, ulp_distance(value, exact)))


def written(x):
    """A number as a person writes it in a label: 750, 745.2, 1e6, 1e-5.

    >>> [written(x) for x in (750, 745.2, 1e6, 2.5e6, -1e6, 1e-5, 0.0)]
    ['750', '745.2', '1e6', '2.5e6', '-1e6', '1e-5', '0']
    """
    # repr first: the float's shortest form, not its exact binary value.
    value = decimal.Decimal(repr(x) if isinstance(x, float) else x)
    if value.is_zero():
        return "0"
    if value == value.to_integral_value() and abs(value) < _PLAIN_BELOW:
        return str(int(value))
    if _PLAIN_FROM <= abs(value) < _PLAIN_BELOW:
        return str(value.normalize())
    return format(value.normalize(), "e").replace("e+", "e")


# Written out in full between these; past them, a power of ten (1e6, 1e-5).
_PLAIN_FROM = decimal.Decimal("1e-4")
_PLAIN_BELOW = 100000
