"""Time check_layer on the issue's seeded Gaussian layers, every certificate checked.

    python benchmarks/argmaxable_speed.py [REPEATS] [large]

Layers: C = 1000, d = 4 with bias, and C = 2000, d = 16 without bias, weights
and biases drawn from random.Random(0).gauss(0, 1); with "large", also
C = 5000, d = 64 and C = 10000, d = 32 without bias.  Each run decides every
class; the best and worst of REPEATS runs are reported, with the counts.
"""

import os
import platform
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from reviews.argmaxable import check_layer  # noqa: E402

LAYERS = ((1000, 4, True), (2000, 16, False))
LARGE_LAYERS = ((5000, 64, False), (10000, 32, False))


def gaussian_layer(classes, dim, bias, seed=0):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)


def main(argv):
    repeats = int(argv[0]) if argv else 3
    layers = LAYERS + (LARGE_LAYERS if "large" in argv[1:] else ())
    print("Python %s" % platform.python_version())
    for classes, dim, bias in layers:
        weights, biases = gaussian_layer(classes, dim, bias)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            results = check_layer(weights, biases)
            times.append(time.perf_counter() - start)
        unargmaxable = sum(not r.argmaxable for r in results)
        print("C = %d, d = %d, %s: %d unargmaxable, %d argmaxable; best %.2f s, worst %.2f s"
              % (classes, dim, "bias" if bias else "no bias", unargmaxable,
                 classes - unargmaxable, min(times), max(times)))


if __name__ == "__main__":
    main(sys.argv[1:])
