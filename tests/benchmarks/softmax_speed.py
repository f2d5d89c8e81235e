"""Time softmax and log_softmax beside the textbook formula in pure Python.

    python tests/benchmarks/softmax_speed.py [--quick] [--against FILE]

Prints microseconds per element for n = 2, 10, 100, 1000 and 100000 logits
of three kinds (Gaussian, wide, ties), the textbook formula's time on the
same vectors, the ratio, and how many of the vectors needed the decimal
slow path.  The textbook formula is the usual shifted one:

    m = max(z); e = [exp(x - m) for x in z]; s = sum(e); [x / s for x in e]
    m + log(sum(exp(x - m) for x in z)), subtracted from each z_i

``--against FILE`` also times another ``softmax.py`` (an earlier release's,
say: ``git show 890a096:reviews/softmax.py > /tmp/old_softmax.py``),
loaded under another name beside this one, so that both are timed in turn
on the same vectors: on a busy machine only such interleaved minima
compare.  The columns are then the textbook formula, this softmax, the
other one, and the ratio of this one to the textbook formula.
"""

import importlib.util
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
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    from reviews import softmax as module
    from reviews.rounded.fallback import slow_path_runs
    other = None
    if "--against" in argv:
        spec = importlib.util.spec_from_file_location(
            "earlier_softmax", argv[argv.index("--against") + 1])
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
    elements = ELEMENTS // 10 if quick else ELEMENTS
    repeats = 3 if quick else 7
    print("Python %s; microseconds per element, best of %d interleaved runs"
          % (platform.python_version(), repeats))
    print("%7s %6s | %8s %8s %8s %6s | %8s %8s %8s %6s | %s"
          % ("n", "kind", "textbook", "softmax", "other", "ratio", "textbook", "log_sm",
             "other", "ratio", "slow path (vectors)"))
    for n in SIZES:
        for kind in ("gauss", "wide", "ties"):
            rng = random.Random("%d %s %d" % (SEED, kind, n))
            count = max(1, elements // n)
            batch = vectors(kind, n, count, rng)
            functions = [textbook_softmax, module.softmax, textbook_log_softmax,
                         module.log_softmax]
            if other is not None:
                functions += [other.softmax, other.log_softmax]
            best = [math.inf] * len(functions)
            slow = [0, 0]
            for run in range(repeats):
                for k, function in enumerate(functions):
                    mark = slow_path_runs()
                    best[k] = min(best[k], per_element(function, batch, 1))
                    if run == 0 and k in (1, 3):
                        slow[k // 2] = slow_path_runs() - mark
            mine = (best[4], best[5]) if other is not None else (math.nan, math.nan)
            print("%7d %6s | %8.3f %8.3f %8.3f %5.1fx | %8.3f %8.3f %8.3f %5.1fx | %d + %d of %d"
                  % (n, kind, best[0], best[1], mine[0], best[1] / best[0],
                     best[2], best[3], mine[1], best[3] / best[2], slow[0], slow[1], count))


if __name__ == "__main__":
    main(sys.argv[1:])
