"""A chapter's exercises, at the end of its page.

A chapter's exercises are the files ``chapters/exercises/NN_topic/K_name.cpp``: each opens with
its title and statement, has a ``// %% hint`` block, and holds the declaration of what the
reader writes and the tests that check it (see ``docs/authoring.rst``). The page shows each
exercise's statement, the code in file order (the tests open: they are the specification),
the hint folded, and how to check an answer with ``tools/exercise``. The reference solution,
``K_name.solution.cpp``, is never shown.
"""
import glob
import html
import os

import litgrad_source

MIN_EXERCISES, MAX_EXERCISES = 2, 4


def exercise_files(srcdir, chapter):
    folder = os.path.join(srcdir, "chapters", "exercises", chapter)
    return [p for p in sorted(glob.glob(os.path.join(folder, "[0-9]_*.cpp")))
            if not p.endswith((".starter.cpp", ".solution.cpp"))]


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
        source = litgrad_source.read(path, "exercise")
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
