#!/usr/bin/python3
"""Reads every chapter (and every exercise file) as the book will, and fails naming the file and
line of each problem: a line over 88 characters, a malformed or unknown // %% marker, a claim
without prose of its own, a fold that hides a claim, a budget or declaration written wrong, an
exercise folder without what each exercise needs, a catalogue of mistakes written wrong (one that
does not read, whose text is not in its solution once, with a hint that quotes the solution, or
with fewer than three mistakes for an exercise), and in every C++ test file a test case whose name
holds ';', which CMake would split into two tests. Exercises with no catalogue yet are listed, not
refused.

usage: PYTHONPATH=tools /usr/bin/python3 tests/sources/check_sources.py SOURCE_ROOT
       (ctest runs it so; the package litgrad_book is in tools/)
"""
import glob
import os
import re
import sys

from litgrad_book import exercises, mistakes, reader


def long_lines(path):
    with open(path, encoding="utf-8") as f:
        return [(n, len(l.rstrip("\n"))) for n, l in enumerate(f, 1) if len(l.rstrip("\n")) > reader.MAX_LINE]


TEST_NAME = re.compile(r'TEST_CASE\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')


def semicolon_names(path):
    """(line, name) of each doctest case whose name holds ';': CTest registers one test a case,
    by name, and CMake reads a ';' as a list separator, so such a case becomes two tests that
    each match nothing and fail."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = []
    for m in TEST_NAME.finditer(text):
        name = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        if ";" in name:
            found.append((text.count("\n", 0, m.start()) + 1, name))
    return found


def main():
    root = sys.argv[1]
    chapters = reader.chapter_files(root)
    guide_example = [os.path.join(root, "docs", "examples", "example_chapter.cpp")]
    exercise_files = sorted(glob.glob(os.path.join(root, "chapters", "exercises", "*", "*.cpp")))
    problems, numbers = [], {reader.chapter_number(os.path.basename(p)[:-4]) for p in chapters}
    for path in chapters + guide_example + exercise_files:
        rel = os.path.relpath(path, root)
        for n, length in long_lines(path):
            problems.append(f"{rel}:{n}: line of {length} characters; at most {reader.MAX_LINE}")
        with open(path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if line.lstrip().startswith("//") and line.rstrip("\n").endswith("\\"):
                    problems.append(f"{rel}:{n}: a comment ends in a backslash, which joins the next line "
                                    "to it (move the backslash, e.g. a LaTeX \\\\, off the end)")
        kind = "exercise" if "/exercises/" in rel and not rel.endswith((".starter.cpp", ".solution.cpp")) \
            else None if "/exercises/" in rel else "chapter"
        if kind is None:
            continue
        try:
            source = reader.read(path, kind)
            if kind == "chapter":
                reader.assumed(source, numbers)
                if not source.declared("about"):
                    problems.append(f"{rel}:1: no '// %% about: ...' sentence for the course page")
        except reader.SourceError as e:
            if "characters; at most" not in e.message:
                problems.append(f"{rel}:{e.line}: {e.message}")
    test_files = sorted(glob.glob(os.path.join(root, "tests", "**", "*.cpp"), recursive=True))
    for path in chapters + exercise_files + test_files:
        for n, name in semicolon_names(path):
            problems.append(f"{os.path.relpath(path, root)}:{n}: the test case '{name[:60]}...' has a ';' in its "
                            "name, which CMake splits into two tests (use a comma)")
    problems += exercises.folder_problems(root, chapters)
    problems += mistakes.problems(root)
    for p in problems:
        print(p)
    uncatalogued = mistakes.uncatalogued(root)
    if uncatalogued:
        print(f"exercises with no catalogued mistakes yet: {', '.join(uncatalogued)}")
    print(f"{len(chapters)} chapters and {len(exercise_files)} exercise files read; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
