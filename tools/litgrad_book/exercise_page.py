"""The Exercises section of a chapter's page: each exercise's statement, the code in file order
(the tests open: they are the specification), the hint folded, the names of the mistakes its
tests are proven to catch, and how to check an answer with ``tools/exercise``. The reference
solution is never shown.

It reads the exercises (``exercises``) and their catalogues of mistakes (``mistakes``), and
neither of those reads it.
"""
import html
import os
import re

from litgrad_book import exercises, mistakes, reader


def count(env, chapter):
    return len(exercises.exercise_files(env.srcdir, chapter))


def indent(lines, by="   "):
    return [by + l if l else "" for l in lines]


def code(block):
    return ["", ".. code-block:: cpp", f"   :lineno-start: {block.line}", ""] + indent(block.lines) + [""]


def chapter_section(env, chapter):
    """The reST of the chapter's Exercises section; empty for a chapter without exercises."""
    files = exercises.exercise_files(env.srcdir, chapter)
    if not files:
        return []
    lines = ["", "Exercises", "-" * 13, "",
             f"Check your answers on your own machine. ``tools/exercise start {chapter[:2]}`` puts a starter "
             f"file for each exercise into ``exercises/{chapter}/`` in your clone; edit it, and "
             f"``tools/exercise check {chapter[:2]}`` builds it against the tests shown here and says which "
             f"pass; for one that does not, it shows each failing test's first failing check and, when "
             f"the failures point to a mistake learners often make, a hint about it. ``tools/exercise watch "
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
        catalogue = os.path.join(os.path.dirname(path), "mistakes.toml")
        if os.path.exists(catalogue):
            env.note_dependency(catalogue)
        lines += mistakes_folded(catalogue, index)
        lines += ["", f"Check your answer: ``tools/exercise check {label}``.", ""]
    return lines


def mistakes_folded(catalogue, index):
    """The names of exercise ``index``'s catalogued mistakes, in a closed box: what its tests
    are proven to catch, without the wrong code or the hint."""
    names = [m["name"] for m in mistakes.load(catalogue) if m["exercise"] == index]
    if not names:
        return []
    lines = ["", ".. raw:: html", "", '   <details class="litgrad-fold litgrad-mistakes"><summary>'
             f'The {len(names)} mistakes its tests are proven to catch</summary>', "",
             "Each is a wrong answer learners write, kept in ``mistakes.toml`` beside the exercise; the build "
             "checks that the tests reject every one, and ``tools/exercise check`` names the one your "
             "failures point to.", ""]
    lines += [f"* {rst_text(n)}" for n in names]
    return lines + ["", ".. raw:: html", "", "   </details>", ""]


def rst_text(text):
    """Text as reST shows it literally."""
    return re.sub(r"([\\`*_|<>\[\]:])", r"\\\1", str(text))
