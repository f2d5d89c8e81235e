"""The cost of a head of today's size: a synthetic layer of Llama-3's shape.

    python tests/benchmarks/big_head.py write PATH [--dtype BF16|F16] [--classes C] [--dim D]
    python tests/benchmarks/big_head.py measure PATH [--sample N] [--jobs J]

``write`` writes a seeded ``lm_head.weight`` of C x D (default Llama-3's
128,256 x 4,096) as a .safetensors file of 16-bit floats: each entry's
high byte drawn from 256 quantiles of N(0, 0.02) (its sign and exponent),
its low byte uniform, so that magnitudes spread as a trained head's do
(about 1 GB, a few seconds to write).

``measure`` runs ``check-layer PATH --classes 0:N --jobs J --progress
--format json`` as a user would, reads the progress lines as they come
and samples the memory of the command and of each of its workers every
0.2 s (/proc: resident, proportional and private bytes).  It prints the
seconds to read the file and to prepare the layer, the seconds per class
and worker from the first class done to the last (the steady rate), the
CPU seconds of the command and its workers, the peaks, and the projected
time of the whole layer on one machine of 2, 16 and 64 cores: reading and
preparing once, then the classes shared by one worker a core.
"""

import argparse
import json
import os
import random
import re
import resource
import struct
import subprocess
import sys
import threading
import time
from statistics import NormalDist

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMMAND = [sys.executable, os.path.join(ROOT, "reviews", "counterexamples.py"), "check-layer"]
SEED = 20240315
_DONE = re.compile(r"^checked ([0-9,]+)/([0-9,]+) classes")


def _high_bytes(rng, dtype):
    """256 high bytes (sign and exponent) of 16-bit floats of N(0, 0.02) quantiles."""
    table = bytearray()
    for n in range(256):
        value = 0.02 * _normal_quantile((n + 0.5) / 256)
        if dtype == "BF16":
            bits = struct.unpack("<I", struct.pack("<f", value))[0] >> 16
        else:
            bits = struct.unpack("<H", struct.pack("<e", value))[0]
        table.append(bits >> 8)
    rng.shuffle(table)
    return bytes(table)


def _normal_quantile(p):
    return NormalDist().inv_cdf(p)


def write(path, dtype, classes, dim):
    rng = random.Random(SEED)
    table = _high_bytes(rng, dtype)
    size = classes * dim * 2
    header = json.dumps({"lm_head.weight": {"dtype": dtype, "shape": [classes, dim],
                                            "data_offsets": [0, size]}}).encode()
    header += b" " * (-len(header) % 8)
    row = bytearray(dim * 2)
    with open(path, "wb") as handle:
        handle.write(struct.pack("<Q", len(header)) + header)
        for _ in range(classes):
            drawn = rng.getrandbits(16 * dim).to_bytes(2 * dim, "little")
            row[0::2] = drawn[0::2]
            row[1::2] = drawn[1::2].translate(table)
            handle.write(row)


def _memory(pid):
    """(resident, proportional, private) bytes of process ``pid``, or None once it is gone."""
    try:
        with open("/proc/%d/smaps_rollup" % pid) as handle:
            fields = dict(line.split(":", 1) for line in handle if ":" in line)
    except OSError:
        return None
    kib = {key: int(value.split()[0]) * 1024 for key, value in fields.items()
           if value.strip().endswith("kB")}
    return (kib.get("Rss", 0), kib.get("Pss", 0),
            kib.get("Private_Clean", 0) + kib.get("Private_Dirty", 0))


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def _sample(process, peaks, stop):
    while not stop.is_set():
        for role, pid in [("command", process.pid)] + [("worker", p) for p in
                                                       _children(process.pid)]:
            found = _memory(pid)
            if found is not None:
                peak = peaks.setdefault(role, [0, 0, 0])
                peaks[role] = [max(a, b) for a, b in zip(peak, found)]
        stop.wait(0.2)


def measure(path, sample, jobs):
    command = COMMAND + [path, "--classes", "0:%d" % sample, "--jobs", str(jobs), "--progress",
                         "--format", "json", "--output", os.devnull]
    start = time.monotonic()
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    peaks, stop = {}, threading.Event()
    sampler = threading.Thread(target=_sample, args=(process, peaks, stop), daemon=True)
    sampler.start()
    marks = {}
    for line in process.stderr:
        now = time.monotonic() - start
        line = line.strip()
        print("%8.1f s  %s" % (now, line), flush=True)
        if line.startswith("preparing"):
            marks.setdefault("prepare", now)
        match = _DONE.match(line)
        if match:
            done = int(match.group(1).replace(",", ""))
            marks.setdefault("checking", now)
            if done:   # the steady rate: from the first class done, past the start-up
                marks.setdefault("first", (now, done))
                marks["last"] = (now, done)
    process.wait()
    end = time.monotonic() - start
    stop.set()
    sampler.join()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    marks["cpu"] = usage.ru_utime + usage.ru_stime
    return command, process.returncode, marks, end, peaks


def _report(path, sample, jobs, command, status, marks, end, peaks):
    with open(path, "rb") as handle:
        header = json.loads(handle.read(struct.unpack("<Q", handle.read(8))[0]))
    (classes, dim), = [entry["shape"] for entry in header.values()]
    read = marks.get("prepare", end)
    prepared = marks.get("checking", end)
    print("\ncommand: %s (exit %d)" % (" ".join(command), status))
    print("layer: %d x %d, %s" % (classes, dim, next(iter(header.values()))["dtype"]))
    print("reading: %.1f s; preparing: %.1f s; whole run %.1f s wall, %.1f s CPU (command"
          " and workers); load average at the end %.2f"
          % (read, prepared - read, end, marks["cpu"], os.getloadavg()[0]))
    rate = None
    if "first" in marks and marks["last"][1] > marks["first"][1]:
        (t0, n0), (t1, n1) = marks["first"], marks["last"]
        rate = (t1 - t0) * jobs / (n1 - n0)
        print("steady: %.2f s a class per worker (classes %d to %d)" % (rate, n0, n1))
    for role, (rss, pss, private) in sorted(peaks.items()):
        print("peak %s: resident %.0f MB, proportional %.0f MB, private %.0f MB"
              % (role, rss / 1e6, pss / 1e6, private / 1e6))
    if rate is not None:
        for cores in (2, 16, 64):
            hours = (prepared + rate * classes / cores) / 3600
            print("projected, one machine of %d cores: %.1f hours" % (cores, hours))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="action", required=True)
    writing = sub.add_parser("write")
    writing.add_argument("path")
    writing.add_argument("--dtype", choices=("BF16", "F16"), default="BF16")
    writing.add_argument("--classes", type=int, default=128256)
    writing.add_argument("--dim", type=int, default=4096)
    measuring = sub.add_parser("measure")
    measuring.add_argument("path")
    measuring.add_argument("--sample", type=int, default=16)
    measuring.add_argument("--jobs", type=int, default=2)
    arguments = parser.parse_args(argv)
    if arguments.action == "write":
        write(arguments.path, arguments.dtype, arguments.classes, arguments.dim)
    else:
        found = measure(arguments.path, arguments.sample, arguments.jobs)
        _report(arguments.path, arguments.sample, arguments.jobs, *found)


if __name__ == "__main__":
    main()
