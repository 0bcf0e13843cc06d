#!/usr/bin/python3
"""Reads every chapter (and every exercise file) as the book will, and fails naming the file and
line of each problem: a line over 88 characters, a malformed or unknown // %% marker, a claim
without prose of its own, a fold that hides a claim, a budget or declaration written wrong.

usage: check_sources.py SOURCE_ROOT
"""
import glob
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "_ext"))
import litgrad_source  # noqa: E402


def long_lines(path):
    with open(path, encoding="utf-8") as f:
        return [(n, len(l.rstrip("\n"))) for n, l in enumerate(f, 1) if len(l.rstrip("\n")) > litgrad_source.MAX_LINE]


def exercise_problems(root, chapters):
    """Every chapter has 2 to 4 exercises; each has a title numbered as its file, a hint, tests,
    a starter and a solution; no starter or solution lies about without its exercise."""
    problems = []
    for chapter_path in chapters:
        chapter = os.path.basename(chapter_path)[:-4]
        folder = os.path.join(root, "chapters", "exercises", chapter)
        files = sorted(glob.glob(os.path.join(folder, "*.cpp")))
        specs = [f for f in files if not f.endswith((".starter.cpp", ".solution.cpp"))]
        rel = os.path.relpath(folder, root)
        if not 2 <= len(specs) <= 4:
            problems.append(f"{rel}: {len(specs)} exercises; a chapter ends with 2 to 4")
        for f in files:
            if f.endswith((".starter.cpp", ".solution.cpp")) and f.rsplit(".", 2)[0] + ".cpp" not in specs:
                problems.append(f"{os.path.relpath(f, root)}: no exercise {os.path.basename(f.rsplit('.', 2)[0])}.cpp")
        for spec in specs:
            name = os.path.basename(spec)[:-4]
            relspec = os.path.relpath(spec, root)
            for part in ("starter", "solution"):
                if not os.path.exists(spec[:-4] + f".{part}.cpp"):
                    problems.append(f"{relspec}: no {part} file {name}.{part}.cpp")
            try:
                source = litgrad_source.read(spec, "exercise")
            except litgrad_source.SourceError:
                continue  # reported with the line above
            want = f"Exercise {int(chapter[:2])}.{name.split('_')[0]} · "
            if not source.title.startswith(want):
                problems.append(f"{relspec}:1: the title should start '{want}', as its file is numbered")
            if not any(b.kind == "hint" for b in source.blocks):
                problems.append(f"{relspec}: no '// %% hint' block")
            if not source.claims:
                problems.append(f"{relspec}: no TEST_CASE: an exercise is checked by its tests")
    return problems


def main():
    root = sys.argv[1]
    chapters = litgrad_source.chapter_files(root)
    guide_example = [os.path.join(root, "docs", "examples", "example_chapter.cpp")]
    exercises = sorted(glob.glob(os.path.join(root, "chapters", "exercises", "*", "*.cpp")))
    problems, numbers = [], {litgrad_source.chapter_number(os.path.basename(p)[:-4]) for p in chapters}
    for path in chapters + guide_example + exercises:
        rel = os.path.relpath(path, root)
        for n, length in long_lines(path):
            problems.append(f"{rel}:{n}: line of {length} characters; at most {litgrad_source.MAX_LINE}")
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
            source = litgrad_source.read(path, kind)
            if kind == "chapter":
                litgrad_source.assumed(source, numbers)
                if not source.declared("about"):
                    problems.append(f"{rel}:1: no '// %% about: ...' sentence for the course page")
        except litgrad_source.SourceError as e:
            if "characters; at most" not in e.message:
                problems.append(f"{rel}:{e.line}: {e.message}")
    problems += exercise_problems(root, chapters)
    for p in problems:
        print(p)
    print(f"{len(chapters)} chapters and {len(exercises)} exercise files read; {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
