"""Time the default run, the whole command as a process, beside ``python -c pass``.

    python tests/benchmarks/default_run.py [RUNS] [--python PATH] [--no-claims] [--cached]
                                           [--vs FOLDER]

Runs ``PYTHON -c pass`` and ``PYTHON reviews/counterexamples.py`` (output
discarded) in turn, RUNS times each (default 7), and prints the best and
the median wall time of each and their ratio: the ratio is what the target
("the default run within 35x of python -c pass") is about, and timing the
two in turn keeps it fair on a busy machine.  The processes' CPU time (user
+ system, where the resource module exists) is printed too: on a machine
with more runnable processes than cores it varies far less than wall time.
Then, unless --no-claims, the best of RUNS in-process times of each claim's
check (this interpreter), slowest first, to show where the time goes: the
claims of the default run only (those that run only when selected take
seconds each, and are not part of it).  PYTHON is this interpreter
unless --python names another (say ~/.pyenv/versions/3.9.18/bin/python).

--vs FOLDER also runs FOLDER's reviews/counterexamples.py (another
checkout, say an earlier version unpacked with ``git archive``) in the same
turn as this one, from FOLDER, and prints the median of the paired ratios
this / that, of wall and of CPU time: side by side, so that a busy
machine's drift falls on both alike.

Bytecode: the processes run with this environment as it is.  Where
PYTHONDONTWRITEBYTECODE is set and the checkout has no __pycache__, every
run compiles the suite's modules (about 0.07 s on 3.11).  --cached runs
both commands as Python runs by default, its bytecode written once (in an
unmeasured first run) and then read: into a temporary folder
(PYTHONPYCACHEPREFIX), so that the checkout is left as it was.
"""

import math
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import resource
except ImportError:  # not on Windows
    resource = None


def _repository_root(folder):
    """The nearest folder above this script holding reviews/ (works from tests/benchmarks/ too)."""
    while not os.path.isfile(os.path.join(folder, "reviews", "counterexamples.py")):
        parent = os.path.dirname(folder)
        if parent == folder:
            sys.exit("cannot find reviews/counterexamples.py above %s" % __file__)
        folder = parent
    return folder


ROOT = _repository_root(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_RUNS = 7


def _children_cpu():
    if resource is None:
        return math.nan
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def process_time(command, env=None, folder=ROOT):
    """(wall seconds, CPU seconds) the command takes as a process run from
    ``folder``; it must exit 0."""
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=folder, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, env=env)
    times = time.perf_counter() - start, _children_cpu() - cpu
    if done.returncode != 0:
        sys.exit("%s exited %d: %s" % (" ".join(command), done.returncode,
                                       done.stderr.decode(errors="replace")[-300:]))
    return times


def time_processes(python, runs, env=None, other=None):
    """([(wall, cpu)] of python -c pass, [(wall, cpu)] of the default run,
    [(wall, cpu)] of the default run of the checkout ``other``, or [] without
    one), each run in turn.

    With ``env``, each command first runs once unmeasured (to write its bytecode).
    """
    script = os.path.join("reviews", "counterexamples.py")
    commands = [([python, "-c", "pass"], ROOT), ([python, script], ROOT)]
    if other is not None:
        commands.append(([python, script], other))
    if env is not None:
        for command, folder in commands:
            process_time(command, env, folder)
    times = [[] for _ in commands]
    for _ in range(runs):
        for (command, folder), measured in zip(commands, times):
            measured.append(process_time(command, env, folder))
    return times[0], times[1], times[2] if other is not None else []


def cached_environment(folder):
    """This environment, with bytecode written to and read from ``folder``."""
    env = dict(os.environ, PYTHONPYCACHEPREFIX=folder)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def time_claims(runs):
    """[(best seconds, claim id)] of each default claim's check in this process, slowest first."""
    sys.path.insert(0, ROOT)
    from reviews.claims import default_claims
    from reviews.papers import all_claims
    best = []
    for claim in default_claims(all_claims()):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            claim.check()
            times.append(time.perf_counter() - start)
        best.append((min(times), claim.id))
    return sorted(best, reverse=True)


def main(argv):
    runs, python, claims, cached, other = DEFAULT_RUNS, sys.executable, True, False, None
    arguments = iter(argv)
    for argument in arguments:
        if argument == "--python":
            python = next(arguments, None)
            if python is None:
                sys.exit("--python needs an interpreter's path")
        elif argument == "--vs":
            other = next(arguments, None)
            if other is None or not os.path.isfile(
                    os.path.join(other, "reviews", "counterexamples.py")):
                sys.exit("--vs needs a folder holding reviews/counterexamples.py")
            other = os.path.abspath(other)
        elif argument == "--no-claims":
            claims = False
        elif argument == "--cached":
            cached = True
        elif argument.isdigit() and int(argument) > 0:
            runs = int(argument)
        else:
            sys.exit(__doc__.strip().splitlines()[2].strip())
    version = subprocess.run([python, "-c", "import platform; print(platform.python_version())"],
                             capture_output=True, text=True).stdout.strip()
    print("Python %s (%s), %d runs each, load average %s"
          % (version, python, runs,
             " ".join("%.2f" % v for v in os.getloadavg()) if hasattr(os, "getloadavg")
             else "unknown"))
    if cached:
        print("bytecode: written once, then read (a temporary PYTHONPYCACHEPREFIX)")
        with tempfile.TemporaryDirectory() as folder:
            empty, default, versus = time_processes(python, runs, cached_environment(folder),
                                                    other)
    else:
        print("bytecode: as this environment has it (PYTHONDONTWRITEBYTECODE %s)"
              % ("set" if os.environ.get("PYTHONDONTWRITEBYTECODE") else "not set"))
        empty, default, versus = time_processes(python, runs, other=other)
    print("%-34s %8s %8s %8s %8s" % ("", "best", "median", "cpu best", "cpu med"))
    columns = []
    for label, times in (("python -c pass", empty),
                         ("python reviews/counterexamples.py", default)):
        wall, cpu = [t[0] for t in times], [t[1] for t in times]
        columns.append((min(wall), statistics.median(wall), min(cpu), statistics.median(cpu)))
        print("%-34s %7.3fs %7.3fs %7.3fs %7.3fs" % ((label,) + columns[-1]))
    print("%-34s %7.1fx %7.1fx %7.1fx %7.1fx"
          % (("ratio",) + tuple(b / a if a else math.inf for a, b in zip(*columns))))
    if other is not None:
        wall, cpu = [t[0] for t in versus], [t[1] for t in versus]
        print("%-34s %7.3fs %7.3fs %7.3fs %7.3fs" % (
            "the same, from --vs", min(wall), statistics.median(wall), min(cpu),
            statistics.median(cpu)))
        print("this / --vs, median of %d paired ratios: wall %.3f, cpu %.3f (--vs: %s)" % (
            runs, statistics.median(a[0] / b[0] for a, b in zip(default, versus)),
            statistics.median(a[1] / b[1] for a, b in zip(default, versus)), other))
    if claims:
        print("\nPer claim, best of %d in-process checks (Python %s):"
              % (runs, platform.python_version()))
        for seconds, claim_id in time_claims(runs):
            print("  %-40s %7.3fs" % (claim_id, seconds))


if __name__ == "__main__":
    main(sys.argv[1:])
