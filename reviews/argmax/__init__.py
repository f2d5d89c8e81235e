"""Exact argmaxability of a softmax layer's classes, with certificates.

The geometry behind the low-rank review and ``check-layer``: which classes
of a layer (weights w_j, optional biases b_j) can be the strict argmax of
its logits, each answer proven by a certificate checked in exact
arithmetic.  It knows nothing about claims or papers.  From the entry
point down:

    check           check_layer, iter_check_layer: a layer validated,
                    reduced, split across workers, each class decided
    question        Question: the box, the tolerance and the inputs (an
                    interval, or a LayerNorm's or RMSNorm's outputs), as one value
    domain          inputs in [low, high]^d, moved to a box or the orthant
    normed          classes decided on a final norm's outputs (a ball)
    orthant         Orthant: the classes of a moved layer decided on y >= 0
    result          ClassResult, Checked: the decision for one class
    verify          verify: a certificate checked from scratch, exactly
    certified       verify_all: every certificate of a layer, read once
    tolerance       the tolerance question (a ball of radius above T, the
                    question of the released detector's linear program),
                    its certificates with the norms bounded exactly, and
                    each class's radius
    workers         worker processes: one job split into chunks, in order
    strategy/       the chain that decides one class: reflections,
                    candidates, the Braid-reflect search, the programs
                    (nearest point, linear program), span coordinates,
                    one-dimensional layers
    reductions/     masked classes and twins, settled before deciding
    kernels/        exact kernels: the layer's integers, packed logits,
                    witnesses, norms, the programs' arithmetic, p-adic
                    lifting, exact division
    released        the released detector's search rule (ties to the
                    lowest index), in exact arithmetic, for comparison
    regions         region_count, realized_rankings: how many rankings a
                    layer can produce
    planar          argmax regions and convex hulls of 2-D layers (figures)

Import the public functions from the package's face (``from reviews import
check_layer``) or from their module (``from reviews.argmax.check import
check_layer``); this package imports nothing itself, so that a worker
process loads only what it runs.
"""
