"""tools/mutate: each catalogued bug is applied, the claims rerun, and which went red kept.

usage:
  tools/mutate [all|lib|NN] [--only NAME]   run the mutations of every catalogue, of the
                                            library's, or of chapter NN's; write the ledger
  tools/mutate --changed [lib|NN]           run only the mutations whose files changed since
                                            the ledger ran (of one catalogue, if named), then
                                            check (what CI runs)
  tools/mutate --check                      check the ledger as it is, running nothing
  ... --part K/N                            only every N-th of the selected mutations, from
                                            the K-th, so that N runs in N scratch trees (of
                                            N worktrees) share the work; merge their ledgers

The catalogues are tests/mutations/lib.toml and tests/mutations/NN_topic.toml: each mutation
a name, a file, the exact text and its replacement, and a sentence saying what bug it models
(and, for one that is expected to survive, the reason). Each is applied in a scratch copy of
the tree (build-mutate/src; your files are never touched), rebuilt incrementally in
build-mutate/build, and the programs its file can affect are run: a chapter's file reruns that
chapter's claims, an exercise's file its tests, any other file every test program and chapter.
The tests that went red are recorded, the file restored, and the results merged into
tests/mutations/ledger.json with the commit and the fingerprints of the code it ran on
(litgrad_book.fingerprint: comments, prose, layout and the claims' wording do not count, so
editing them reruns nothing; editing code reruns every mutation of that file and, for a
chapter, every mutation of the chapter's catalogue).

The check fails when a claim of a chapter is turned red by no mutation of its chapter's
catalogue, when an operation that records a backward has no killed mutation naming it, when a
mutation survives without a written reason, or when one is stale (its text is gone, checked in
the files as they are now), ambiguous (found more than once) or does not compile. It prints each chapter's and the library's score.
"""
import argparse
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree

from litgrad_book import ROOT, mutations, reader
from litgrad_book.fingerprint import of_file as fingerprint_of

LEDGER = mutations.ledger_path(ROOT)
WORK = os.path.join(ROOT, os.environ.get("MUTATE_DIR", "build-mutate"))
SRC, BUILD = os.path.join(WORK, "src"), os.path.join(WORK, "build")


def log(*args):
    print(*args, flush=True)


# ------------------------------------------------------------------------------------------
# The scratch copy and its build


def tracked_files():
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout.split("\n")
    return [f for f in out if f and os.path.isfile(os.path.join(ROOT, f))]


def same_bytes(a, b):
    with open(a, "rb") as fa, open(b, "rb") as fb:
        return fa.read() == fb.read()


def sync():
    """Makes build-mutate/src a copy of the working tree, copying only what differs, so that
    the scratch build stays incremental."""
    os.makedirs(SRC, exist_ok=True)
    wanted = set(tracked_files())
    for f in wanted:
        source, target = os.path.join(ROOT, f), os.path.join(SRC, f)
        if not os.path.exists(target) or not same_bytes(source, target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy(source, target)  # a new mtime: the build must see the file changed
    for folder, _, files in os.walk(SRC):
        for name in files:
            rel = os.path.relpath(os.path.join(folder, name), SRC)
            if rel not in wanted:
                os.remove(os.path.join(SRC, rel))


def build(targets=()):
    """Builds the scratch copy (only ``targets`` when given); returns (ok, output)."""
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        done = subprocess.run(["cmake", "-S", SRC, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            return False, done.stdout + done.stderr
    chosen = ["--target", *targets] if targets else []
    done = subprocess.run(["cmake", "--build", BUILD, "--parallel", str(os.cpu_count() or 1), *chosen],
                          capture_output=True, text=True)
    return done.returncode == 0, done.stdout + done.stderr


def programs_for(m, chapter_names):
    """The programs mutation m is judged by: (label, executable) pairs. A chapter's catalogue
    is about that chapter's claims, so its mutations rerun that chapter (and, for a file of an
    exercise, that exercise's tests); the library's rerun everything a library file can break."""
    rel = m["file"].replace(os.sep, "/")
    if m["catalogue"] != "lib" and not rel.startswith("chapters/exercises/"):
        return [(m["catalogue"], os.path.join(BUILD, "chapters", m["catalogue"]))]
    m = re.match(r"^chapters/(\d\d_[a-z0-9_]+)\.cpp$", rel)
    if m:
        return [(m.group(1), os.path.join(BUILD, "chapters", m.group(1)))]
    m = re.match(r"^chapters/exercises/(\d\d)_[a-z0-9_]+/(\d+)_", rel)
    if m:
        name = f"exercise_{m.group(1)}_{m.group(2)}_solution"
        return [(name, os.path.join(BUILD, "chapters", "exercises", name))]
    found = [("litgrad_tests", os.path.join(BUILD, "tests", "litgrad_tests"))]
    libtorch = os.path.join(BUILD, "tests", "litgrad_libtorch_tests")
    if os.path.exists(libtorch):
        found.append(("litgrad_libtorch_tests", libtorch))
    found += [(c, os.path.join(BUILD, "chapters", c)) for c in chapter_names]
    found += [(os.path.basename(p), p) for p in sorted(glob.glob(os.path.join(BUILD, "chapters", "exercises",
                                                                            "exercise_*_solution")))]
    return found


def red_tests(program, timeout):
    """The names of the test cases of ``program`` that failed, or None if it crashed or hung."""
    out = os.path.join(WORK, "results.xml")
    if os.path.exists(out):
        os.remove(out)
    try:
        # errors="replace": a mutated chapter may print bytes that are not UTF-8 (say, a
        # model's text cut inside a character); the verdict comes from the XML, not the text
        done = subprocess.run([program, "--reporters=xml", f"--out={out}", "--no-version"], capture_output=True,
                              text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    try:
        root = ElementTree.parse(out).getroot()
    except (ElementTree.ParseError, FileNotFoundError):
        return None
    red = []
    for case in root.iter("TestCase"):
        results = case.find("OverallResultsAsserts")
        if results is None:
            failed = False
        elif results.get("test_case_success") is not None:  # false also for should_fail cases that passed
            failed = results.get("test_case_success") == "false"
        else:
            failed = int(results.get("failures", "0")) > 0
        if failed or case.find("Exception") is not None:
            red.append(case.get("name"))
    if done.returncode != 0 and not red:
        return None
    return red


def run_programs(programs, timeouts):
    """{label: [red test names] or "crashed"}; each program run once, all its tests in one process."""
    results = {}
    for label, program in programs:
        red = red_tests(program, timeouts.get(label, 120))
        results[label] = "crashed" if red is None else red
    return results


# ------------------------------------------------------------------------------------------
# Running mutations


def apply(m):
    """Applies mutation m to the scratch copy; returns (status, original text or None)."""
    path = os.path.join(SRC, m["file"])
    if not os.path.exists(path):
        return "stale", None
    with open(path, encoding="utf-8") as f:
        text = f.read()
    count = text.count(m["find"])
    if count == 0:
        return "stale", None
    if count > 1:
        return "ambiguous", None
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(m["find"], m["replace"]))
    return "applied", text


def restore(m, original):
    with open(os.path.join(SRC, m["file"]), "w", encoding="utf-8") as f:
        f.write(original)


def does_not_compile(entry, output):
    entry["status"] = "does not compile"
    entry["compiler"] = "\n".join(l for l in output.splitlines() if "error" in l)[:2000]


def judge_in_turn(entry, programs, timeouts):
    """A library mutation is judged program by program, the library's tests first, each built
    only when its turn comes, and stops at the first that goes red: a library file reaches
    every program, and rebuilding and rerunning them all (a few hundred) for each mutation
    would make the catalogue take hours. Its ``red`` holds that first program's red tests."""
    for label, program in programs:
        ok, output = build([os.path.basename(program)])
        if not ok:
            return does_not_compile(entry, output)
        red = run_programs([(label, program)], timeouts)[label]
        if red:
            entry["red"] = {label: red}
            entry["status"] = "killed"
            return
    entry["status"] = "survived"


def run(selected, book):
    """Runs the mutations; returns {name: result}."""
    sync()
    log(f"Building the scratch copy in {os.path.relpath(BUILD, ROOT)} ...")
    ok, output = build()
    if not ok:
        sys.exit("tools/mutate: the unmutated tree does not build:\n" + output[-3000:])
    baseline, timeouts = {}, {}
    for m in selected:
        for label, program in programs_for(m, list(book)):
            if label in baseline:
                continue
            start = time.time()
            baseline[label] = run_programs([(label, program)], {label: 600})[label]
            timeouts[label] = max(60, 10 * (time.time() - start))
            if baseline[label]:
                sys.exit(f"tools/mutate: {label} is not green before any mutation: {baseline[label]}")
    results = {}
    for i, m in enumerate(selected, 1):
        start = time.time()
        status, original = apply(m)
        entry = {"catalogue": m["catalogue"], "file": m["file"], "status": status, "red": {}}
        if status == "applied":
            try:
                programs = programs_for(m, list(book))
                if m["catalogue"] == "lib":
                    judge_in_turn(entry, programs, timeouts)
                else:  # a chapter's catalogue: only its own programs need building
                    ok, output = build([os.path.basename(program) for _, program in programs])
                    if not ok:
                        does_not_compile(entry, output)
                    else:
                        red = run_programs(programs, timeouts)
                        entry["red"] = {k: v for k, v in red.items() if v}
                        entry["status"] = "killed" if entry["red"] else "survived"
            finally:
                restore(m, original)
        entry["seconds"] = round(time.time() - start, 1)
        results[m["key"]] = entry
        reds = sum(len(v) if isinstance(v, list) else 1 for v in entry["red"].values())
        log(f"[{i}/{len(selected)}] {entry['status']:>9}  {m['key']}  ({reds} red, {entry['seconds']} s)")
    build()  # leave the scratch build matching the tree
    return results


# ------------------------------------------------------------------------------------------
# The ledger and its check


def tree_state():
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()
    return head, bool(dirty)


def write_ledger(ledger, results, cats, book, seconds, state):
    """Merges the results into the ledger. ``state`` is the tree's (head, dirty) when the
    run copied it; the files' fingerprints, and the places of the red claims among their
    chapter's claims, are taken from that copy (build-mutate/src), not from the working tree,
    which may have changed while the run went on."""
    head, dirty = state
    by_name = {m["key"]: m for ms in cats.values() for m in ms}
    copied = mutations.chapters(SRC)  # the chapters as the run saw them
    for name, r in results.items():
        r["code"] = {f: fingerprint_of(os.path.join(SRC, f)) for f in mutations.depends_on(by_name[name], book, SRC)}
        m = by_name[name]
        if m["catalogue"] in copied:  # what outlives edits elsewhere in the chapter (reach.py)
            red = (r["red"] or {}).get(m["catalogue"]) or []
            record = mutations.reach_record(m, red, copied[m["catalogue"]], SRC)
            if not record and isinstance(red, list) and mutations.reach_of(m, SRC)[0] is not None:
                log(f"  {name}: a claim went red that litgrad_book.reach says cannot run the mutated code; "
                    f"the result counts the whole file")
            r.update(record)
        r["red_places"] = mutations.places_of(r["red"], copied)
        r["definition"] = mutations.definition(by_name[name])
        r["commit"] = head
    ledger["mutations"].update(results)
    ledger["mutations"] = {k: v for k, v in sorted(ledger["mutations"].items()) if k in by_name}
    for name in sorted({r["catalogue"] for r in results.values()}):
        ledger["runs"][name] = {"commit": head, "commit_had_changes": dirty,
                                "date": datetime.date.today().isoformat()}
    ledger["last_run"] = {"commit": head, "commit_had_changes": dirty, "date": datetime.date.today().isoformat(),
                          "mutations": len(results), "seconds": round(seconds)}
    ledger["scores"] = mutations.scores(ledger, cats)
    with open(LEDGER, "w", encoding="utf-8") as f:
        json.dump(ledger, f, indent=1, ensure_ascii=False)
        f.write("\n")


def check(ledger, cats, book):
    """Prints each catalogue's score, how many results are out of date and every problem
    (``mutations.problems``); True when there is none."""
    found = mutations.problems(ledger, cats, book, mutations.recorded_ops(ROOT), ROOT)
    for name, s in mutations.scores(ledger, cats).items():
        shown = "not run" if s["score"] is None else f"{s['score']:.0%}"
        log(f"  {name}: {s['killed']} of {s['mutations']} mutations killed, {s['survived']} survived; score {shown}")
    stale = mutations.out_of_date(ledger, cats, book, ROOT)
    if stale:
        log(f"  {len(stale)} mutations are out of date (their files changed since they ran)")
    for p in found:
        log(p)
    log(f"{len(found)} problems")
    return not found


def arguments(argv):
    parser = argparse.ArgumentParser(prog="tools/mutate", description=__doc__.strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter, usage=argparse.SUPPRESS)
    parser.add_argument("which", nargs="?", default=None, metavar="all|lib|NN")
    parser.add_argument("--check", action="store_true", help="check the ledger, running nothing")
    parser.add_argument("--changed", action="store_true", help="run only the mutations whose code changed")
    parser.add_argument("--only", metavar="NAME", help="run only the mutation of this name")
    parser.add_argument("--part", metavar="K/N", help="only every N-th of the selected mutations, from the K-th")
    args = parser.parse_args(argv)
    if args.part is not None:
        try:
            k, n = (int(x) for x in args.part.split("/"))
            assert 0 <= k < n
        except (ValueError, AssertionError):
            parser.exit(2, "tools/mutate: --part needs K/N with 0 <= K < N, e.g. --part 0/2\n")
        args.part = (k, n)
    return args


def main(argv):
    args = arguments(argv)
    try:
        cats, book = mutations.catalogues(ROOT), mutations.chapters(ROOT)
    except (mutations.CatalogueError, reader.SourceError) as e:
        sys.exit(f"tools/mutate: {e}")
    ledger = mutations.load_ledger(ROOT)
    if args.check:
        return 0 if check(ledger, cats, book) else 1
    if args.changed:
        stale = mutations.out_of_date(ledger, cats, book, ROOT)
        files = sorted({f for fs in stale.values() for f in fs})
        log(f"Changed since the ledger ran: {', '.join(files) or 'nothing'}: {len(stale)} mutations to rerun")
        selected = [m for ms in cats.values() for m in ms if m["key"] in stale]
        if args.which:  # one catalogue's only: lib, or a chapter's number
            want = "lib" if args.which == "lib" else args.which.zfill(2)
            selected = [m for m in selected if m["catalogue"] == want or m["catalogue"][:2] == want]
    else:
        which = args.which or "all"
        if which == "all":
            names = sorted(cats)
        elif which == "lib":
            names = ["lib"]
        else:
            names = [c for c in cats if c[:2] == which.zfill(2)]
            if not names:
                sys.exit(f"tools/mutate: no catalogue for chapter {which}; the catalogues: {', '.join(sorted(cats))}")
        selected = [m for n in names for m in cats[n] if args.only is None or m["name"] == args.only]
    if args.part is not None:
        selected = selected[args.part[0]::args.part[1]]
    if args.only is not None and not selected:
        sys.exit(f"tools/mutate: no mutation named {args.only!r} there")
    start = time.time()
    if selected:
        state = tree_state()  # before run() copies the tree
        results = run(selected, book)
        write_ledger(ledger, results, cats, book, time.time() - start, state)
        log(f"{len(selected)} mutations in {time.time() - start:.0f} s; the ledger: {os.path.relpath(LEDGER, ROOT)}")
    return 0 if check(mutations.load_ledger(ROOT), cats, book) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
