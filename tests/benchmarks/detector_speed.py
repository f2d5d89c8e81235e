"""Time check_layer against the paper's float detector, one core each, interleaved.

    python tests/benchmarks/detector_speed.py [REPEATS] [gpt2] [--sample N] [--only K ...]

The detector is written here from the paper's description (arXiv
2203.06462, section 4): for every class, Braid reflect from x = w_i in
numpy (patience 100, all classes at once), then for the classes left the
Chebyshev-ball program with the input boxed to [-100, 100]^d through
scipy.optimize.linprog(method="highs"), a class argmaxable where the
radius exceeds 1e-8.  It answers in floats, without proofs; check_layer
(jobs = 1) decides every class exactly with a checked certificate.

Each layer of argmaxable_speed.py's ``realistic`` table (``--only K``
picks rows by number, from 0) is timed REPEATS times (default 3) on each
side, A B A B ..., each run in a fresh process with one BLAS thread
(OMP_NUM_THREADS=1 and the like), the time of the check alone (the layer
is built first, untimed); the median of each side and the median of the
runs' ratios ours / detector are printed: CPU seconds of the one process
(the machine may be shared; its wall time follows the load), then the
median wall times.  ``gpt2``: GPT-2's head shape
(C = 50,257, d = 768, no bias, seeded Gaussian) as a sample of N classes
(default 100) decided against all 50,257 on each side, the seconds per
class projected to the full check, with each side's peak resident size.

numpy and scipy are never dependencies of the project: without them this
script prints a line and exits 0.
"""

import json
import os
import platform
import random
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from tests.benchmarks import argmaxable_speed as speed  # noqa: E402

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
PATIENCE, BOX, TOLERANCE = 100, 100, 1e-8
GPT2_SAMPLE = 100


def _float_libraries():
    """(numpy, scipy's linprog), or None where they are not installed; only
    the detector's side imports them, so that they weigh nothing on ours."""
    try:
        import numpy
        from scipy.optimize import linprog
    except ImportError:
        return None
    return numpy, linprog


def braid(W, B, classes, patience):
    """The classes (of those asked about) that Braid reflection settles, in floats."""
    np, _ = _float_libraries()
    X = W[classes].copy()
    todo = np.asarray(classes)
    settled = []
    for _ in range(patience + 1):
        logits = X @ W.T + B
        top = logits.argmax(axis=1)
        won = top == todo
        settled += todo[won].tolist()
        X, todo, top = X[~won], todo[~won], top[~won]
        if not len(todo):
            break
        normal = W[todo] - W[top]
        size = (normal * normal).sum(axis=1)
        size[size == 0] = 1
        distance = ((normal * X).sum(axis=1) + B[todo] - B[top]) / size
        X = X - 2 * distance[:, None] * normal
    return settled


def chebyshev(W, B, i):
    """The paper's program for class i: the largest ball of radius r <= 1 in its region."""
    np, linprog = _float_libraries()
    others = np.arange(len(W)) != i
    difference = W[others] - W[i]
    norms = np.sqrt((difference * difference).sum(axis=1))
    A = np.hstack([difference, norms[:, None]])
    c = np.zeros(W.shape[1] + 1)
    c[-1] = -1
    bounds = [(-BOX, BOX)] * W.shape[1] + [(None, 1)]
    solved = linprog(c, A_ub=A, b_ub=B[i] - B[others], bounds=bounds, method="highs")
    return solved.status == 0 and -solved.fun > TOLERANCE


def detector_layer(weights, biases):
    np, _ = _float_libraries()
    W = np.array(weights, dtype=np.float64)
    return W, np.array(biases if biases else [0.0] * len(W), dtype=np.float64)


def detector(layer, classes):
    """The number of classes (of those asked about) the detector calls argmaxable."""
    W, B = layer
    settled = set()
    for start in range(0, len(classes), 256):
        settled.update(braid(W, B, classes[start:start + 256], PATIENCE))
    return len(settled) + sum(chebyshev(W, B, i) for i in classes if i not in settled)


def gpt2_detector_layer():
    """speed.gaussian_layer's GPT-2-shaped layer, built a row at a time
    into numpy, as the detector would read it, without a list of floats."""
    np, _ = _float_libraries()
    rng = random.Random(0)
    W = np.empty((speed.GPT2_CLASSES, speed.GPT2_DIM))
    for row in W:
        row[:] = [rng.gauss(0, 1) for _ in range(speed.GPT2_DIM)]
    return W, np.zeros(speed.GPT2_CLASSES)


def ours_layer(weights, biases):
    from reviews.argmax import check
    if weights is None:
        weights = speed.gpt2_rows()
    integer = check.integer_layer(weights, biases)
    return check._Decider(check._Plan(integer, check.Question(), check.Twins(*integer[:2])))


def ours(decider, classes):
    return sum(decider.finished(i).result.argmaxable for i in classes)


def child(side, row, sample):
    """One timed run in this process: prints a JSON line.

    A whole layer is timed from its floats to its answers; at GPT-2's
    shape the layer is built first (apart: ``build_seconds``), then the
    sampled classes are timed.
    """
    if row == "gpt2":
        weights = biases = None
        classes = speed.gpt2_sample(sample)
    else:
        build, size, dim, bias, box = speed.REALISTIC_LAYERS[int(row)]
        weights, biases = build(size, dim, bias)
        classes = list(range(size))
    # Imports are not timed.
    if side == "ours":
        from reviews.argmax.check import check_layer
    else:
        _float_libraries()
    start, cpu = time.perf_counter(), time.process_time()
    if side == "ours" and weights is not None:
        argmaxable = sum(r.argmaxable for r in check_layer(weights, biases, jobs=1))
        built, built_cpu = start, cpu
    else:
        if side == "ours":
            layer = ours_layer(weights, biases)
        else:
            layer = gpt2_detector_layer() if weights is None else detector_layer(weights, biases)
        built, built_cpu = time.perf_counter(), time.process_time()
        argmaxable = (ours if side == "ours" else detector)(layer, classes)
    end, end_cpu = time.perf_counter(), time.process_time()
    whole = weights is not None
    print(json.dumps({"seconds": end_cpu - (cpu if whole else built_cpu),
                      "wall_seconds": end - (start if whole else built),
                      "build_seconds": built_cpu - cpu, "argmaxable": argmaxable,
                      "classes": len(classes),
                      "peak_mb": speed.peak_megabytes(resource.RUSAGE_SELF)}))


def run(side, row, sample):
    environment = dict(os.environ, **{name: "1" for name in THREAD_VARIABLES})
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", side, str(row),
                           str(sample)], env=environment, capture_output=True, text=True,
                          check=True)
    return json.loads(done.stdout.splitlines()[-1])


def compare(row, repeats, sample):
    figures = {"ours": [], "detector": []}
    for _ in range(repeats):
        for side in ("ours", "detector"):
            figures[side].append(run(side, row, sample))
    seconds = {side: [f["seconds"] for f in runs] for side, runs in figures.items()}
    ratios = [a / b for a, b in zip(seconds["ours"], seconds["detector"])]
    return figures, seconds, ratios


def main(argv):
    if argv[:1] == ["--child"]:
        return child(argv[1], argv[2], int(argv[3]))
    libraries = _float_libraries()
    if libraries is None:
        print("numpy and scipy are not installed: the float detector is not timed")
        return
    numpy, scipy = libraries[0], sys.modules["scipy"]   # imported by _float_libraries
    repeats = int(argv[0]) if argv and argv[0].isdigit() else 3
    sample = int(argv[argv.index("--sample") + 1]) if "--sample" in argv else GPT2_SAMPLE
    only = [int(argv[n + 1]) for n, a in enumerate(argv) if a == "--only"]
    rows = only or ([] if "gpt2" in argv else range(len(speed.REALISTIC_LAYERS)))
    print("Python %s, numpy %s, scipy %s, %d CPUs, load average %.2f, %d runs a side, interleaved"
          % (platform.python_version(), numpy.__version__, scipy.__version__,
             os.cpu_count() or 1, os.getloadavg()[0], repeats))
    if rows:
        print("| layer | ours (CPU) | detector (CPU) | ours / detector | wall: ours, detector"
              " | argmaxable (ours, detector) |")
        print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        figures, seconds, ratios = compare(row, repeats, sample)
        walls = [statistics.median(f["wall_seconds"] for f in figures[side])
                 for side in ("ours", "detector")]
        print("| %s | %.2f s | %.2f s | %.2fx | %.2f s, %.2f s | %d, %d |"
              % (speed.layer_name(*speed.REALISTIC_LAYERS[row]),
                 statistics.median(seconds["ours"]), statistics.median(seconds["detector"]),
                 statistics.median(ratios), walls[0], walls[1], figures["ours"][0]["argmaxable"],
                 figures["detector"][0]["argmaxable"]), flush=True)
    if "gpt2" in argv:
        figures, seconds, ratios = compare("gpt2", repeats, sample)
        for side in ("ours", "detector"):
            per_class = statistics.median(seconds[side]) / sample
            build = statistics.median(f["build_seconds"] for f in figures[side])
            print("GPT-2 shape, %s: %.4f CPU s per class over %d classes, layer built in %.0f s,"
                  " full check projected at %.2f h, peak resident size %.0f MB"
                  % (side, per_class, sample, build,
                     (build + per_class * speed.GPT2_CLASSES) / 3600,
                     max(f["peak_mb"] for f in figures[side])))
        print("ours / detector per class: %.2fx (median of the runs' ratios)"
              % statistics.median(ratios))
    print("load average after: %.2f" % os.getloadavg()[0])


if __name__ == "__main__":
    main(sys.argv[1:])
