"""Runs: a check of a layer carried out as the command line asks, knowing
nothing of how it is parsed or rendered.

    layer     run_layer: a layer read, its classes decided by worker
              processes, kept in a checkpoint and resumed from it
    plan      the worker processes a run gets, and whether it gives radii
    resume    a checkpoint file: the classes decided so far, on disk
    shards    check-layer's JSON reports read back and joined
    merge     shards merged and checked against their layer where it is at hand
    compare   two reports of the same classes compared: the verdicts that differ

Import from the modules (``from reviews.run.layer import run_layer``);
this package imports nothing itself.
"""
