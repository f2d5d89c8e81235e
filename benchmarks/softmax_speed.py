"""Time softmax and log_softmax beside the textbook formula in pure Python.

    python benchmarks/softmax_speed.py [--quick] [--package-root DIR]

Prints microseconds per element for n = 2, 10, 100, 1000 and 100000 logits
of three kinds (Gaussian, wide, ties), the textbook formula's time on the
same vectors, the ratio, and how many of the vectors needed the decimal
slow path.  The textbook formula is the usual shifted one:

    m = max(z); e = [exp(x - m) for x in z]; s = sum(e); [x / s for x in e]
    m + log(sum(exp(x - m) for x in z)), subtracted from each z_i

``--package-root`` times the ``reviews`` package found in another folder
(an export of an earlier release, say) with the same vectors and seed.
"""

import math
import os
import platform
import random
import sys
import time

SIZES = (2, 10, 100, 1000, 100000)
SEED = 8
# Elements timed per measurement (spread over as many vectors as needed).
ELEMENTS = 200000


def textbook_softmax(z):
    m = max(z)
    e = [math.exp(x - m) for x in z]
    s = sum(e)
    return [x / s for x in e]


def textbook_log_softmax(z):
    m = max(z)
    lse = m + math.log(sum([math.exp(x - m) for x in z]))
    return [x - lse for x in z]


def vectors(kind, n, count, rng):
    """``count`` vectors of ``n`` logits: Gaussian, wide or with ties."""
    if kind == "gauss":
        return [[rng.gauss(0, 1) for _ in range(n)] for _ in range(count)]
    if kind == "wide":
        return [[rng.gauss(0, 100) for _ in range(n)] for _ in range(count)]
    levels = [rng.gauss(0, 3) for _ in range(4)]
    return [[rng.choice(levels) for _ in range(n)] for _ in range(count)]


def per_element(function, batch, repeats):
    """Best time per element, in microseconds, over ``repeats`` runs."""
    elements = sum(len(z) for z in batch)
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        for z in batch:
            function(z)
        best = min(best, time.perf_counter() - start)
    return best / elements * 1e6


def main(argv):
    quick = "--quick" in argv
    if "--package-root" in argv:
        root = argv[argv.index("--package-root") + 1]
    else:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.path.insert(0, root)
    from reviews import softmax as module
    try:
        from reviews.rounding import slow_path_runs
    except ImportError:
        def slow_path_runs():
            return 0
    elements = ELEMENTS // 10 if quick else ELEMENTS
    repeats = 2 if quick else 5
    print("Python %s, package from %s" % (platform.python_version(), root))
    print("%7s %6s | %9s %9s %6s | %9s %9s %6s | %s"
          % ("n", "kind", "textbook", "softmax", "ratio", "textbook", "log_sm", "ratio",
             "slow path (vectors)"))
    for n in SIZES:
        for kind in ("gauss", "wide", "ties"):
            rng = random.Random("%d %s %d" % (SEED, kind, n))
            count = max(1, elements // n)
            batch = vectors(kind, n, count, rng)
            base = per_element(textbook_softmax, batch, repeats)
            before = slow_path_runs()
            fast = per_element(module.softmax, batch, 1)
            slow_softmax = slow_path_runs() - before
            fast = min(fast, per_element(module.softmax, batch, repeats - 1 or 1))
            log_base = per_element(textbook_log_softmax, batch, repeats)
            before = slow_path_runs()
            log_fast = per_element(module.log_softmax, batch, 1)
            slow_log = slow_path_runs() - before
            log_fast = min(log_fast, per_element(module.log_softmax, batch, repeats - 1 or 1))
            print("%7d %6s | %9.3f %9.3f %5.1fx | %9.3f %9.3f %5.1fx | %d + %d of %d"
                  % (n, kind, base, fast, fast / base, log_base, log_fast, log_fast / log_base,
                     slow_softmax, slow_log, count))


if __name__ == "__main__":
    main(sys.argv[1:])
