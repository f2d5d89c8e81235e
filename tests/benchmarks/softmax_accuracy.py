"""Check softmax, log_softmax and logsumexp against exact values on seeded grids.

    python tests/benchmarks/softmax_accuracy.py [VECTORS_PER_SEED] [SEEDS...]

Uses the test suite's grid (tests/rounded/test_functions.py) with more seeds.  Every
result is compared with the correctly rounded exact value (decimal at
rising precision, as the tests do): it prints how many differ (0 is the
guarantee), the worst distance in ulp from the 40-digit reference (at most
0.5), and how often the decimal slow path ran.
"""

import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reviews.rounded.fallback import slow_path_runs  # noqa: E402
from reviews.rounded import (  # noqa: E402
    log_softmax, logsumexp, logsumexp_exact, softmax, softmax_exact)
from tests.support.softmax import (  # noqa: E402
    correctly_rounded, grid_vectors, rounded_log_softmax, worst_distances)


def mismatches(vectors):
    """How many results differ from the correctly rounded exact values."""
    count = 0
    for z in vectors:
        count += sum(a != b for a, b in zip(softmax(z), correctly_rounded(softmax_exact, z)))
        count += sum(a != b for a, b in zip(log_softmax(z), rounded_log_softmax(z)))
        count += logsumexp(z) != correctly_rounded(logsumexp_exact, z)
    return count


def main(argv):
    size = int(argv[0]) if argv else 3000
    seeds = [int(s) for s in argv[1:]] or [20260, 1, 2, 3, 4]
    print("Python %s, %d vectors per seed, seeds %s" % (platform.python_version(), size, seeds))
    overall = {}
    start = time.perf_counter()
    wrong = 0
    for seed in seeds:
        before = slow_path_runs()
        worst = worst_distances(grid_vectors(seed, size))
        slow = slow_path_runs() - before
        for name, value in worst.items():
            overall[name] = max(overall.get(name, value), value)
        differ = mismatches(grid_vectors(seed, size))
        wrong += differ
        print("seed %d: %s; %d not correctly rounded; slow path %d times"
              % (seed, _shown(worst), differ, slow))
    print("worst over %d vectors: %s; %d not correctly rounded (%.1f s)"
          % (size * len(seeds), _shown(overall), wrong, time.perf_counter() - start))


def _shown(worst):
    return ", ".join("%s %.3f ulp" % item for item in worst.items())


if __name__ == "__main__":
    main(sys.argv[1:])
