"""Time check_layer on the issue's seeded Gaussian layers, every certificate checked.

    python benchmarks/argmaxable_speed.py [REPEATS] [large] [hard]

Layers: C = 1000, d = 4 with bias, and C = 2000, d = 16 without bias, weights
and biases drawn from random.Random(0).gauss(0, 1), then the first again with
inputs in the detector's box [-100, 100]^4 (box=100); with "large", also
C = 5000, d = 64 and C = 10000, d = 32 without bias; with "hard", the shapes
of issue 7: C = 5000, d = 1 without bias (almost every class needs a
combination), and three rows a, b, (a + b) / 2 in d = 800 (the exact
programs run on their 1-dimensional affine span).  Each run decides every
class; the best and worst of REPEATS runs are reported, with the counts.
"""

import os
import platform
import random
import sys
import time
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from reviews.argmaxable import check_layer  # noqa: E402

def gaussian_layer(classes, dim, bias, seed=0):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)


def midpoint_layer(classes, dim, bias, seed=0):
    """Two Gaussian rows and their exact midpoint (``classes`` is 3)."""
    weights, biases = gaussian_layer(2, dim, bias, seed)
    weights.append([(Fraction(p) + Fraction(q)) / 2 for p, q in zip(*weights)])
    return weights, biases and biases + [(Fraction(biases[0]) + Fraction(biases[1])) / 2]


# (build, C, d, bias, box)
LAYERS = ((gaussian_layer, 1000, 4, True, None), (gaussian_layer, 2000, 16, False, None),
          (gaussian_layer, 1000, 4, True, 100))
LARGE_LAYERS = ((gaussian_layer, 5000, 64, False, None), (gaussian_layer, 10000, 32, False, None))
HARD_LAYERS = ((gaussian_layer, 5000, 1, False, None), (midpoint_layer, 3, 800, False, None))


def main(argv):
    repeats = int(argv[0]) if argv else 3
    layers = (LAYERS + (LARGE_LAYERS if "large" in argv[1:] else ())
              + (HARD_LAYERS if "hard" in argv[1:] else ()))
    print("Python %s" % platform.python_version())
    for build, classes, dim, bias, box in layers:
        weights, biases = build(classes, dim, bias)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            results = check_layer(weights, biases, box=box)
            times.append(time.perf_counter() - start)
        unargmaxable = sum(not r.argmaxable for r in results)
        print("C = %d, d = %d, %s%s: %d unargmaxable, %d argmaxable; best %.2f s, worst %.2f s"
              % (classes, dim, "bias" if bias else "no bias",
                 ", box = %s" % box if box is not None else "", unargmaxable,
                 classes - unargmaxable, min(times), max(times)))


if __name__ == "__main__":
    main(sys.argv[1:])
