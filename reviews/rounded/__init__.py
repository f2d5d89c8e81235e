"""Correctly rounded softmax, log_softmax and logsumexp, without libm.

The public functions are re-exported here, so ``from reviews.rounded import
softmax`` is all a caller needs.  The package's modules, each importing only
the ones below it:

    functions   the public functions (softmax, log_softmax, logsumexp,
                softmax_naive) and the exact decimal reference
                (softmax_exact, log_softmax_exact, logsumexp_exact,
                ulp_distance)
    kernels     the softmax loops over double-double terms; Ziv's
                rounding test decides almost every result there
    double_double  double-double exp and log kernels with proven error bounds
    fallback    the decimal fallback at rising precision, for the results
                the kernels leave open

>>> softmax([0, 0])
[0.5, 0.5]
"""

from reviews.rounded.functions import (
    MAX_DIGITS,
    REFERENCE_DIGITS,
    log_softmax,
    log_softmax_exact,
    logsumexp,
    logsumexp_exact,
    softmax,
    softmax_exact,
    softmax_naive,
    ulp_distance,
)

__all__ = [
    "softmax", "log_softmax", "logsumexp", "softmax_naive",
    "softmax_exact", "log_softmax_exact", "logsumexp_exact", "ulp_distance",
    "REFERENCE_DIGITS", "MAX_DIGITS",
]
