"""The chapter runner: runs one chapter for the book and holds it to its time budget.

usage: python3 -m litgrad_book.runner CHAPTER_PROGRAM CHAPTER_SOURCE OUT_DIR
           (--calibration CALIBRATION_PROGRAM | --plain)
       (the docs target runs it so, for every chapter, with tools/ on PYTHONPATH)

Runs ``CHAPTER_PROGRAM --emit OUT_DIR`` (its account, claims and figure data), passing its
output through, and writes ``OUT_DIR.run.json``: the run's wall time and the processor time it
used (on one thread, as tools/test runs it with LITGRAD_THREADS=1, both are one core's; on
more, the processor time is every thread's), and the chapter's budget. Fails
when a claim failed (the program's own exit status), or when the processor time exceeds the
budget that ``CHAPTER_SOURCE`` declares (10 s unless ``// %% budget:`` says more, with why).

A model the chapter keeps with ``book::train_once`` may have been trained before the run, by
another process of the same program (a claim run by CTest): the run then loads it in a moment.
Its training still counts: the processor seconds it took, which ``train_once`` wrote beside the
program, are added to the run's (``trained_earlier_seconds`` in the record).

A budget is seconds of one core of the reference machine (``REFERENCE``), and machines, even one
machine from hour to hour, differ. So the runner times a fixed piece of work,
``CALIBRATION_PROGRAM`` (calibration.cpp: matrix products with Eigen, not litgrad), three times,
when a chapter goes over its budget. Where the machine took longer for it than the reference
did, by a factor (the largest of its three sizes' ratios, each size's time the least of the
three, since the machine's noise only ever adds time), the budget grows by that factor; it
never shrinks. The record keeps the timings and the factor.

The budget keeps the book quick to prove; it is not a benchmark (tools/bench is). It holds the
fast kernels (lib/litgrad/kernels/room.hpp): with ``--plain`` (a build with LITGRAD_FAST=OFF,
whose kernels are written to be read and are held to the fast ones' bits, not their speed) the
time is recorded and shown, and not held to the budget.
"""
import json
import argparse
import os
import resource
import shutil
import subprocess
import sys
import time

from litgrad_book import reader

# The calibration's processor seconds for each of its sizes (24, 96 and 384), the least of six
# runs on an AMD EPYC core of the machines the book's CI runs on (2026-12-02), built -O3 for
# that core as the chapters are. A budget is seconds of such a core.
REFERENCE = (0.069, 0.047, 0.059)


def calibrate(program):
    """The calibration's processor seconds per size, from one run of ``program``."""
    out = subprocess.run([program], capture_output=True, text=True, check=True).stdout.split()
    return [float(x) for x in out[:len(REFERENCE)]]


def slowness(timings):
    """How many times longer than the reference this machine took, by the size it was slowest at
    (each size's time the least over ``timings``), and never less than 1."""
    least = [min(t[i] for t in timings) for i in range(len(REFERENCE))]
    return max(1.0, *(m / r for m, r in zip(least, REFERENCE)))


def program_key(program):
    """The key book::train_once names a program's files with: its bytes' FNV-1a hash, in hex."""
    h = 0xcbf29ce484222325
    with open(program, "rb") as f:
        for byte in f.read():
            h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return f"{h:016x}"


def trained_earlier_seconds(program):
    """The processor seconds of the models this build of ``program`` has trained and kept
    (``<program>.trained-<key>-<name>-seed<k>.seconds`` with its ``.record``, which is written
    last), which a run of it now loads instead of training."""
    program = os.path.abspath(program)
    stem = f"{program}.trained-{program_key(program)}-"
    folder = os.path.dirname(program)
    total = 0.0
    for name in sorted(os.listdir(folder)):
        path = os.path.join(folder, name)
        if path.startswith(stem) and name.endswith(".seconds") and os.path.exists(path[:-8] + ".record"):
            with open(path, encoding="utf-8") as f:
                total += float(f.read())
    return total


def unheld_claims(source, out):
    """A line ``path:line: the claim "..." FAILED`` (or "did not run") for each claim of the
    source that did not hold in the run that emitted into ``out``."""
    try:
        with open(os.path.join(out, "claims.json"), encoding="utf-8") as f:
            ran = {c["name"]: c["passed"] for c in json.load(f)}
    except (OSError, ValueError):
        ran = {}
    return [f"{source.path}:{c.line}: the claim \"{c.name}\" " + ("FAILED" if c.name in ran else "did not run")
            for c in source.claims if not ran.get(c.name)]


def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m litgrad_book.runner", description=__doc__.strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("program")
    parser.add_argument("source")
    parser.add_argument("out")
    room = parser.add_mutually_exclusive_group(required=True)
    room.add_argument("--plain", action="store_true", help="the plain room: no budget is held")
    room.add_argument("--calibration", metavar="PROGRAM", help="the calibration program the budget is scaled by")
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # a wrong command line: the usage is printed, and the status returned
        return e.code
    plain, calibration = args.plain, args.calibration
    program, source_path, out = args.program, args.source, args.out
    try:
        source = reader.read(source_path)
        budget, reason = reader.budget_seconds(source)
    except reader.SourceError as e:
        print(e, file=sys.stderr)
        return 1
    shutil.rmtree(out, ignore_errors=True)
    earlier = trained_earlier_seconds(program)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    status = subprocess.run([program, "--emit", out]).returncode
    wall = time.perf_counter() - start + earlier
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime) + earlier
    name = os.path.basename(out)
    unheld = unheld_claims(source, out)
    if status != 0 or unheld:
        for line in unheld:
            print(line, file=sys.stderr)
        print(f"{source_path}: exit status {status}; the book is built only from a run in which every "
              f"claim held (run {program} to see the account)", file=sys.stderr)
        return 1
    # Over its budget: is the machine slow today, or the chapter?
    timings = [calibrate(calibration) for _ in range(3)] if calibration and cpu > budget else []
    factor = slowness(timings) if timings else 1.0
    with open(out + ".run.json", "w", encoding="utf-8") as f:
        json.dump({"wall_seconds": wall, "cpu_seconds": cpu, "budget_seconds": budget, "reason": reason,
                   "trained_earlier_seconds": earlier, "calibration_seconds": timings,
                   "reference_calibration_seconds": list(REFERENCE), "machine_slowness": factor}, f)
    print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s of one core"
          + (f", {earlier:.2f} s of them training models an earlier process kept" if earlier else "")
          + f" (budget {budget:g} s"
          + (", which holds the fast kernels; these are the plain ones)" if plain else
             f"; this machine took {factor:.2f} times the reference's time for the calibration)"
             if timings else ")"))
    if cpu > budget * factor and not plain:
        print(f"{source_path}: its claims took {cpu:.1f} s of one core, over the chapter's budget of "
              f"{budget:g} s" + (f" times {factor:.2f}, the machine's slowness against the reference"
                                 if factor > 1 else "")
              + f" (calibration seconds per size {timings}, reference {list(REFERENCE)}; "
              f"docs/authoring.rst, 'Budgets')", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
