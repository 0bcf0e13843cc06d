"""A chapter's exercises: their files, what a folder of them must hold, reading doctest's
report of their tests, and the Exercises section of the chapter's page.

A chapter's exercises are the files ``chapters/exercises/NN_topic/K_name.cpp``: each opens with
its title and statement, has a ``// %% hint`` block, and holds the declaration of what the
reader writes and the tests that check it (see ``docs/authoring.rst``);
``K_name.starter.cpp`` is the file a reader starts from and ``K_name.solution.cpp`` the
reference solution. The page shows each exercise's statement, the code in file order (the
tests open: they are the specification), the hint folded, and how to check an answer with
``tools/exercise``. The reference solution is never shown.
"""
import glob
import html
import os
import re
import textwrap

from litgrad_book import reader

MIN_EXERCISES, MAX_EXERCISES = 2, 4


def exercise_files(srcdir, chapter):
    """The exercise files (statement and tests) of a chapter, in number order."""
    folder = os.path.join(srcdir, "chapters", "exercises", chapter)
    return [p for p in sorted(glob.glob(os.path.join(folder, "[0-9]_*.cpp")))
            if not p.endswith((".starter.cpp", ".solution.cpp"))]


class Exercise:
    """One exercise: its files, its number within the book (``label``, as "08.2") and its
    statement read as the book reads it."""

    def __init__(self, spec):
        self.spec = spec
        self.chapter = os.path.basename(os.path.dirname(spec))  # 08_attention
        self.name = os.path.basename(spec)[:-4]  # 1_causal_mask
        self.number = int(self.chapter[:2])
        self.index = int(self.name.split("_")[0])
        self.label = f"{self.number:02d}.{self.index}"
        self.source = reader.read(spec, "exercise")
        self.title = self.source.title.split("·", 1)[-1].strip()
        self.starter = spec[:-4] + ".starter.cpp"
        self.solution = spec[:-4] + ".solution.cpp"

    def hint(self):
        """The hint's reST prose."""
        blocks = [b for b in self.source.blocks if b.kind == "hint"]
        return "\n".join(l for b in blocks for l in b.lines).strip()


def all_exercises(root):
    """Every exercise of the book at ``root``, in order."""
    return [Exercise(p) for p in sorted(glob.glob(os.path.join(root, "chapters", "exercises", "[0-9][0-9]_*",
                                                              "[0-9]_*.cpp")))
            if not p.endswith((".starter.cpp", ".solution.cpp"))]


def select(exercises, which):
    """The exercises that ``which`` names: NN or NN.K (8, 08, 8.2, 08.2); all for None. A
    ``ValueError`` says what is wrong with ``which``."""
    if which is None:
        return exercises
    m = re.fullmatch(r"(\d{1,2})(?:\.(\d+))?", which)
    if not m:
        raise ValueError(f"'{which}' is not a chapter (08) or an exercise (08.2)")
    chosen = [e for e in exercises
              if e.number == int(m.group(1)) and (m.group(2) is None or e.index == int(m.group(2)))]
    if not chosen:
        have = sorted({f"{e.number:02d}" for e in exercises})
        raise ValueError(f"no exercise {which}; chapters with exercises: {', '.join(have)}")
    return chosen


def plain(rst):
    """reST prose as plain text for the terminal: roles and literals unwrapped, paragraphs
    rewrapped."""
    text = re.sub(r":[a-z:]+:`([^`]*)`", r"\1", rst)
    text = re.sub(r"``([^`]*)``", r"\1", text)
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n\n".join(textwrap.fill(p, 88) for p in paragraphs)


def first_failure(output):
    """The first failing expectation in doctest's report: (the test's name, [lines saying
    where, what and the values])."""
    lines = output.splitlines()
    for i, line in enumerate(lines):
        if "ERROR:" in line or "FATAL ERROR" in line or "THREW exception" in line:
            case = next((l.split("TEST CASE:", 1)[1].strip() for l in reversed(lines[:i]) if "TEST CASE:" in l), "")
            detail = [line.split("ERROR:", 1)[-1].strip()]
            for follow in lines[i + 1:i + 8]:
                if not follow.strip() or follow.startswith("====") or "TEST CASE:" in follow:
                    break
                detail.append(follow.strip())
            return case, detail
    return "", [lines[-1] if lines else "no output"]


def folder_problems(root, chapters):
    """What is wrong with the exercise folders of ``chapters`` (their paths), one line each: a
    chapter with fewer than two or more than four exercises; an exercise without its starter,
    solution, hint or tests, or titled with another number than its file's; a starter or
    solution without its exercise."""
    problems = []
    for chapter_path in chapters:
        chapter = os.path.basename(chapter_path)[:-4]
        folder = os.path.join(root, "chapters", "exercises", chapter)
        files = sorted(glob.glob(os.path.join(folder, "*.cpp")))
        specs = [f for f in files if not f.endswith((".starter.cpp", ".solution.cpp"))]
        rel = os.path.relpath(folder, root)
        if not MIN_EXERCISES <= len(specs) <= MAX_EXERCISES:
            problems.append(f"{rel}: {len(specs)} exercises; a chapter ends with {MIN_EXERCISES} to "
                            f"{MAX_EXERCISES}")
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
                source = reader.read(spec, "exercise")
            except reader.SourceError:
                continue  # reported with the file's other layout problems
            want = f"Exercise {int(chapter[:2])}.{name.split('_')[0]} · "
            if not source.title.startswith(want):
                problems.append(f"{relspec}:1: the title should start '{want}', as its file is numbered")
            if not any(b.kind == "hint" for b in source.blocks):
                problems.append(f"{relspec}: no '// %% hint' block")
            if not source.claims:
                problems.append(f"{relspec}: no TEST_CASE: an exercise is checked by its tests")
    return problems


def count(env, chapter):
    return len(exercise_files(env.srcdir, chapter))


def indent(lines, by="   "):
    return [by + l if l else "" for l in lines]


def code(block):
    return ["", ".. code-block:: cpp", f"   :lineno-start: {block.line}", ""] + indent(block.lines) + [""]


def chapter_section(env, chapter):
    """The reST of the chapter's Exercises section; empty for a chapter without exercises."""
    files = exercise_files(env.srcdir, chapter)
    if not files:
        return []
    lines = ["", "Exercises", "-" * 13, "",
             f"Check your answers on your own machine. ``tools/exercise start {chapter[:2]}`` puts a starter "
             f"file for each exercise into ``exercises/{chapter}/`` in your clone; edit it, and "
             f"``tools/exercise check {chapter[:2]}`` builds it against the tests shown here and says which "
             f"pass, with the first failing expectation of those that do not. ``tools/exercise watch "
             f"{chapter[:2]}`` checks again on every save, ``tools/exercise hint {chapter[:2]}.1`` prints the "
             f"first exercise's hint, and ``tools/exercise solution {chapter[:2]}.1`` shows its reference "
             f"solution once your answer passes.", ""]
    for path in files:
        env.note_dependency(path)
        source = reader.read(path, "exercise")
        index = int(os.path.basename(path).split("_")[0])
        label = f"{chapter[:2]}.{index}"
        title = source.title
        lines += ["", f".. _exercise-{chapter}-{index}:", "", title, "~" * (len(title) + 4), ""]
        header = source.blocks[0].lines[2:]
        lines += header + [""]
        for block in source.blocks[1:]:
            if block.kind == "hint":
                lines += ["", ".. raw:: html", "", '   <details class="litgrad-fold litgrad-hint"><summary>'
                          f'The hint (or <code>tools/exercise hint {label}</code>)</summary>', ""]
                lines += block.lines + ["", ".. raw:: html", "", "   </details>", ""]
            elif block.kind == "prose":
                lines += [""] + block.lines + [""]
            elif block.kind == "fold":
                lines += ["", ".. raw:: html", "", f'   <details class="litgrad-fold"><summary>'
                          f'{html.escape(block.summary)}</summary>', ""]
                lines += code(block) + ["", ".. raw:: html", "", "   </details>", ""]
            else:
                lines += code(block)
        lines += ["", f"Check your answer: ``tools/exercise check {label}``.", ""]
    return lines
