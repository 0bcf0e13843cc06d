"""A chapter's exercises: their files, what a folder of them must hold, and reading doctest's
report of their tests. (The Exercises section of the chapter's page is ``exercise_page``.)

A chapter's exercises are the files ``chapters/exercises/NN_topic/K_name.cpp``: each opens with
its title and statement, has a ``// %% hint`` block, and holds the declaration of what the
reader writes and the tests that check it (see ``docs/authoring.rst``);
``K_name.starter.cpp`` is the file a reader starts from and ``K_name.solution.cpp`` the
reference solution.
"""
import glob
import os
import re
import textwrap
from dataclasses import dataclass, field

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
        self.uses = uses(spec)

    def hint(self):
        """The hint's reST prose."""
        blocks = [b for b in self.source.blocks if b.kind == "hint"]
        return "\n".join(l for b in blocks for l in b.lines).strip()


USES = re.compile(r"^// Uses your answers? to exercises? (.*)$", re.M)


def uses(spec):
    """The earlier exercises (labels, "08.1") whose answers exercise ``spec`` calls: its
    statement's line "Uses your answer to exercise 08.1." (the track "your own GPT"; the build
    reads the same line, in chapters/exercises/CMakeLists.txt)."""
    with open(spec, encoding="utf-8") as f:
        found = USES.search(f.read())
    return re.findall(r"\d\d\.\d+", found.group(1)) if found else []


def all_exercises(root, skipped=None):
    """Every exercise of the book at ``root``, in order. With a list ``skipped``, an exercise
    whose file does not read is left out and its error appended there, instead of raising a
    ``reader.SourceError``: a reader checking one exercise is not stopped by another's file."""
    found = []
    for p in sorted(glob.glob(os.path.join(root, "chapters", "exercises", "[0-9][0-9]_*", "[0-9]_*.cpp"))):
        if p.endswith((".starter.cpp", ".solution.cpp")):
            continue
        try:
            found.append(Exercise(p))
        except reader.SourceError as e:
            if skipped is None:
                raise
            skipped.append(str(e))
    return found


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


GREEK = {name: chr(code) for name, code in [
    ("alpha", 0x3B1), ("beta", 0x3B2), ("gamma", 0x3B3), ("delta", 0x3B4), ("epsilon", 0x3B5),
    ("varepsilon", 0x3B5), ("zeta", 0x3B6), ("eta", 0x3B7), ("theta", 0x3B8), ("iota", 0x3B9),
    ("kappa", 0x3BA), ("lambda", 0x3BB), ("mu", 0x3BC), ("nu", 0x3BD), ("xi", 0x3BE), ("pi", 0x3C0),
    ("rho", 0x3C1), ("sigma", 0x3C3), ("tau", 0x3C4), ("phi", 0x3C6), ("varphi", 0x3C6), ("chi", 0x3C7),
    ("psi", 0x3C8), ("omega", 0x3C9), ("Gamma", 0x393), ("Delta", 0x394), ("Theta", 0x398),
    ("Lambda", 0x39B), ("Pi", 0x3A0), ("Sigma", 0x3A3), ("Phi", 0x3A6), ("Psi", 0x3A8), ("Omega", 0x3A9)]}
SYMBOLS = {"partial": "∂", "sum": "Σ", "prod": "Π", "infty": "∞", "le": "≤", "leq": "≤", "ge": "≥",
           "geq": "≥", "ne": "≠", "neq": "≠", "cdot": "·", "times": "×", "pm": "±", "approx": "≈",
           "to": "→", "rightarrow": "→", "leftarrow": "←", "mapsto": "↦", "in": "∈", "lceil": "⌈",
           "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "dots": "…", "ldots": "…", "cdots": "…",
           "nabla": "∇", "langle": "⟨", "rangle": "⟩", "quad": "  ", "qquad": "  ", ",": " ", ";": " ",
           ":": " ", "!": "", "left": "", "right": "", "_": "_", "%": "%", "{": "(", "}": ")", "|": "‖"}
SUPERSCRIPT = dict(zip("0123456789+-=()niTt", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀᵗ"))
SUBSCRIPT = dict(zip("0123456789+-=()aeijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
TEX_ARGUMENT = r"(\{(?:[^{}]|\{[^{}]*\})*\}|\\[A-Za-z]+|[^\s{}\\])"


def _group(text):
    return text[1:-1] if text.startswith("{") and text.endswith("}") else text


def _script(marker, body, table):
    body = tex_text(_group(body))
    if body and all(c in table for c in body):
        return "".join(table[c] for c in body)
    return marker + (body if len(body) == 1 or body.isalnum() else f"({body})")


def tex_text(tex):
    """TeX math as plain text a terminal shows: Greek letters and symbols in Unicode,
    superscripts and subscripts where Unicode has them, fractions and roots written out, no
    backslash or grouping brace left."""
    t = tex
    for _ in range(4):  # nested \frac and \sqrt, from the inside out
        t = re.sub(r"\\[td]?frac" + TEX_ARGUMENT + TEX_ARGUMENT,
                   lambda m: f"{_wrap(tex_text(_group(m.group(1))))}/{_wrap(tex_text(_group(m.group(2))))}", t)
        t = re.sub(r"\\sqrt" + TEX_ARGUMENT, lambda m: "√" + _wrap(tex_text(_group(m.group(1)))), t)
        t = re.sub(r"\\(?:text|mathrm|mathbf|mathit|operatorname)\s*\{([^{}]*)\}",
                   lambda m: m.group(1).replace("\\_", "_"), t)
        t = re.sub(r"\\hat\s*" + TEX_ARGUMENT, lambda m: tex_text(_group(m.group(1))) + "\u0302", t)
    t = re.sub(r"\\([A-Za-z]+)", lambda m: GREEK.get(m.group(1), SYMBOLS.get(m.group(1), m.group(1))), t)
    t = re.sub(r"\\([,;:!_%{}|])", lambda m: SYMBOLS[m.group(1)], t)
    t = re.sub(r"\^" + TEX_ARGUMENT, lambda m: _script("^", m.group(1), SUPERSCRIPT), t)
    t = re.sub(r"_" + TEX_ARGUMENT, lambda m: _script("_", m.group(1), SUBSCRIPT), t)
    return t.replace("{", "").replace("}", "")


def _wrap(text):
    return text if re.fullmatch(r"[\w.√²³ᵀ]+", text) else f"({text})"


def plain(rst):
    """reST prose as plain text for the terminal: math as readable text (``tex_text``), roles
    and literals unwrapped, paragraphs rewrapped."""
    text = re.sub(r":math:`([^`]*)`", lambda m: tex_text(m.group(1)), rst)
    text = re.sub(r":[a-z:]+:`([^`]*)`", r"\1", text)
    text = re.sub(r"``([^`]*)``", r"\1", text)
    paragraphs = [" ".join(p.split()) for p in re.split(r"\n\s*\n", text) if p.strip()]
    return "\n\n".join(textwrap.fill(p, 88) for p in paragraphs)


@dataclass
class Failure:
    """A failing test in doctest's report: its name, the lines of its first failing
    expectation (what was checked, the values, the messages), and whether it failed only
    because something threw that no check expected (``escaped``)."""
    test: str
    lines: list
    threw: bool = False

    @property
    def text(self):
        return "\n".join(self.lines)


@dataclass
class Report:
    """doctest's report of one run: ``summary`` is (test cases, passed, failed), or None when
    the run did not get to its summary (a crash); ``failures`` are the failing tests in the
    order they ran."""
    summary: tuple = None
    failures: list = field(default_factory=list)


FAILURE = re.compile(r"^(?:.*?:\d+: )?(?:FATAL )?ERROR: (.*)$")
SUMMARY = re.compile(r"test cases:\s*(\d+)\s*\|\s*(\d+) passed\s*\|\s*(\d+) failed")


def escaped(line):
    """Whether a failure line is an exception the test did not expect, rather than a failed
    check: a CHECK_NOTHROW that caught one is a check the test made."""
    return "THREW exception" in line and not re.match(r"^(CHECK|REQUIRE|WARN)_NOTHROW\(", line)


def report(output):
    """doctest's console report (run with ``--no-colors``), read into a ``Report``."""
    result = Report()
    summary = SUMMARY.search(output)
    if summary:
        result.summary = tuple(int(g) for g in summary.groups())
    for section in re.split(r"^=+$", output, flags=re.M):
        case = re.search(r"^TEST CASE:\s+(.*)$", section, flags=re.M)
        if not case:
            continue
        blocks, current = [], None
        for line in section[case.end():].splitlines():
            m = FAILURE.match(line)
            if m:
                current = [m.group(1).strip()]
                blocks.append(current)
            elif current is not None and line.strip():
                current.append(line.strip())
            else:
                current = None
        if blocks:
            threw = all(escaped(b[0]) for b in blocks)
            result.failures.append(Failure(case.group(1).strip(), blocks[0], threw))
    return result


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
