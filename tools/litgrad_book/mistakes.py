"""The catalogues of learners' mistakes: each a wrong answer to an exercise, kept as a change to
its reference solution, that the exercise's tests must reject, and whose failure should name it.

A chapter's catalogue is ``chapters/exercises/NN_topic/mistakes.toml``::

    [[mistake]]
    exercise = 1                  # K of K_name: the exercise within the chapter
    name = "an off-by-one mask"   # the mistake in a few words (the book lists these names)
    find = '''exact text of K_name.solution.cpp'''
    replace = '''the wrong answer'''
    hint = "what to look at, about the idea; never the fix itself"

The build makes one program per mistake (the exercise's tests against the solution with
``find`` replaced by ``replace``) and one CTest test (label ``exercise-mistake``) that runs
``python3 -m litgrad_book.mistakes judge``: it passes when the tests reject the wrong answer on
a check (not by a crash, a hang or only an exception), and says whether the first failing
message names the mistake, which is what a learner who made it reads first. ``tools/exercise
check`` looks for the names of an exercise's mistakes in the messages of a learner's failing
tests and prints the hint of the one they point to.

usage (the build runs these; an author runs ``tools/exercise mistakes``):
  python3 -m litgrad_book.mistakes cmake ROOT OUT.cmake        the mistakes, for CMake
  python3 -m litgrad_book.mistakes apply CATALOGUE N SOLUTION OUT.cpp
  python3 -m litgrad_book.mistakes judge CATALOGUE N SOLUTION PROGRAM [RESULT.json]
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tomllib

from litgrad_book import exercises, reader

MIN_MISTAKES = 3  # an exercise with a catalogue lists at least this many
FIELDS = {"exercise": int, "name": str, "find": str, "replace": str, "hint": str}
ARTICLE = re.compile(r"^(a|an|the)\s+")
QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
DASH = re.compile(r"(?<=\w)[-\u2010\u2013\u2014](?=\w)")


class CatalogueError(Exception):
    """A catalogue of mistakes written wrong: ``path: message``."""


def catalogue_path(root, chapter):
    return os.path.join(root, "chapters", "exercises", chapter, "mistakes.toml")


def parse(data, where):
    """The mistakes of one catalogue, as TOML read them, checked field by field; each gets its
    ``ordinal`` (0-based place in the file). ``where`` names the file in errors."""
    found = data.get("mistake", [])
    unknown = set(data) - {"mistake"}
    if unknown or not isinstance(found, list):
        raise CatalogueError(f"{where}: a catalogue holds only [[mistake]] tables")
    seen = set()
    for ordinal, m in enumerate(found):
        label = f"{where}: mistake {ordinal + 1} ({m.get('name', 'unnamed')!r})"
        for key, kind in FIELDS.items():
            if not isinstance(m.get(key), kind) or (kind is str and key != "replace" and not m[key].strip()):
                raise CatalogueError(f"{label}: '{key}' must be a {'number' if kind is int else 'text'}")
        extra = set(m) - set(FIELDS)
        if extra:
            raise CatalogueError(f"{label}: unknown field(s) {', '.join(sorted(extra))}; the fields are "
                                 f"{', '.join(FIELDS)}")
        if m["find"] == m["replace"]:
            raise CatalogueError(f"{label}: 'replace' is the same as 'find'")
        key = (m["exercise"], normalise(m["name"]))
        if key in seen:
            raise CatalogueError(f"{label}: exercise {m['exercise']} has two mistakes of that name")
        seen.add(key)
        m["ordinal"] = ordinal
    return found


def load(path):
    """The mistakes of the catalogue at ``path`` (an empty list when there is none)."""
    if not os.path.exists(path):
        return []
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except tomllib.TOMLDecodeError as e:
        raise CatalogueError(f"{path}: {e}")
    return parse(data, path)


def for_exercise(e):
    """The catalogued mistakes of exercise ``e`` (an ``exercises.Exercise``)."""
    return [m for m in load(os.path.join(os.path.dirname(e.spec), "mistakes.toml")) if m["exercise"] == e.index]


def words(text):
    """Text as names are compared with messages: lower case, typographic quotes made plain,
    hyphens and dashes between words read as spaces (off-by-one, off by one), one space
    between words."""
    text = text.lower().translate(QUOTES)
    return " ".join(DASH.sub(" ", text).split())


def normalise(text):
    """A mistake's name as it is looked for in messages: ``words``, without a leading
    article."""
    return ARTICLE.sub("", words(text))


def names(text, name):
    """Whether ``text`` (a failure's message) names the mistake called ``name``: holds its
    whole name, whatever the case, spacing, hyphens, quotes and leading article."""
    return normalise(name) in words(text)


def occurrences(m, solution_text):
    return solution_text.count(m["find"])


def apply(m, solution_text):
    """The solution with the mistake made; a ``CatalogueError`` unless ``find`` is there once."""
    count = occurrences(m, solution_text)
    if count != 1:
        raise CatalogueError(f"the mistake {m['name']!r}: its find text is in the solution "
                             f"{'not at all' if count == 0 else f'{count} times'}; it must be there once")
    return solution_text.replace(m["find"], m["replace"])


def problems(root):
    """What is wrong with the catalogues of the book at ``root``, one line each: a catalogue
    that does not read, a mistake for an exercise that does not exist, one whose text is not in
    its solution exactly once, a hint that quotes the solution, an exercise with fewer than
    ``MIN_MISTAKES``."""
    found = []
    for path in sorted(glob.glob(os.path.join(root, "chapters", "exercises", "*", "mistakes.toml"))):
        rel = os.path.relpath(path, root)
        try:
            catalogue = load(path)
        except CatalogueError as e:
            found.append(str(e).replace(path, rel))
            continue
        specs = {int(os.path.basename(p).split("_")[0]): p
                 for p in exercises.exercise_files(root, os.path.basename(os.path.dirname(path)))}
        counts = {}
        for m in catalogue:
            label = f"{rel}: mistake {m['name']!r}"
            if m["exercise"] not in specs:
                found.append(f"{label}: the chapter has no exercise {m['exercise']}")
                continue
            counts[m["exercise"]] = counts.get(m["exercise"], 0) + 1
            solution = specs[m["exercise"]][:-4] + ".solution.cpp"
            with open(solution, encoding="utf-8") as f:
                text = f.read()
            count = occurrences(m, text)
            if count != 1:
                found.append(f"{label}: its find text is in {os.path.relpath(solution, root)} "
                             f"{'nowhere' if count == 0 else f'{count} times'}; it must be there once")
            right = m["find"].strip()
            if len(right) >= 8 and " ".join(right.split()) in " ".join(m["hint"].split()):
                found.append(f"{label}: its hint quotes the solution's text; a hint points at the idea")
        for k, n in sorted(counts.items()):
            if n < MIN_MISTAKES:
                found.append(f"{rel}: exercise {k} has {n} catalogued mistake{'s' if n != 1 else ''}; "
                             f"at least {MIN_MISTAKES}")
    return found


def uncatalogued(root):
    """The labels ("07.1") of the exercises that have no catalogued mistake yet."""
    out = []
    try:
        found = exercises.all_exercises(root)
    except reader.SourceError:
        return []  # the source check reports the file
    for e in found:
        try:
            if not for_exercise(e):
                out.append(e.label)
        except (CatalogueError, reader.SourceError):
            pass  # reported by problems() and the source check
    return out


# ------------------------------------------------------------------------------------------
# Judging a wrong answer


def judge_output(m, output, status):
    """The verdict on one run of an exercise's tests against mistake ``m``: a dict with
    ``caught`` (rejected on a check), ``named`` (its first failing message names the mistake),
    ``first`` (that message) and ``why`` (a sentence for the log)."""
    report = exercises.report(output)
    verdict = {"caught": False, "named": False, "first": "", "failing": [f.test for f in report.failures]}
    if report.summary is None:
        verdict["why"] = f"the tests did not run to the end (exit status {status}): a crash is no check"
        return verdict
    checks = [f for f in report.failures if not f.threw]
    if not report.failures:
        verdict["why"] = "every test passed: the mistake is not caught"
        return verdict
    if not checks:
        verdict["why"] = "the tests failed only by exceptions, not on a check"
        return verdict
    first = report.failures[0]
    verdict.update(caught=True, first="\n".join(first.lines), named=names(first.text, m["name"]))
    verdict["why"] = (f"{len(checks)} of {report.summary[0]} tests fail on a check; the first failing message "
                      + ("names the mistake" if verdict["named"] else "does not name it"))
    return verdict


def judge(catalogue, ordinal, solution, program, result=None, timeout=120):
    """Runs ``program`` (the tests against the solution with mistake ``ordinal`` of
    ``catalogue`` made), prints the verdict and writes it to ``result`` as JSON if given; True
    when the mistake is caught and the first failing message names it."""
    m = load(catalogue)[ordinal]
    with open(solution, encoding="utf-8") as f:
        count = occurrences(m, f.read())
    if count != 1:
        verdict = {"caught": False, "named": False, "first": "", "failing": [],
                   "why": f"stale: its find text is in {os.path.basename(solution)} "
                          f"{'nowhere' if count == 0 else f'{count} times'}, so the answer tested is not "
                          f"the mistake"}
    else:
        try:
            done = subprocess.run([program, "--no-version", "--no-colors", "--no-intro"], capture_output=True,
                                  text=True, timeout=timeout)
            verdict = judge_output(m, done.stdout + done.stderr, done.returncode)
        except subprocess.TimeoutExpired:
            verdict = {"caught": False, "named": False, "first": "", "failing": [],
                       "why": f"the tests did not finish in {timeout} s"}
    verdict.update(name=m["name"], exercise=m["exercise"])
    print(f"{m['name']}: {'caught' if verdict['caught'] else 'NOT caught'}"
          f"{'' if not verdict['caught'] else ' and named' if verdict['named'] else ', NOT named'}; {verdict['why']}")
    if verdict["first"]:
        print("the first failing message:\n  " + verdict["first"].replace("\n", "\n  "))
    if result:
        os.makedirs(os.path.dirname(os.path.abspath(result)), exist_ok=True)
        with open(result, "w", encoding="utf-8") as f:
            json.dump(verdict, f, indent=1, ensure_ascii=False)
    return verdict["caught"] and verdict["named"]


# ------------------------------------------------------------------------------------------
# For the build


def cmake_string(text):
    return '"' + re.sub(r'([\\"$;])', r"\\\1", text).replace("\n", " ") + '"'


def cmake_lines(root):
    """CMake calls ``litgrad_exercise_mistake(CHAPTER EXERCISE ORDINAL NUMBER NAME)``, one per
    catalogued mistake: the chapter's folder, the exercise's file name without ``.cpp``, the
    mistake's place in its catalogue (from 0) and among its exercise's (from 1), and its name.
    A catalogue that does not read, or a mistake of an exercise that does not exist, becomes a
    warning (the source check fails on it)."""
    lines = []
    for path in sorted(glob.glob(os.path.join(root, "chapters", "exercises", "*", "mistakes.toml"))):
        chapter = os.path.basename(os.path.dirname(path))
        try:
            catalogue = load(path)
        except CatalogueError as e:
            lines.append(f"message(WARNING {cmake_string(str(e))})")
            continue
        specs = {int(os.path.basename(p).split("_")[0]): os.path.basename(p)[:-4]
                 for p in exercises.exercise_files(root, chapter)}
        counts = {}
        for m in catalogue:
            if m["exercise"] not in specs:
                why = f"{path}: the mistake {m['name']!r} is of exercise {m['exercise']}, which the chapter lacks"
                lines.append(f"message(WARNING {cmake_string(why)})")
                continue
            counts[m["exercise"]] = counts.get(m["exercise"], 0) + 1
            lines.append(f"litgrad_exercise_mistake({chapter} {specs[m['exercise']]} {m['ordinal']} "
                         f"{counts[m['exercise']]} {cmake_string(m['name'])})")
    return lines


def write_if_changed(path, text):
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            if f.read() == text:
                return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m litgrad_book.mistakes", description=__doc__.strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    verbs = parser.add_subparsers(dest="verb", required=True)
    cmake = verbs.add_parser("cmake", help="write the CMake lines that build every catalogued mistake")
    cmake.add_argument("root")
    cmake.add_argument("out")
    made = verbs.add_parser("apply", help="write a solution with one catalogued mistake made in it")
    judged = verbs.add_parser("judge", help="judge one mistake's program: rejected, and named by its first message")
    for p in (made, judged):
        p.add_argument("catalogue")
        p.add_argument("ordinal", type=int)
        p.add_argument("solution")
    made.add_argument("out")
    judged.add_argument("program")
    judged.add_argument("result", nargs="?", default=None)
    args = parser.parse_args(argv)
    if args.verb == "cmake":
        write_if_changed(args.out, "\n".join(cmake_lines(args.root)) + "\n")
        return 0
    if args.verb == "apply":
        m = load(args.catalogue)[args.ordinal]
        with open(args.solution, encoding="utf-8") as f:
            text = f.read()
        try:
            text = apply(m, text)
            note = f"with the catalogued mistake {m['name']!r}"
        except CatalogueError as e:  # the judge reports it; the build goes on
            note = f"unchanged: {e}"
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:  # always: the build compares its time with its inputs'
            f.write(f"// {os.path.basename(args.solution)} {note} (made by litgrad_book.mistakes from "
                    f"{os.path.basename(args.catalogue)})\n{text}")
        return 0
    return 0 if judge(args.catalogue, args.ordinal, args.solution, args.program, args.result) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
