"""Review counterexamples: exact checks of claims made in research papers.

Run every check with ``python reviews/counterexamples.py`` (or the
``counterexamples`` command once installed).  Each reviewed paper is one
module in ``reviews.papers``.  The public API is re-exported by
``reviews.counterexamples``:

    softmax, log_softmax, logsumexp              accurate float softmax
    softmax_exact, log_softmax_exact,
    logsumexp_exact, ulp_distance                the exact decimal reference
    check_layer, verify, region_count            exact argmaxability
    InputError                                   the one error type
"""

__version__ = "0.2.0"
