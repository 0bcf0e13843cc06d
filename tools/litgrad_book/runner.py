"""The chapter runner: runs one chapter for the book and holds it to its time budget.

usage: python3 -m litgrad_book.runner CHAPTER_PROGRAM CHAPTER_SOURCE OUT_DIR [--plain]
       (the docs target runs it so, for every chapter, with tools/ on PYTHONPATH)

Runs ``CHAPTER_PROGRAM --emit OUT_DIR`` (its account, claims and figure data), passing its
output through, and writes ``OUT_DIR.run.json``: the run's wall time and the processor time it
used (the chapter starts no threads, so both are one core's), and the chapter's budget. Fails
when a claim failed (the program's own exit status), or when the processor time exceeds the
budget that ``CHAPTER_SOURCE`` declares (10 s unless ``// %% budget:`` says more, with why).

A model the chapter keeps with ``book::train_once`` may have been trained before the run, by
another process of the same program (a claim run by CTest): the run then loads it in a moment.
Its training still counts: the processor seconds it took, which ``train_once`` wrote beside the
program, are added to the run's (``trained_earlier_seconds`` in the record).

The budget is the book's, not a benchmark: it keeps the book quick to prove, and it is far above
what a chapter needs, so the machine's speed of the day does not decide it. It holds the fast
kernels (lib/litgrad/kernels/room.hpp): with ``--plain`` (a build with LITGRAD_FAST=OFF, whose
kernels are written to be read and are held to the fast ones' bits, not their speed) the time is
recorded and shown, and not held to the budget.
"""
import json
import os
import resource
import shutil
import subprocess
import sys
import time

from litgrad_book import reader


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
    stem = f"{program}.trained-{program_key(program)}-"
    folder = os.path.dirname(os.path.abspath(program))
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
    plain = "--plain" in argv[3:]
    if len(argv) not in (3, 4) or (len(argv) == 4 and not plain):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    program, source_path, out = argv[:3]
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
    with open(out + ".run.json", "w", encoding="utf-8") as f:
        json.dump({"wall_seconds": wall, "cpu_seconds": cpu, "budget_seconds": budget, "reason": reason,
                   "trained_earlier_seconds": earlier}, f)
    print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s of one core"
          + (f", {earlier:.2f} s of them training models an earlier process kept" if earlier else "")
          + f" (budget {budget:g} s"
          + (", which holds the fast kernels; these are the plain ones)" if plain else ")"))
    if cpu > budget and not plain:
        print(f"{source_path}: its claims took {cpu:.1f} s of one core, over the chapter's budget of "
              f"{budget:g} s (docs/authoring.rst, 'Budgets')", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
