"""Exact argmaxability of a softmax layer's classes, with certificates.

The geometry behind the low-rank review and ``check-layer``: which classes
of a layer (weights w_j, optional biases b_j) can be the strict argmax of
its logits, each answer proven by a certificate checked in exact
arithmetic.  It knows nothing about claims or papers.  The modules, from
the entry point down:

    check           check_layer, iter_check_layer: a layer validated,
                    reduced, split across workers, each class decided
    verify          verify: a certificate checked from scratch, exactly
    decide          the prepared layer, and the strategies that decide a class
    programs        the programs over a growing set of rivals (Clarkson):
                    the nearest point, the linear program
    braid           the paper's Braid-reflect search, and its reflections
    result          ClassResult, Checked: the decision for one class
    tolerance       the tolerance question (a ball of radius above T, the
                    question of the released detector's linear program),
                    its certificates with the norms bounded exactly, and
                    each class's radius
    norms           exact checks of margins against T times a norm
    certified       verify_all: every certificate of a layer, read once
    released        the released detector's search rule (ties to the
                    lowest index), in exact arithmetic, for comparison
    regions         region_count, realized_rankings: how many rankings a
                    layer can produce
    planar          argmax regions and convex hulls of 2-D layers (figures)
    workers         worker processes: one job split into chunks, in order
    span            exact coordinates on the span of the rows' differences
    candidates      a whitened candidate for rows sharing a direction
    feasibility     strict linear feasibility: floats, Decimals or exact
                    integers propose, exact checks decide
    reduction       the protocol of masks and twins: settle, keep, expand
    arithmetic      FLOATS, Decimals(n), EXACT: what a program computes in
    nearest         Wolfe's nearest point of a hull to the origin
    lifting         exact integer solutions by p-adic lifting
    packed          all logits at a candidate at once, exact in sign
    witness         a witness input as integers over one denominator,
                    read as its Fractions
    lines           one-dimensional layers: the upper envelope of lines
    twins           classes that share a weight row
    masked          classes masked by a bias of -inf
    layer_input     a layer's numbers validated and made exact integers
    exact_division  big-integer division known to be exact

Import the public functions from the package's face (``from reviews import
check_layer``) or from their module (``from reviews.argmax.check import
check_layer``); this package imports nothing itself, so that a worker
process loads only what it runs.
"""
