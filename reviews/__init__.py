"""Review counterexamples: exact checks of claims made in research papers.

Run every check with ``python reviews/counterexamples.py`` (or the
``counterexamples`` command once installed).  The package, one folder per
layer, imports only going down:

    counterexamples   the command's entry point; re-exports the public API
    command           the subcommands: the claims, check-layer
    papers            one module of claims per reviewed paper; all_claims
    claims            claims as data, and the runner
    report            renderers: text, markdown, JSON, HTML, SVG, progress
    softmax           correctly rounded softmax and its exact reference
    argmax            exact argmaxability of a layer's classes, certified
    formats           reading a user's layer from its files
    exact, errors     exact conversions, and the one error type

The public API is re-exported by ``reviews.counterexamples``:

    softmax, log_softmax, logsumexp              accurate float softmax
    softmax_exact, log_softmax_exact,
    logsumexp_exact, ulp_distance                the exact decimal reference
    check_layer, verify, region_count            exact argmaxability
    InputError                                   the one error type
"""

__version__ = "0.3.0"
