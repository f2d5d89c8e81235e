"""Classes settled before any class is decided, the layer made smaller.

    reduction       the protocol of masks and twins: settle, keep, expand
    masked          classes masked by a bias of -inf
    twins           classes that share a weight row

This package imports nothing itself.
"""
