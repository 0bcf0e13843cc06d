"""tools/exercise: the book's exercises, checked on your own files.

usage:
  tools/exercise list [NN]              the exercises, with where your file is and its state
  tools/exercise start [NN]             copy the starter files into exercises/NN_topic/, never
                                        overwriting a file that is there
  tools/exercise check [NN[.K]]         build your files against the exercises' tests and say,
                                        per exercise, whether it passes; if not, each failing
                                        test with its first failing check, and the hint for
                                        the mistake those failures point to
  tools/exercise watch [NN[.K]]         check again on every save, until Ctrl-C
  tools/exercise hint NN.K              the exercise's hint
  tools/exercise solution NN.K [--give-up]
                                        the reference solution, once your file passes (or when
                                        you give up)
  tools/exercise mistakes [NN[.K]]      for authors: build every catalogued mistake, and say
                                        whether the tests catch it and their first message
                                        names it

Without NN, every chapter's exercises. Your files are exercises/NN_topic/K_name.cpp in this
clone (git ignores them). The build goes to ./build (BUILD_DIR overrides); the first check
builds the library too (FIRST_CHECK_SECONDS below, measured from a fresh clone to the first
verdict on two idle cores), and says so, and how far it has got, that first time only.
"""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time

from litgrad_book import ROOT, exercises, mistakes, reader

WORKSPACE = os.path.join(ROOT, "exercises")
BUILD = os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"))
SHOWN_PER_TEST = 5  # lines of a failing test's first failing check


def mine(e):
    """The reader's own file for exercise e."""
    return os.path.join(WORKSPACE, e.chapter, e.name + ".cpp")


def target(e):
    """The build's target that compiles the exercise's tests against the reader's file."""
    return f"exercise_{e.number:02d}_{e.index}_reader"


def passed_stamp(e):
    return os.path.join(BUILD, "exercises", f"{e.label}.passed")


def content(*paths):
    """A hash of the files' content: what a stamp of a passed check records."""
    digest = hashlib.sha256()
    for path in paths:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def passes_as_it_is(e):
    """Whether the reader's file, as it is now, is the one that last passed (against the
    tests as they are now): the stamp records the content, not a time."""
    if not os.path.exists(mine(e)) or not os.path.exists(passed_stamp(e)):
        return False
    try:
        with open(passed_stamp(e), encoding="utf-8") as f:
            return json.load(f).get("content") == content(mine(e), e.spec)
    except ValueError:
        return False


def select(which):
    """The exercises that NN or NN.K (8, 08, 8.2, 08.2) names; all of them for None."""
    skipped = []
    try:
        chosen = exercises.select(exercises.all_exercises(ROOT, skipped), which)
    except ValueError as e:
        sys.exit(f"tools/exercise: {e}" + "".join(f"\n  (left out, its file does not read: {s})" for s in skipped))
    for s in skipped:  # another exercise's file laid out wrong must not stop this one
        print(f"tools/exercise: left out an exercise whose file does not read: {s}", file=sys.stderr)
    return chosen


def rel(path):
    return os.path.relpath(path, os.getcwd())


def start(which):
    for e in select(which):
        os.makedirs(os.path.dirname(mine(e)), exist_ok=True)
        if os.path.exists(mine(e)):
            print(f"  kept     {rel(mine(e))} (yours already)")
        else:
            shutil.copyfile(e.starter, mine(e))
            print(f"  started  {rel(mine(e))}  {e.label} · {e.title}")
    print("Edit those files, then: tools/exercise check" + (f" {which}" if which else ""))


def run(command, **kw):
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, **kw)


def install(task):
    """Installs the Debian packages ``task`` needs (tools/install-deps), if any is missing."""
    if subprocess.run([os.path.join(ROOT, "tools", "install-deps"), task]).returncode != 0:
        sys.exit("tools/exercise: could not install the Debian packages the build needs")


def passing():
    """The exercises whose reader's files pass as they are now: the pieces of the reader's own
    GPT that later exercises use instead of the reference solutions."""
    return [e.label for e in exercises.all_exercises(ROOT, []) if passes_as_it_is(e)]


configured_with = None  # the passing pieces the build was last configured with


def listed(labels):
    """08.1, 08.2 and 09.2."""
    return labels[0] if len(labels) == 1 else ", ".join(labels[:-1]) + " and " + labels[-1]


def configure():
    """(Re)configures the build so that it knows the reader's files, and which of them later
    exercises may use; quiet unless it fails."""
    global configured_with
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        print(f"Configuring the build in {rel(BUILD)} (once)...", flush=True)
    configured_with = passing()
    done = run(["cmake", "-S", ROOT, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release",
                f"-DLITGRAD_EXERCISE_YOURS={';'.join(configured_with)}"])
    if done.returncode != 0:
        sys.exit("tools/exercise: CMake could not configure the build:\n" + done.stdout[-3000:] + done.stderr[-3000:])


PROGRESS = re.compile(r"^\[\s*(\d+)%\]\s+(?:Building \w+ object .*?/([^/]+?)\.o|Linking \w+ \w+ .*?(\S+)$)")


# A fresh clone's first check, from `tools/exercise check` to its verdict, on two idle cores
# (configure, the library and one exercise's tests, measured when the first check came to
# build only those, 2a5bdc6).
FIRST_CHECK_SECONDS = 36


def build(targets, what):
    """Builds ``targets``; (ok, output). A build that takes a while (the library, the first
    time) says what it is doing, with its progress, rather than sitting silent."""
    command = ["cmake", "--build", BUILD, "--parallel", str(os.cpu_count() or 1), "--target", *targets]
    started, shown, lines, decile = time.time(), False, [], -1
    first = not os.path.exists(os.path.join(BUILD, "lib", "liblitgrad.a"))
    tty = sys.stdout.isatty()
    with subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as p:
        for line in p.stdout:
            lines.append(line)
            m = PROGRESS.match(line)
            if not m or time.time() - started < 3:
                continue
            if not shown:
                print(f"Building {what}" + (f" and, this first time, the library (about {FIRST_CHECK_SECONDS} s"
                                            " from a fresh clone to the first verdict on two idle cores)"
                                            if first else "") + "...", flush=True)
                shown = True
            step = f"   {m.group(1):>3}%  {m.group(2) or m.group(3)}"
            if tty:
                print("\r" + step.ljust(70)[:70], end="", flush=True)
            elif int(m.group(1)) // 10 != decile:
                decile = int(m.group(1)) // 10
                print(step, flush=True)
    if shown:
        print(("\r" if tty else "") + f"   built in {time.time() - started:.0f} s".ljust(70), flush=True)
    return p.returncode == 0, "".join(lines)


def compile_errors(output, path):
    """The compiler's messages about the reader's file, as it printed them (at most 25 lines)."""
    lines = output.splitlines()
    start = next((i for i, l in enumerate(lines) if path in l and ("error" in l or "warning" in l)), None)
    if start is None:
        return "\n".join(lines[-25:])
    shown = [l for l in lines[start:] if not l.startswith(("gmake", "make", "[", "ninja"))]
    return "\n".join(shown[:25])


ASSERTION = re.compile(r"^(?:CHECK|REQUIRE|WARN)\w*\( (.*) \)(?: is NOT correct!)?$")
COMPARISON = re.compile(r" (==|!=|<=|>=|<|>) ")


def failure_lines(failure):
    """A failing test's first failing check as a learner reads it: what was compared with the
    values it had (or just the values a helper wrote out), then the messages; no doctest
    boilerplate, and nothing for a bare CHECK( false ) whose message says it all."""
    lines = list(failure.lines)
    out = []
    expression = ASSERTION.match(lines[0]) if lines else None
    values = ASSERTION.match(lines[1][len("values: "):]) if len(lines) > 1 and lines[1].startswith("values: ") \
        else None
    if expression and values:
        shown = values.group(1)
        if shown not in ("false", "true"):
            out.append(f"{expression.group(1)}:  {shown}" if COMPARISON.search(expression.group(1)) else shown)
        lines = lines[2:]
    for line in lines:
        line = line[len("logged:"):].strip() if line.startswith("logged:") else line
        if line:  # an INFO with nothing to say prints an empty "logged:"
            out.append(line)
    return out[:SHOWN_PER_TEST]


def pointed_to(e, failures):
    """The catalogued mistakes the failing tests' messages name, most often named first."""
    try:
        catalogue = mistakes.for_exercise(e)
    except mistakes.CatalogueError:
        return []
    counts = []
    for m in catalogue:
        hits = [i for i, f in enumerate(failures) if mistakes.names(f.text, m["name"])]
        if hits:
            counts.append((-len(hits), hits[0], m))
    return [m for _, _, m in sorted(counts, key=lambda c: (c[0], c[1]))]


def wrap(text, indent):
    return textwrap.fill(" ".join(text.split()), 88, initial_indent=indent, subsequent_indent=indent)


def check_one(e, quiet=False):
    """Builds and runs one exercise against the reader's file; prints a verdict; True if it passed."""
    head = f"{e.label} · {e.title}"
    if not os.path.exists(mine(e)):
        print(f"·  {head}: not started (tools/exercise start {e.label.split('.')[0]})")
        return False
    if e.uses and configured_with != passing():
        configure()  # an earlier piece passed (or stopped passing) since the build learnt
    if e.uses:
        yours = [label for label in e.uses if label in configured_with]
        theirs = [label for label in e.uses if label not in configured_with]
        said = ([f"your {listed(yours)}"] if yours else []) + \
            ([f"the reference {listed(theirs)} until yours pass{'es' if len(theirs) == 1 else ''}"]
             if theirs else [])
        print(f"   ({e.label} calls {'; '.join(said)})")
    ok, output = build([target(e)], f"{e.label}'s tests with your file")
    if not ok:
        if "No rule to make target" in output or "unknown target" in output:
            print(f"✗  {head}: the build does not know {rel(mine(e))} yet; run the check again")
            return False
        print(f"✗  {head}: {rel(mine(e))} does not compile:")
        print("   " + compile_errors(output, mine(e)).replace("\n", "\n   "))
        return False
    program = os.path.join(BUILD, "chapters", "exercises", target(e))
    try:
        ran = run([program, "--no-version", "--no-colors", "--no-intro"], timeout=120)
    except subprocess.TimeoutExpired:
        print(f"✗  {head}: the tests did not finish in 120 s (an endless loop?)")
        return False
    result = exercises.report(ran.stdout)
    if ran.returncode == 0 and result.summary:
        os.makedirs(os.path.dirname(passed_stamp(e)), exist_ok=True)
        with open(passed_stamp(e), "w", encoding="utf-8") as f:
            json.dump({"content": content(mine(e), e.spec)}, f)
        print(f"✓  {head}: passed ({result.summary[0]} tests)")
        return True
    if result.summary is None:
        print(f"✗  {head}: the tests stopped before the end (exit status {ran.returncode}; a crash?):")
        print("   " + (ran.stdout + ran.stderr).strip()[-1500:].replace("\n", "\n   "))
        return False
    total, _, failed = result.summary
    print(f"✗  {head}: {failed} of {total} tests fail")
    for f in result.failures:
        print(f"   ✗ {f.test}")
        for line in failure_lines(f):
            print(f"       {line}")
    suspects = pointed_to(e, result.failures)
    if suspects:
        best = suspects[0]
        others = f" (or: {'; '.join(m['name'] for m in suspects[1:3])})" if len(suspects) > 1 else ""
        print(f"   These failures point to a mistake learners make: {best['name']}{others}.")
        print(wrap("Hint: " + exercises.plain(best["hint"]), "   "))
    elif not quiet:
        print(f"   (tools/exercise hint {e.label} prints the exercise's hint)")
    return False


def check(which, quiet=False):
    chosen = select(which)
    configure()
    passed = sum(check_one(e, quiet) for e in chosen)
    print(f"{passed} of {len(chosen)} exercises pass.")
    return passed == len(chosen)


def snapshot(chosen):
    return {mine(e): os.path.getmtime(mine(e)) for e in chosen if os.path.exists(mine(e))}


def watch(which):
    chosen = select(which)
    folders = sorted({os.path.dirname(mine(e)) for e in chosen})
    inotify = shutil.which("inotifywait")
    print(f"Watching {', '.join(rel(f) for f in folders)}; Ctrl-C stops." + ("" if inotify else " (polling)"))
    try:
        while True:
            check(which, quiet=True)
            before = snapshot(chosen)
            if inotify and all(os.path.isdir(f) for f in folders):
                subprocess.run([inotify, "-qq", "-e", "close_write,moved_to,create", *folders])
            else:
                while snapshot(chosen) == before:
                    time.sleep(1)
            print(f"\n--- changed, checking again ({time.strftime('%H:%M:%S')})")
    except KeyboardInterrupt:
        print("\nStopped watching.")


def hint(which):
    for e in select(which):
        print(f"{e.label} · {e.title}: hint\n")
        print(exercises.plain(e.hint()) or "(this exercise has no hint)")


def solution(which, give_up):
    chosen = select(which)
    if len(chosen) != 1:
        sys.exit("tools/exercise: ask for one exercise's solution, as: tools/exercise solution 08.2")
    e = chosen[0]
    solved = passes_as_it_is(e)
    if not solved and not give_up:
        print(f"{e.label} · {e.title}: its solution shows once your file passes "
              f"(tools/exercise check {e.label}), or with --give-up.")
        if os.path.exists(mine(e)):
            install("build")
            configure()
            solved = check_one(e, quiet=True)
        if not solved:
            return False
    print(f"{e.label} · {e.title}: the reference solution ({rel(e.solution)})\n")
    with open(e.solution, encoding="utf-8") as f:
        print(f.read())
    return True


def list_exercises(which):
    for e in select(which):
        if passes_as_it_is(e):
            state = "passed"
        elif os.path.exists(mine(e)):
            state = "started" + (", changed since it passed" if os.path.exists(passed_stamp(e)) else "")
        else:
            state = "not started"
        print(f"{e.label} · {e.title}  [{state}]  {rel(mine(e))}")


def judge_mistakes(which):
    """For authors: builds each catalogued mistake of the chosen exercises, judges it as the
    CTest test does, and prints the catch rate and the share whose first message names it."""
    chosen = select(which)
    configure()
    found = []  # (exercise, mistake, target)
    for e in chosen:
        for k, m in enumerate(mistakes.for_exercise(e), 1):
            found.append((e, m, f"exercise_{e.number:02d}_{e.index}_mistake_{k}"))
    if not found:
        print("No catalogued mistakes there.")
        return True
    ok, output = build([t for _, _, t in found], f"{len(found)} catalogued mistakes")
    if not ok:
        print(output[-3000:])
        sys.exit("tools/exercise: the mistakes did not build")
    caught = named = 0
    for e, m, t in found:
        with open(e.solution, encoding="utf-8") as f:
            count = mistakes.occurrences(m, f.read())
        program = os.path.join(BUILD, "chapters", "exercises", t)
        if count != 1:
            verdict = {"caught": False, "named": False, "why": "stale: its text is not in the solution once"}
        else:
            done = run([program, "--no-version", "--no-colors", "--no-intro"], timeout=120)
            verdict = mistakes.judge_output(m, done.stdout + done.stderr, done.returncode)
        caught += verdict["caught"]
        named += verdict["named"]
        mark = "✓" if verdict["caught"] else "✗"
        print(f"{mark} {e.label} {m['name']}: {'named' if verdict['named'] else 'NOT named'}; {verdict['why']}")
        if verdict["caught"] and not verdict["named"]:
            print("     first message: " + " | ".join(verdict["first"].splitlines()[:4]))
    print(f"{caught} of {len(found)} catalogued mistakes caught ({caught / len(found):.0%}); the first failing "
          f"message names the mistake for {named} ({named / len(found):.0%}).")
    missing = [e.label for e in chosen if not mistakes.for_exercise(e)]
    if missing:
        print(f"Exercises without catalogued mistakes: {', '.join(missing)}")
    return caught == len(found)


def arguments(argv):
    """The command line, read: verb, which (or None) and give_up. Exits with usage on a wrong one."""
    parser = argparse.ArgumentParser(prog="tools/exercise", description=__doc__.strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter, usage=argparse.SUPPRESS)
    parser.add_argument("verb", choices=["list", "start", "check", "watch", "hint", "solution", "mistakes", "help"],
                        metavar="COMMAND")
    parser.add_argument("which", nargs="?", default=None, metavar="NN[.K]")
    parser.add_argument("--give-up", action="store_true", help="the solution without passing first")
    args = parser.parse_args(argv)
    if args.verb in ("hint", "solution") and (args.which is None or "." not in args.which):
        parser.exit(2, f"tools/exercise: {args.verb} for one exercise, as: tools/exercise {args.verb} 08.2\n")
    if args.give_up and args.verb != "solution":
        parser.exit(2, "tools/exercise: --give-up goes with solution\n")
    return args, parser


def main(argv):
    args, parser = arguments(argv)
    if args.verb == "help":
        parser.print_help()
        return 0
    which = args.which
    if args.verb == "start":
        start(which)
    elif args.verb == "check":
        install("build")
        return 0 if check(which) else 1
    elif args.verb == "watch":
        install("exercise")
        watch(which)
    elif args.verb == "hint":
        hint(which)
    elif args.verb == "solution":
        return 0 if solution(which, args.give_up) else 1
    elif args.verb == "list":
        list_exercises(which)
    elif args.verb == "mistakes":
        install("build")
        return 0 if judge_mistakes(which) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
