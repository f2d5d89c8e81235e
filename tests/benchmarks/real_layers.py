"""Time check_layer on trained output layers, beside the float detector's stages.

    python tests/benchmarks/real_layers.py [--layers DIR ...] [--only NAME ...] [--highs-limit S]

Each ``NAME.npz`` in the folders DIR (default reviews/data and
tests/data/real: the layers of trained models that their PROVENANCE.md
lists) holds ``weight`` (C x d) and perhaps ``bias``.  For each, in
fresh processes:

    ours, 1 job   check_layer(jobs=1): CPU seconds, the classes that reached
                  a program (the search left them), and the exact all-rival
                  checks (reviews.argmax.kernels.packed.Packed.beaten_by on the
                  whole layer) with the seconds spent in them;
    ours, 2 jobs  check_layer(jobs=2): wall seconds, CPU of this process and
                  its workers;
    Braid         the float first stage (numpy, patience 100, from x = w_i,
                  one BLAS thread): CPU seconds and the classes it settles;
    HiGHS         then the Chebyshev-ball program for the classes left
                  (tests/benchmarks/detector_speed.py: box [-100, 100]^d,
                  radius above 1e-8, scipy's HiGHS), stopped after
                  --highs-limit CPU seconds (default 1200): the classes it
                  decided, and the argmaxable ones.

Counts are compared where both sides finished.  numpy and scipy are never
dependencies of the project: without them the float columns say so.
"""

import json
import os
import platform
import resource
import subprocess
import sys
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from tests.benchmarks import detector_speed  # noqa: E402

DEFAULT_LAYERS = (os.path.join(ROOT, "reviews", "data"), os.path.join(ROOT, "tests", "data", "real"))
HIGHS_LIMIT = 1200


def _read(path):
    from reviews.formats.layers import read_model
    with zipfile.ZipFile(path) as archive:
        has_bias = "bias.npy" in archive.namelist()
    layer = read_model(path, None, tensor="weight", bias_tensor="bias" if has_bias else None)
    return layer.weights, layer.bias


def _ours(path, jobs):
    """One check in this process: a dict of figures."""
    from reviews.argmax import check
    from reviews.argmax.strategy import decide
    from reviews.argmax.kernels.packed import Packed
    weights, bias = _read(path)
    checks = {"count": 0, "seconds": 0.0}
    programs = set()
    beaten_by = Packed.beaten_by

    def counted(packed, i, candidate, wanted, handicap=0):
        if len(packed.rows) == len(weights):
            start = time.process_time()
            found = beaten_by(packed, i, candidate, wanted, handicap)
            checks["count"] += 1
            checks["seconds"] += time.process_time() - start
            return found
        return beaten_by(packed, i, candidate, wanted, handicap)

    def reached(stage):
        def wrapped(layer, i, *arguments, **keywords):
            programs.add(i)
            return stage(layer, i, *arguments, **keywords)
        return wrapped

    if jobs == 1:
        Packed.beaten_by = counted
        decide.nearest = reached(decide.nearest)
        decide.clarkson = reached(decide.clarkson)
    start, cpu = time.perf_counter(), time.process_time()
    results = check.check_layer(weights, bias, jobs=jobs)
    wall = time.perf_counter() - start
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"wall": wall, "cpu": time.process_time() - cpu + children.ru_utime + children.ru_stime,
            "classes": len(results), "dim": len(weights[0]), "bias": bias is not None,
            "unargmaxable": sum(not r.argmaxable for r in results),
            "programs": len(programs), "checks": checks["count"],
            "check_seconds": checks["seconds"]}


def _floats(path, limit):
    """The float stages in this process: a dict of figures, or None without numpy and scipy."""
    if detector_speed._float_libraries() is None:
        return None
    layer = detector_speed.detector_layer(*_read(path))
    W, B = layer
    classes = list(range(len(W)))
    start = time.process_time()
    settled = set()
    for first in range(0, len(classes), 256):
        settled.update(detector_speed.braid(W, B, classes[first:first + 256],
                                            detector_speed.PATIENCE))
    braid = time.process_time() - start
    left = [i for i in classes if i not in settled]
    decided = argmaxable = 0
    start = time.process_time()
    for i in left:
        if time.process_time() - start > limit:
            break
        argmaxable += detector_speed.chebyshev(W, B, i)
        decided += 1
    return {"braid": braid, "settled": len(settled), "left": len(left),
            "highs": time.process_time() - start, "highs_decided": decided,
            "highs_argmaxable": argmaxable,
            "unargmaxable": len(left) - argmaxable if decided == len(left) else None}


def _child(argv):
    kind, path = argv[0], argv[1]
    if kind == "ours":
        figures = _ours(path, int(argv[2]))
    else:
        figures = _floats(path, float(argv[2]))
    print(json.dumps(figures))


def _run(*arguments):
    environment = dict(os.environ, **{name: "1" for name in detector_speed.THREAD_VARIABLES})
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--child"]
                          + [str(a) for a in arguments], env=environment, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def main(argv):
    if argv[:1] == ["--child"]:
        return _child(argv[1:])
    folders = [argv[n + 1] for n, a in enumerate(argv) if a == "--layers"] or DEFAULT_LAYERS
    limit = float(argv[argv.index("--highs-limit") + 1]) if "--highs-limit" in argv else HIGHS_LIMIT
    only = [argv[n + 1] for n, a in enumerate(argv) if a == "--only"]
    paths = sorted(os.path.join(folder, name) for folder in folders
                   for name in os.listdir(folder) if name.endswith(".npz"))
    paths = [path for path in paths if not only or os.path.basename(path)[:-4] in only]
    libraries = detector_speed._float_libraries()
    print("Python %s, %d CPUs, load average %.2f; %s"
          % (platform.python_version(), os.cpu_count() or 1, os.getloadavg()[0],
             "numpy %s, scipy %s" % (libraries[0].__version__, sys.modules["scipy"].__version__)
             if libraries else "numpy and scipy not installed: no float columns"))
    print("| layer | unargmaxable | ours, 1 job (CPU) | reached a program | exact checks a class"
          " | in those checks | ours, 2 jobs (wall, CPU) | Braid (CPU, settled) | HiGHS on the"
          " rest (CPU, decided) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in paths:
        name = os.path.basename(path)[:-4]
        one, two = _run("ours", path, 1), _run("ours", path, 2)
        floats = _run("floats", path, limit) if libraries else None
        counts = "%d" % one["unargmaxable"]
        if floats and floats["unargmaxable"] is not None:
            counts += " (float pipeline: %d)" % floats["unargmaxable"]
        float_columns = "not timed | not timed"
        if floats:
            float_columns = "%.2f s, %d | %.0f s, %d of %d%s" % (
                floats["braid"], floats["settled"], floats["highs"], floats["highs_decided"],
                floats["left"], "" if floats["highs_decided"] == floats["left"]
                else " (stopped)")
        print("| %s, %d x %d%s | %s | %.1f s | %d | %.2f | %.1f s | %.1f s, %.1f s | %s |"
              % (name, one["classes"], one["dim"], " + bias" if one["bias"] else "", counts,
                 one["cpu"], one["programs"], one["checks"] / one["classes"],
                 one["check_seconds"], two["wall"], two["cpu"], float_columns), flush=True)
    print("load average after: %.2f" % os.getloadavg()[0])


if __name__ == "__main__":
    main(sys.argv[1:])
