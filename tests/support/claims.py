"""The reviewed claims' checks run at most once per test process.

A default run checks every claim for a second or more; the tests that need
a whole run's report share one run of each check, and render it through
the command as a run from scratch would.

    run_once        reviews.claims.run, each reviewed claim's check run once
    in_process_once the command in this process, its claims from run_once
"""

import io
from unittest import mock

from reviews.claims import run
from reviews.cli import main, suite
from reviews.papers import all_claims

# id(claim) -> (claim, its Result), for the reviewed claims (module constants).
_RESULTS = {}


def run_once(claims):
    """The Results of ``claims`` in order, as reviews.claims.run gives them; a
    reviewed claim's check runs only the first time it is asked for."""
    reviewed = {id(claim) for claim in all_claims()}
    missing = [claim for claim in claims if id(claim) not in _RESULTS]
    fresh = {id(claim): result for claim, result in zip(missing, run(missing))}
    for claim in missing:
        if id(claim) in reviewed:
            _RESULTS[id(claim)] = (claim, fresh[id(claim)])
    return [_RESULTS[id(claim)][1] if id(claim) in _RESULTS else fresh[id(claim)]
            for claim in claims]


def in_process_once(*arguments):
    """(status, stdout, stderr) of the command run in this process, its
    reviewed claims checked once for every test that asks."""
    out, err = io.StringIO(), io.StringIO()
    with mock.patch.object(suite, "run", run_once):
        status = main(list(arguments), out, err)
    return status, out.getvalue(), err.getvalue()
