"""Review counterexamples: exact checks of claims made in research papers.

Run every check with ``python reviews/counterexamples.py``, ``python -m
reviews`` or the ``counterexamples`` command once installed.  The package,
one folder per layer, imports only going down:

    counterexamples   the script's entry point
    cli               the command line: the claims, check-layer, streams
    papers            one module of claims per reviewed paper; all_claims
    run               a check of a layer as one run: workers, checkpoint, merge
    report            renderers: text, markdown, JSON, HTML, SVG, progress
    claims            claims as data, and the runner
    record            a check-layer report as one record, read and written
    rounded           correctly rounded softmax and its exact reference
    argmax            exact argmaxability of a layer's classes, certified
    formats           reading a user's layer from its files
    exact, errors     exact conversions, the one error type, names shown

The public API, imported from here (``from reviews import check_layer``):

    softmax, log_softmax, logsumexp              accurate float softmax
    softmax_exact, log_softmax_exact,
    logsumexp_exact, ulp_distance                the exact decimal reference
    check_layer, iter_check_layer, verify,
    verify_all, ClassResult, Question, LayerNorm,
    RMSNorm, radii, region_count                 exact argmaxability
    LayerReport                                  a check-layer report, read and written
    read_layer, read_model                       a layer read from its files
    InputError                                   the one error type

Each name is loaded when first used, so ``import reviews`` costs nothing
more than this module, and a worker process loads only what it runs.

>>> from reviews import softmax
>>> softmax([0, 0])
[0.5, 0.5]
"""

import importlib

__version__ = "0.7.0"
# The name every report and checkpoint gives the suite, with its version.
SUITE_NAME = "review-counterexamples"

# Each public name and the module that defines it.
_HOMES = {
    "softmax": "reviews.rounded.functions",
    "log_softmax": "reviews.rounded.functions",
    "logsumexp": "reviews.rounded.functions",
    "softmax_exact": "reviews.rounded.functions",
    "log_softmax_exact": "reviews.rounded.functions",
    "logsumexp_exact": "reviews.rounded.functions",
    "ulp_distance": "reviews.rounded.functions",
    "check_layer": "reviews.argmax.check",
    "iter_check_layer": "reviews.argmax.check",
    "verify": "reviews.argmax.verify",
    "verify_all": "reviews.argmax.certified",
    "ClassResult": "reviews.argmax.result",
    "Question": "reviews.argmax.question",
    "LayerNorm": "reviews.argmax.question",
    "RMSNorm": "reviews.argmax.question",
    "LayerReport": "reviews.record",
    "radii": "reviews.argmax.tolerance",
    "region_count": "reviews.argmax.regions",
    "read_layer": "reviews.formats.layers",
    "read_model": "reviews.formats.layers",
    "InputError": "reviews.errors",
}

__all__ = list(_HOMES) + ["__version__"]


def __getattr__(name):
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError("module %r has no attribute %r" % (__name__, name))
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value   # loaded once: later lookups do not come here
    return value


def __dir__():
    return sorted(set(globals()) | set(_HOMES))
