"""Measure the worst ulp error of softmax, log_softmax and logsumexp on seeded grids.

    python benchmarks/softmax_accuracy.py [VECTORS_PER_SEED] [SEEDS...]

Uses the test suite's grid (tests/test_softmax.py) with more seeds; every
coordinate is compared with the exact decimal reference (40 digits).
"""

import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tests.test_softmax import grid_vectors, worst_distances  # noqa: E402


def main(argv):
    size = int(argv[0]) if argv else 3000
    seeds = [int(s) for s in argv[1:]] or [20260, 1, 2, 3, 4]
    print("Python %s, %d vectors per seed, seeds %s" % (platform.python_version(), size, seeds))
    overall = {}
    start = time.perf_counter()
    for seed in seeds:
        worst = worst_distances(grid_vectors(seed, size))
        for name, value in worst.items():
            overall[name] = max(overall.get(name, value), value)
        print("seed %d: %s" % (seed, _shown(worst)))
    print("worst over %d vectors: %s (%.1f s)"
          % (size * len(seeds), _shown(overall), time.perf_counter() - start))


def _shown(worst):
    return ", ".join("%s %.3f ulp" % item for item in worst.items())


if __name__ == "__main__":
    main(sys.argv[1:])
