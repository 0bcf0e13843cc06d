"""tools/exercise: the book's exercises, checked on your own files.

usage:
  tools/exercise list [NN]              the exercises, with where your file is and its state
  tools/exercise start [NN]             copy the starter files into exercises/NN_topic/, never
                                        overwriting a file that is there
  tools/exercise check [NN[.K]]         build your files against the exercises' tests and say,
                                        per exercise, whether it passes; if not, the first
                                        failing expectation
  tools/exercise watch [NN[.K]]         check again on every save, until Ctrl-C
  tools/exercise hint NN.K              the exercise's hint
  tools/exercise solution NN.K [--give-up]
                                        the reference solution, once your file passes (or when
                                        you give up)

Without NN, every chapter's exercises. Your files are exercises/NN_topic/K_name.cpp in this
clone (git ignores them). The build goes to ./build (BUILD_DIR overrides); the first check
builds the library, which takes a minute.
"""
import os
import re
import shutil
import subprocess
import sys
import time

from litgrad_book import ROOT, exercises

WORKSPACE = os.path.join(ROOT, "exercises")
BUILD = os.path.join(ROOT, os.environ.get("BUILD_DIR", "build"))


def mine(e):
    """The reader's own file for exercise e."""
    return os.path.join(WORKSPACE, e.chapter, e.name + ".cpp")


def target(e):
    """The build's target that compiles the exercise's tests against the reader's file."""
    return f"exercise_{e.number:02d}_{e.index}_reader"


def passed_stamp(e):
    return os.path.join(BUILD, "exercises", f"{e.label}.passed")


def select(which):
    """The exercises that NN or NN.K (8, 08, 8.2, 08.2) names; all of them for None."""
    try:
        return exercises.select(exercises.all_exercises(ROOT), which)
    except ValueError as e:
        sys.exit(f"tools/exercise: {e}")


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


def configure():
    """(Re)configures the build so that it knows the reader's files; quiet unless it fails.
    Installs the Debian packages the build needs first, if any is missing."""
    if subprocess.run([os.path.join(ROOT, "tools", "install-deps"), "exercise"]).returncode != 0:
        sys.exit("tools/exercise: could not install the Debian packages the build needs")
    done = run(["cmake", "-S", ROOT, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release"])
    if done.returncode != 0:
        sys.exit("tools/exercise: CMake could not configure the build:\n" + done.stdout[-3000:] + done.stderr[-3000:])


def compile_errors(output, path):
    """The compiler's messages about the reader's file, as it printed them (at most 25 lines)."""
    lines = output.splitlines()
    start = next((i for i, l in enumerate(lines) if path in l and ("error" in l or "warning" in l)), None)
    if start is None:
        return "\n".join(lines[-25:])
    shown = [l for l in lines[start:] if not l.startswith(("gmake", "make", "[", "ninja"))]
    return "\n".join(shown[:25])


def check_one(e, quiet=False):
    """Builds and runs one exercise against the reader's file; prints a verdict; True if it passed."""
    head = f"{e.label} · {e.title}"
    if not os.path.exists(mine(e)):
        print(f"·  {head}: not started (tools/exercise start {e.label.split('.')[0]})")
        return False
    built = run(["cmake", "--build", BUILD, "--target", target(e), "--parallel", str(os.cpu_count() or 1)])
    if built.returncode != 0:
        if "No rule to make target" in built.stdout + built.stderr or "unknown target" in built.stderr:
            print(f"✗  {head}: the build does not know {rel(mine(e))} yet; run the check again")
            return False
        print(f"✗  {head}: {rel(mine(e))} does not compile:")
        print("   " + compile_errors(built.stdout + built.stderr, mine(e)).replace("\n", "\n   "))
        return False
    program = os.path.join(BUILD, "chapters", "exercises", target(e))
    try:
        ran = run([program, "--no-version", "--no-colors", "--no-intro"], timeout=120)
    except subprocess.TimeoutExpired:
        print(f"✗  {head}: the tests did not finish in 120 s (an endless loop?)")
        return False
    summary = re.search(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed", ran.stdout)
    if ran.returncode == 0 and summary:
        os.makedirs(os.path.dirname(passed_stamp(e)), exist_ok=True)
        with open(passed_stamp(e), "w") as f:
            f.write(str(os.path.getmtime(mine(e))))
        print(f"✓  {head}: passed ({summary.group(1)} tests)")
        return True
    if summary is None:
        print(f"✗  {head}: the tests stopped before the end (exit status {ran.returncode}):")
        print("   " + (ran.stdout + ran.stderr).strip()[-1500:].replace("\n", "\n   "))
        return False
    case, detail = exercises.first_failure(ran.stdout)
    print(f"✗  {head}: {summary.group(3)} of {summary.group(1)} tests fail; the first:")
    if case:
        print(f"   \"{case}\"")
    for line in detail:
        print(f"   {line}")
    if not quiet:
        print(f"   (tools/exercise hint {e.label} prints the hint)")
    return False


def check(which, quiet=False):
    chosen = select(which)
    if not os.path.exists(os.path.join(BUILD, "CMakeCache.txt")):
        print("Configuring the build (once)...")
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
    solved = os.path.exists(passed_stamp(e)) and os.path.exists(mine(e))
    if not solved and not give_up:
        print(f"{e.label} · {e.title}: its solution shows once your file passes "
              f"(tools/exercise check {e.label}), or with --give-up.")
        if os.path.exists(mine(e)):
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
        state = "passed" if os.path.exists(passed_stamp(e)) else "started" if os.path.exists(mine(e)) else "not started"
        print(f"{e.label} · {e.title}  [{state}]  {rel(mine(e))}")


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(__doc__.strip())
        return 0
    verb, rest = argv[0], argv[1:]
    give_up = "--give-up" in rest
    rest = [a for a in rest if a != "--give-up"]
    if len(rest) > 1:
        sys.exit("tools/exercise: one chapter or exercise at a time; see tools/exercise --help")
    which = rest[0] if rest else None
    if verb == "start":
        start(which)
    elif verb == "check":
        return 0 if check(which) else 1
    elif verb == "watch":
        watch(which)
    elif verb == "hint":
        if which is None or "." not in which:
            sys.exit("tools/exercise: hint for one exercise, as: tools/exercise hint 08.2")
        hint(which)
    elif verb == "solution":
        if which is None:
            sys.exit("tools/exercise: solution for one exercise, as: tools/exercise solution 08.2")
        return 0 if solution(which, give_up) else 1
    elif verb == "list":
        list_exercises(which)
    else:
        sys.exit(f"tools/exercise: unknown command '{verb}'; see tools/exercise --help")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
