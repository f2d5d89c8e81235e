"""Time check_layer on seeded layers, every class decided exactly with its certificate.

    python tests/benchmarks/argmaxable_speed.py [REPEATS] [large] [realistic] [hard] [digits] [grid]
        [gpt2] [tolerance] [--jobs N] [--sample N]

Each row decides every class of a layer REPEATS times (default 3) with
``jobs`` worker processes (default 1) and prints the median and best wall
time, the median CPU time (this process and its workers: the machine may be
shared) and the counts.  Layers, weights and biases from
random.Random(0).gauss(0, 1):

    always   C = 1000, d = 4 with bias; C = 2000, d = 16; the first again in
             the detector's box [-100, 100]^4
    large    C = 5000, d = 64 and C = 10000, d = 32 without bias; C = 4000,
             d = 16 with bias; an embedding-like layer (C = 2000, d = 64):
             rows a shared mean plus Gaussian noise, their norms spread
             log-normally, so that short rows are the hard ones
    realistic  the shapes of real output layers: rows a * mu +
             noise sharing a unit direction mu, mean cosine 0.86 (C = 1000,
             d = 64; C = 2000, d = 128 with bias), 0.6 (C = 3000, d = 256
             with bias), 0.2 and 0.5 (C = 2000, d = 128; 0.5 also with
             bias), row norms log-normal; and Gaussian layers C = 5000,
             d = 64; C = 10000, d = 32; C = 8000, d = 256 with bias; C =
             3000, d = 4 with bias (tests/benchmarks/detector_speed.py
             times the paper's detector on the same layers)
    hard     C = 5000, d = 1 (almost every class needs a
             combination) and three rows a, b, (a + b) / 2 in d = 800
    digits   numbers of thousands of digits, which the decimal programs
             decide: C = 12, d = 3 with bias, each entry +-D.DDDeK (a
             Decimal, random.Random(1)) with K uniform in [-E, E], for
             E = 1000, 2000 and 3000 (at 5000 the layer is past the limit
             on widely spread layers, reviews.argmax.kernels.layer_input); and C = 40,
             d = 8 with bias for E = 300, within the float range
    grid     a small file with a large layer: the 16,384 points
             (i, i^2, j, j^2) for i, j from -64 to 63 (a 1,742-byte deflated
             int16 .npz holds them), on a product of two parabolas: every
             class argmaxable, none by x = w_i, so each needs the linear
             program
    gpt2     GPT-2's head shape, C = 50,257, d = 768 without bias: 300
             (or --sample N) seeded classes, each decided against all
             50,257, with --jobs N; the seconds per class (the sample's
             check less a check of its first class, which prepares the
             layer as every check does) and the full check projected from
             them: preparing once, then every class (the layer alone takes
             minutes to prepare and gigabytes of memory: the peak resident
             sizes are printed)
    tolerance  the cost of the detector's question on the first three layers:
             check_layer at T = 0, at T = 1e-8 (in the row's box; every
             class re-checked at T, the few whose witness does not clear it
             decided again), and the radii check-layer adds to T = 0's
             results (reviews.argmax.tolerance), each a median wall time
"""

import array
import os
import platform
import random
import resource
import statistics
import sys
import time
from decimal import Decimal
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reviews.argmax.check import check_layer  # noqa: E402
from reviews.argmax.tolerance import radii  # noqa: E402

GPT2_CLASSES, GPT2_DIM, GPT2_SAMPLE = 50257, 768, 300


def gaussian_layer(classes, dim, bias, seed=0):
    rng = random.Random(seed)
    weights = [[rng.gauss(0, 1) for _ in range(dim)] for _ in range(classes)]
    return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)


def gpt2_rows():
    """gaussian_layer(GPT2_CLASSES, GPT2_DIM, False)'s rows, as arrays of
    floats made a row at a time: 309 MB, where lists of floats take 1.2 GB."""
    rng = random.Random(0)
    return [array.array("d", [rng.gauss(0, 1) for _ in range(GPT2_DIM)])
            for _ in range(GPT2_CLASSES)]


def midpoint_layer(classes, dim, bias, seed=0):
    """Two Gaussian rows and their exact midpoint (``classes`` is 3)."""
    weights, biases = gaussian_layer(2, dim, bias, seed)
    weights.append([(Fraction(p) + Fraction(q)) / 2 for p, q in zip(*weights)])
    return weights, biases and biases + [(Fraction(biases[0]) + Fraction(biases[1])) / 2]


def embedding_layer(classes, dim, bias, seed=0):
    """Rows m + noise (|m| about half the noise's), rescaled to log-normal norms."""
    rng = random.Random(seed)
    mean = [rng.gauss(0, 0.5) for _ in range(dim)]
    weights = []
    for _ in range(classes):
        row = [m + rng.gauss(0, 1) for m in mean]
        scale = rng.lognormvariate(0, 0.5) / sum(v * v for v in row) ** 0.5
        weights.append([v * scale for v in row])
    return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)


embedding_layer.label = ", embedding-like"


def anisotropic_layer(cosine):
    """A build function for rows a * mu + noise sharing a unit direction mu.

    The noise is Gaussian of expected norm 1 and a = sqrt(cosine / (1 -
    cosine)), so two rows have a mean cosine of about ``cosine``; each row
    is then rescaled to a log-normal norm (sigma 0.5), as token frequency
    spreads the norms of real output layers.  The bias, if any, is N(0, 1).
    """
    def build(classes, dim, bias, seed=0):
        rng = random.Random(seed)
        mu = [rng.gauss(0, 1) for _ in range(dim)]
        size = sum(v * v for v in mu) ** 0.5
        a = (cosine / (1 - cosine)) ** 0.5
        direction = [a * v / size for v in mu]
        spread = dim ** -0.5
        weights = []
        for _ in range(classes):
            row = [m + rng.gauss(0, spread) for m in direction]
            scale = rng.lognormvariate(0, 0.5) / sum(v * v for v in row) ** 0.5
            weights.append([v * scale for v in row])
        return weights, ([rng.gauss(0, 1) for _ in range(classes)] if bias else None)
    build.label = ", shared direction, mean cosine %s, log-normal norms" % cosine
    return build


def digits_layer(exponent):
    """A build function for layers of Decimals with exponents up to +-``exponent``."""
    def build(classes, dim, bias, seed=1):
        rng = random.Random(seed)

        def number():
            return Decimal("%s%d.%de%d" % (rng.choice("-+"), rng.randint(1, 9),
                                          rng.randint(0, 999), rng.randint(-exponent, exponent)))
        weights = [[number() for _ in range(dim)] for _ in range(classes)]
        return weights, ([number() for _ in range(classes)] if bias else None)
    build.label = ", exponents to +-%d" % exponent
    return build


def grid_layer(classes, dim, bias, seed=None):
    """The (i, i^2, j, j^2) grid, i and j from -n/2 to n/2 - 1 (``classes`` = n^2, d = 4)."""
    side = int(round(classes ** 0.5))
    span = range(-(side // 2), side - side // 2)
    return [[i, i * i, j, j * j] for i in span for j in span], None


grid_layer.label = ", the (i, i^2, j, j^2) grid"


# (build, C, d, bias, box)
LAYERS = ((gaussian_layer, 1000, 4, True, None), (gaussian_layer, 2000, 16, False, None),
          (gaussian_layer, 1000, 4, True, 100))
LARGE_LAYERS = ((gaussian_layer, 5000, 64, False, None), (gaussian_layer, 10000, 32, False, None),
                (gaussian_layer, 4000, 16, True, None), (embedding_layer, 2000, 64, False, None))
# The table: rows sharing a direction, and Gaussian layers of its shapes.
REALISTIC_LAYERS = ((anisotropic_layer(0.86), 1000, 64, False, None),
                    (anisotropic_layer(0.86), 2000, 128, True, None),
                    (anisotropic_layer(0.6), 3000, 256, True, None),
                    (anisotropic_layer(0.2), 2000, 128, False, None),
                    (anisotropic_layer(0.5), 2000, 128, False, None),
                    (anisotropic_layer(0.5), 2000, 128, True, None),
                    (gaussian_layer, 5000, 64, False, None), (gaussian_layer, 10000, 32, False, None),
                    (gaussian_layer, 8000, 256, True, None), (gaussian_layer, 3000, 4, True, None))
HARD_LAYERS = ((gaussian_layer, 5000, 1, False, None), (midpoint_layer, 3, 800, False, None))
GRID_LAYERS = ((grid_layer, 16384, 4, False, None),)
DIGITS_LAYERS = tuple((digits_layer(exponent), 12, 3, True, None)
                      for exponent in (1000, 2000, 3000)) + ((digits_layer(300), 40, 8, True, None),)


def cpu_seconds():
    """CPU time of this process and of its finished workers."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def timed(function, *arguments, **keywords):
    cpu, wall = cpu_seconds(), time.perf_counter()
    result = function(*arguments, **keywords)
    return result, time.perf_counter() - wall, cpu_seconds() - cpu


def peak_megabytes(who):
    # ru_maxrss is in kilobytes on Linux, in bytes on macOS.
    size = resource.getrusage(who).ru_maxrss
    return size / (2 ** 20 if sys.platform == "darwin" else 2 ** 10)


def layer_name(build, classes, dim, bias, box):
    return "C = %d, d = %d, %s%s%s" % (classes, dim, "bias" if bias else "no bias",
                                       ", box = %s" % box if box is not None else "",
                                       getattr(build, "label", ""))


def gpt2_sample(size):
    """The seeded sample of GPT-2-shaped classes timed."""
    return sorted(random.Random(1).sample(range(GPT2_CLASSES), size))


def bench_layers(layers, repeats, jobs):
    print("| layer | unargmaxable | median wall | best wall | median CPU |")
    print("| --- | --- | --- | --- | --- |")
    for build, classes, dim, bias, box in layers:
        weights, biases = build(classes, dim, bias)
        walls, cpus = [], []
        for _ in range(repeats):
            results, wall, cpu = timed(check_layer, weights, biases, box=box, jobs=jobs)
            walls.append(wall)
            cpus.append(cpu)
        name = layer_name(build, classes, dim, bias, box)
        print("| %s | %d | %.2f s | %.2f s | %.2f s |"
              % (name, sum(not r.argmaxable for r in results), statistics.median(walls),
                 min(walls), statistics.median(cpus)))


def bench_tolerance(layers, repeats, jobs):
    detector = Fraction(1, 10 ** 8)
    print("| layer | T = 0 | T = 1e-8 | changed at 1e-8 | radii of T = 0 | listed thin |")
    print("| --- | --- | --- | --- | --- | --- |")
    for build, classes, dim, bias, box in layers:
        weights, biases = build(classes, dim, bias)
        plain, tolerant, found = [], [], []
        for _ in range(repeats):
            results, wall, _ = timed(check_layer, weights, biases, box=box, jobs=jobs)
            plain.append(wall)
            at, wall, _ = timed(check_layer, weights, biases, box=box, jobs=jobs,
                                tolerance=detector)
            tolerant.append(wall)
            radius, wall, _ = timed(radii, weights, biases, results)
            found.append(wall)
        print("| C = %d, d = %d, %s%s | %.2f s | %.2f s | %d | %.2f s | %d |" % (
            classes, dim, "bias" if bias else "no bias",
            ", box = %s" % box if box is not None else "", statistics.median(plain),
            statistics.median(tolerant),
            sum(p.argmaxable != t.argmaxable for p, t in zip(results, at)),
            statistics.median(found), sum(r is not None and r.exact for r in radius)))


def bench_gpt2(jobs, size):
    """Seconds per class of a GPT-2-shaped head, from a seeded sample of classes."""
    weights, wall, _ = timed(gpt2_rows)
    print("GPT-2 shape: layer of floats built in %.0f s" % wall)
    sample = gpt2_sample(size)
    # Each check prepares the layer first (minutes, once per run): a check
    # of one class measures that, and the sample's check the classes beside it.
    _, build, build_cpu = timed(check_layer, weights, None, jobs=jobs, classes=sample[:1])
    print("the layer prepared, and its first class decided, in %.0f s" % build)
    _, wall, cpu = timed(check_layer, weights, None, jobs=jobs, classes=sample)
    per_class, cpu_per_class = (wall - build) / (size - 1), (cpu - build_cpu) / (size - 1)
    full = build + per_class * GPT2_CLASSES
    print("| jobs | s per class (wall) | CPU per class | projected full check |")
    print("| --- | --- | --- | --- |")
    print("| %d | %.4f s | %.4f s | %.0f s (%.2f h) |"
          % (jobs, per_class, cpu_per_class, full, full / 3600))
    print("peak resident size: %.0f MB here, %.0f MB in the largest worker"
          % (peak_megabytes(resource.RUSAGE_SELF), peak_megabytes(resource.RUSAGE_CHILDREN)))


def main(argv):
    jobs, size = 1, GPT2_SAMPLE
    if "--jobs" in argv:
        at = argv.index("--jobs")
        jobs = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    if "--sample" in argv:
        at = argv.index("--sample")
        size = int(argv[at + 1])
        argv = argv[:at] + argv[at + 2:]
    repeats = int(argv[0]) if argv and argv[0].isdigit() else 3
    print("Python %s, %d CPUs, jobs = %d, %d runs per layer"
          % (platform.python_version(), os.cpu_count() or 1, jobs, repeats))
    layers = (LAYERS + (LARGE_LAYERS if "large" in argv else ())
              + (REALISTIC_LAYERS if "realistic" in argv else ())
              + (HARD_LAYERS if "hard" in argv else ())
              + (DIGITS_LAYERS if "digits" in argv else ())
              + (GRID_LAYERS if "grid" in argv else ()))
    bench_layers(layers, repeats, jobs)
    if "tolerance" in argv:
        bench_tolerance(LAYERS, repeats, jobs)
    if "gpt2" in argv:
        bench_gpt2(jobs, size)


if __name__ == "__main__":
    main(sys.argv[1:])
