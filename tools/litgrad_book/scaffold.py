"""tools/new: the files of a new chapter or exercise, laid out so that every check passes on
them from the first commit (docs/adding.rst says what each file is for).

usage:
  tools/new chapter NN_topic "Title"     a chapter: chapters/NN_topic.cpp with one claim, its
                                         mutation catalogue tests/mutations/NN_topic.toml, and
                                         two exercises in chapters/exercises/NN_topic/
  tools/new exercise NN_topic "Title"    one more exercise at the end of that chapter's, with
                                         three catalogued mistakes in its mistakes.toml

Each file says in its own words what its author replaces: the placeholder claim, the
placeholder exercise (a function that doubles a number) and the mistakes learners make with it.
A new chapter's catalogue has still to be run, which the check asks for: `tools/mutate NN`
(a minute), then `tools/test -L sources` and `tools/test -R NN_topic`. Nothing is overwritten.
"""
import argparse
import os
import re
import sys

from litgrad_book import ROOT, reader

CHAPTER = '''\
// Chapter {n} · {title}
// {underline}
//
// The introduction: what this chapter shows, and why a reader who has read the
// chapters it assumes wants to know it. The claim below is a placeholder, to be
// replaced by the chapter's own.

// %% about: One sentence of what the chapter shows, for the course page.
// %% assumes: nothing

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <cstdint>

#include <litgrad/book/chapter.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

namespace {{

// How many elements a tensor of n ones holds, counted by adding them up.
double count(std::int64_t n) {{ return sum(ones({{n}})).item(); }}

// %% 1 · A first section
//
// The claim's sentence, and why it holds: a sum of ones is a sum of small whole
// numbers, which double precision adds without rounding, so the count is exact.

TEST_CASE("adding up n ones counts them exactly") {{
  for (std::int64_t n : {{0, 1, 7, 1000}})
    book::check("count - n", count(n) - static_cast<double>(n),
                "for n = " + std::to_string(n), book::exactly(0.0));
}}

// %% fold: the end of the file's namespace
}}  // namespace
'''

CATALOGUE = '''\
# Chapter {n}'s mutations: plausible bugs, each of which some claim of the chapter must turn
# red (tools/mutate {nn} runs them and keeps the verdicts in ledger.json). Replace the
# placeholder below with the bugs a reader or an author of this chapter would make.

[[mutation]]
name = "the count leaves out the last one"
file = "chapters/{chapter}.cpp"
bug = "an off-by-one: the tensor summed holds one element fewer than it should"
find = \'\'\'double count(std::int64_t n) {{ return sum(ones({{n}})).item(); }}\'\'\'
replace = \'\'\'double count(std::int64_t n) {{ return sum(ones({{n > 0 ? n - 1 : 0}})).item(); }}\'\'\'
'''

EXERCISE = '''\
// Exercise {n}.{k} · {title}
// {underline}
//
// The statement: what the reader writes, from what the chapter taught, and what the
// tests below check. (A placeholder: write ``twice``, which returns twice its
// argument.)

// %% hint
// What the reader should think about first, never the answer. (Placeholder: what
// number do you add to x to double it?)

// %% fold: includes
#include <doctest/doctest.h>

// %%
// The function to write, in ``exercises/{chapter}/{k}_{name}.cpp``:

double twice(double x);

// %%
// The tests. Each message names the mistake its failure points to, in the words of
// the exercise's catalogue (mistakes.toml), so that ``tools/exercise check`` can name
// it.

TEST_CASE("twice doubles every number, negative ones and zero included") {{
  CHECK_MESSAGE(twice(0.0) == 0.0, "twice(0) is 0: another value points to one added");
  CHECK_MESSAGE(twice(3.0) == 6.0,
                "twice(3) is 6: 3 points to x returned unchanged, 9 to x squared");
  CHECK_MESSAGE(twice(-2.5) == -5.0, "twice(-2.5) is -5");
}}
'''

STARTER = '''\
// Exercise {n}.{k} · {title}. This is your file: write twice below, then run
// `tools/exercise check {nn}.{k}`; `tools/exercise hint {nn}.{k}` prints a hint.

// Twice x.
double twice(double x) {{
  return x;  // a first guess, which the tests reject
}}
'''

SOLUTION = '''\
// Exercise {n}.{k} · {title}: the reference solution.

double twice(double x) {{ return x + x; }}
'''

MISTAKES_HEADER = '''\
# Chapter {n}'s exercises: mistakes learners make, each of which the exercise's tests catch
# and name. Each entry is applied to the exercise's reference solution (exact text).
'''

MISTAKES = '''
[[mistake]]
exercise = {k}
name = "x returned unchanged"
find = \'\'\'double twice(double x) {{ return x + x; }}\'\'\'
replace = \'\'\'double twice(double x) {{ return x; }}\'\'\'
hint = "(a placeholder hint) what must be added to x?"

[[mistake]]
exercise = {k}
name = "x squared"
find = \'\'\'double twice(double x) {{ return x + x; }}\'\'\'
replace = \'\'\'double twice(double x) {{ return x * x; }}\'\'\'
hint = "(a placeholder hint) twice is a sum, not a product of x with itself"

[[mistake]]
exercise = {k}
name = "one added"
find = \'\'\'double twice(double x) {{ return x + x; }}\'\'\'
replace = \'\'\'double twice(double x) {{ return x + 1; }}\'\'\'
hint = "(a placeholder hint) what is twice zero?"
'''


class ScaffoldError(Exception):
    """A name, a number or a place the new files cannot have."""


def write_new(path, text, root):
    """Writes a file that must not exist yet; returns its path relative to ``root``."""
    if os.path.exists(path):
        raise ScaffoldError(f"{os.path.relpath(path, root)} exists; tools/new overwrites nothing")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return os.path.relpath(path, root)


def title_lines(prefix, title):
    heading = f"{prefix}{title}"
    if len(heading) + 3 > reader.MAX_LINE:
        raise ScaffoldError(f"the title is too long for a line of {reader.MAX_LINE} characters")
    return heading, "=" * len(heading)


def new_exercise(chapter, title, root=ROOT):
    """Adds exercise K (the next number) to ``chapter``'s exercises; returns the files written."""
    folder = os.path.join(root, "chapters", "exercises", chapter)
    taken = [int(f.split("_")[0]) for f in os.listdir(folder) if re.match(r"^\d+_[a-z0-9_]+\.cpp$", f)] \
        if os.path.isdir(folder) else []
    k = max(taken, default=0) + 1
    name = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")[:30] or "exercise"
    n = int(chapter[:2])
    heading, underline = title_lines(f"Exercise {n}.{k} · ", title)
    values = dict(n=n, nn=chapter[:2], k=k, title=title, chapter=chapter, name=name,
                  underline=underline)
    base = os.path.join(folder, f"{k}_{name}")
    written = [write_new(base + ".cpp", EXERCISE.format(**values), root),
               write_new(base + ".starter.cpp", STARTER.format(**values), root),
               write_new(base + ".solution.cpp", SOLUTION.format(**values), root)]
    catalogue = os.path.join(folder, "mistakes.toml")
    head = "" if os.path.exists(catalogue) else MISTAKES_HEADER.format(**values)
    with open(catalogue, "a", encoding="utf-8") as f:
        f.write(head + MISTAKES.format(**values))
    return written + [os.path.relpath(catalogue, root)]


def new_chapter(chapter, title, root=ROOT):
    """Writes chapter ``chapter`` (NN_topic), its catalogue and two exercises; returns the files."""
    m = reader.CHAPTER_NAME.match(chapter)
    if not m:
        raise ScaffoldError(f"a chapter is named NN_topic (two digits, then lower case words joined by "
                            f"_), not {chapter!r}")
    n = int(m.group(1))
    if any(os.path.basename(p)[:2] == chapter[:2] for p in reader.chapter_files(root)):
        raise ScaffoldError(f"the book already has a chapter {chapter[:2]}")
    heading, underline = title_lines(f"Chapter {n} · ", title)
    values = dict(n=n, nn=chapter[:2], title=title, chapter=chapter, underline=underline)
    written = [write_new(os.path.join(root, "chapters", chapter + ".cpp"), CHAPTER.format(**values), root),
               write_new(os.path.join(root, "tests", "mutations", chapter + ".toml"), CATALOGUE.format(**values),
                         root)]
    for exercise in ("A first exercise", "A second exercise"):
        written += new_exercise(chapter, exercise, root)
    return written


def main(argv):
    parser = argparse.ArgumentParser(prog="tools/new", description=__doc__.strip(),
                                     formatter_class=argparse.RawDescriptionHelpFormatter, usage=argparse.SUPPRESS)
    parser.add_argument("kind", choices=["chapter", "exercise"])
    parser.add_argument("chapter", metavar="NN_topic")
    parser.add_argument("title")
    args = parser.parse_args(argv)
    try:
        if args.kind == "chapter":
            written = new_chapter(args.chapter, args.title)
        else:
            if not os.path.exists(os.path.join(ROOT, "chapters", args.chapter + ".cpp")):
                raise ScaffoldError(f"no chapter chapters/{args.chapter}.cpp")
            written = new_exercise(args.chapter, args.title)
    except ScaffoldError as e:
        sys.exit(f"tools/new: {e}")
    print("Written:\n  " + "\n  ".join(dict.fromkeys(written)))  # each file once
    nn = args.chapter[:2]
    if args.kind == "chapter":
        print(f"Next: tools/mutate {nn} (runs the catalogue, as the check asks), then "
              f"tools/test -L sources and tools/test -R {args.chapter}.")
    else:
        print(f"Next: tools/test -R 'exercise_{nn}' (the solution passes, the starter fails, and the "
              "tests catch and name each mistake).")
    return 0
