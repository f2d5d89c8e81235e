"""Time check_layer on input domains of high dimension, beside the same layer over R^d.

    time python tests/benchmarks/domain_speed.py [NAME ...] [--write DIR]

Each row builds a seeded head (random.Random, weights of a trained
classifier's size: N(0, 0.03^2), stored as float32; biases N(0, 0.01^2)),
decides every class on its domain (``--inputs``) and over R^d, one core
each, and prints the CPU seconds of both, their ratio, and the
unargmaxable classes.  Beside them, where numpy and scipy are installed
(never dependencies of the project), a float LP of the paper's kind in
the same run: for every class the largest ball of radius at most 1 in
its region on the domain (scipy.optimize.linprog, method "highs", the
ball's centre in the domain's bounds), a class argmaxable where the
radius exceeds 1e-8: its CPU seconds and the classes it calls
unargmaxable, in floats and without a proof.  The rows (NAME picks some; default all):

    mobilenet   30 x 1280 on [0, 6] (a MobileNetV2 head after ReLU6), two
                classes made unargmaxable there: a convex combination of
                three rows (weights 1/2, 1/4, 1/4) with a bias 0.01 below
                theirs, and a row below another in every coordinate
    small       4 x 1280 on x >= 0 (a 4-class head after a ReLU), class 3
                the mean of classes 0 and 1 less 0.001 to 0.003 in every
                coordinate, its bias their mean less 0.01: unargmaxable
                on x >= 0 only
    relu256     100 x 256 on x >= 0, three classes made unargmaxable
                there: the mean of two rows, with their biases' mean
                (tied with it everywhere: unargmaxable over R^d), and two rows each
                below another row in every coordinate by 0.01 to 0.03,
                bias 0.05 lower (unargmaxable on x >= 0 only)
    box256      the same layer on [0, 6]
    tanh512     50 x 512 on [-1, 1], a convex combination of three rows
                (weights 1/2, 1/4, 1/4) with a bias 0.01 below theirs
    sigmoid512  50 x 512 on [0, 1], two rows each below another

``--write DIR`` writes each row's layer as DIR/NAME.json instead, for the
command line:

    time python reviews/counterexamples.py check-layer DIR/mobilenet.json --inputs 0:6
"""

import argparse
import array
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reviews.argmax.check import check_layer  # noqa: E402
from tests.benchmarks.detector_speed import TOLERANCE, _float_libraries  # noqa: E402

_WEIGHT_SIGMA, _BIAS_SIGMA = 0.03, 0.01


def _float32(values):
    """The values rounded to float32, as a trained head stores them."""
    return list(array.array("f", values))


def head(classes, dim, seed):
    """(weights, bias): seeded Gaussian rows and biases of a trained head's size."""
    rng = random.Random(seed)
    weights = [_float32(rng.gauss(0, _WEIGHT_SIGMA) for _ in range(dim))
               for _ in range(classes)]
    return weights, _float32(rng.gauss(0, _BIAS_SIGMA) for _ in range(classes))


def with_combination(weights, bias, target, parents, below=0.0):
    """Row ``target`` made a convex combination of the rows ``parents``
    (weights 1/2, 1/4, ...: exact in floats), its bias the same
    combination's less ``below``: never the argmax anywhere (with
    ``below`` = 0, tied with the combination everywhere)."""
    shares = [0.5 ** (n + 1) for n in range(len(parents))]
    shares[-1] *= 2
    weights[target] = [sum(share * weights[p][k] for share, p in zip(shares, parents))
                       for k in range(len(weights[0]))]
    bias[target] = sum(share * bias[p] for share, p in zip(shares, parents)) - below


def with_dominated(weights, bias, target, parent, seed):
    """Row ``target`` below row ``parent`` in every coordinate (by 0.01 to
    0.03), its bias 0.05 lower: never the argmax where x >= 0."""
    rng = random.Random(seed)
    weights[target] = _float32(v - rng.uniform(0.01, 0.03) for v in weights[parent])
    bias[target] = bias[parent] - 0.05


def _mobilenet():
    weights, bias = head(30, 1280, 1)
    with_combination(weights, bias, 7, (3, 11, 19), below=0.01)
    with_dominated(weights, bias, 23, 5, 10)
    return weights, bias


def _small():
    weights, bias = head(4, 1280, 2)
    rng = random.Random(11)
    weights[3] = _float32((a + b) / 2 - rng.uniform(0.001, 0.003)
                          for a, b in zip(weights[0], weights[1]))
    bias[3] = (bias[0] + bias[1]) / 2 - 0.01
    return weights, bias


def _relu256():
    weights, bias = head(100, 256, 3)
    with_combination(weights, bias, 10, (20, 30))
    with_dominated(weights, bias, 40, 50, 4)
    with_dominated(weights, bias, 60, 70, 5)
    return weights, bias


def _tanh512():
    weights, bias = head(50, 512, 6)
    with_combination(weights, bias, 5, (1, 2, 3), below=0.01)
    return weights, bias


def _sigmoid512():
    weights, bias = head(50, 512, 7)
    with_dominated(weights, bias, 8, 9, 8)
    with_dominated(weights, bias, 18, 19, 9)
    return weights, bias


# name: (build, inputs, command-line inputs)
ROWS = {
    "mobilenet": (_mobilenet, (0, 6), "0:6"),
    "small": (_small, (0, None), "0:inf"),
    "relu256": (_relu256, (0, None), "0:inf"),
    "box256": (_relu256, (0, 6), "0:6"),
    "tanh512": (_tanh512, (-1, 1), "-1:1"),
    "sigmoid512": (_sigmoid512, (0, 1), "0:1"),
}


def float_lp(weights, bias, inputs):
    """The classes a float LP calls unargmaxable on the domain (module
    docstring), or None without numpy and scipy."""
    libraries = _float_libraries()
    if libraries is None:
        return None
    np, linprog = libraries
    W, B = np.array(weights, dtype=np.float64), np.array(bias, dtype=np.float64)
    bounds = [inputs] * W.shape[1] + [(None, 1)]
    c = np.zeros(W.shape[1] + 1)
    c[-1] = -1
    unargmaxable = []
    for i in range(len(W)):
        others = np.arange(len(W)) != i
        difference = W[others] - W[i]
        norms = np.sqrt((difference * difference).sum(axis=1))
        solved = linprog(c, A_ub=np.hstack([difference, norms[:, None]]), b_ub=B[i] - B[others],
                         bounds=bounds, method="highs")
        if not (solved.status == 0 and -solved.fun > TOLERANCE):
            unargmaxable.append(i)
    return unargmaxable


def _cpu_timed(function, *arguments, **keywords):
    start = time.process_time()
    result = function(*arguments, **keywords)
    return result, time.process_time() - start


def main(argv):
    parser = argparse.ArgumentParser(description="Time check_layer on input domains of high"
                                                 " dimension, beside the same layer over R^d.")
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help="rows to run (default all): %s" % ", ".join(ROWS))
    parser.add_argument("--write", metavar="DIR", help="write each row's layer as DIR/NAME.json")
    options = parser.parse_args(argv)
    unknown = [name for name in options.names if name not in ROWS]
    if unknown:
        parser.error("unknown row %r: the rows are %s" % (unknown[0], ", ".join(ROWS)))
    names, directory = options.names or list(ROWS), options.write
    if directory is not None:
        os.makedirs(directory, exist_ok=True)
        for name in names:
            weights, bias = ROWS[name][0]()
            path = os.path.join(directory, name + ".json")
            with open(path, "w") as file:
                json.dump({"weights": weights, "bias": bias}, file)
            print("time python reviews/counterexamples.py check-layer %s --inputs %s"
                  % (path, ROWS[name][2]))
        return
    _float_libraries()   # imported before any timing
    print("%-11s %5s %5s %-7s %9s %7s %6s %10s  %s"
          % ("row", "C", "d", "inputs", "inputs s", "R^d s", "ratio", "float LP s",
             "unargmaxable: inputs, R^d, float LP"))
    for name in names:
        build, inputs, shown = ROWS[name]
        weights, bias = build()
        on_inputs, inputs_time = _cpu_timed(check_layer, weights, bias, inputs=inputs)
        anywhere, anywhere_time = _cpu_timed(check_layer, weights, bias)
        floats, floats_time = _cpu_timed(float_lp, weights, bias, inputs)
        print("%-11s %5d %5d %-7s %9.2f %7.2f %6.1f %10s  %s, %s, %s" % (
            name, len(weights), len(weights[0]), shown, inputs_time, anywhere_time,
            inputs_time / anywhere_time, "-" if floats is None else "%.2f" % floats_time,
            [r.index for r in on_inputs if not r.argmaxable],
            [r.index for r in anywhere if not r.argmaxable], "-" if floats is None else floats),
            flush=True)

if __name__ == "__main__":
    main(sys.argv[1:])
