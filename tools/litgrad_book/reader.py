"""The chapter reader: a chapter file (or an exercise file) read into its parts, and a malformed
one refused.

This module knows the layout of a chapter and nothing of Sphinx, so the book's extension
(``sphinx_extension``), the chapter runner (``runner``), the source check
(``tests/sources/check_sources.py``), the browser check (``tests/browser/check_book.py``),
``tools/mutate`` and ``tools/exercise`` all read chapters the same way. The layout is
described for authors in ``docs/authoring.rst``; in short:

* The leading ``//`` comment block is the title (its first line) and the introduction, in reST.
* ``// %% Heading`` starts a section; ``// %%`` alone starts a block of prose. Either is followed
  by ``//`` lines of reST prose; everything after them, up to the next ``// %%`` line, is code.
* ``// %% fold: SUMMARY`` folds the code that follows it (up to the next ``// %%`` line or the
  end of the file) into a closed box headed SUMMARY: plumbing the reader may open.
* ``// %% about: SENTENCE``, ``// %% assumes: 1, 2`` and ``// %% budget: 30 s, REASON`` declare
  what the course page says of the chapter, the chapters it builds on and a time budget above
  the default. A declaration's text may continue on the ``//`` lines right after it.
* ``// %% hint`` (exercise files only) starts the hint, in prose.
* Every ``TEST_CASE("claim")`` sits in the code right after a prose block of its own.

Errors are :class:`SourceError`, each naming the file and line.
"""
import os
import re
from dataclasses import dataclass, field

MAX_LINE = 88  # characters; the book's code column shows this many without scrolling
DEFAULT_BUDGET = 10.0  # seconds of one core for all of a chapter's claims
# Chapter 12's GPT: up to 60 s a seed, three seeds (STYLE.md), 30 s for the rest, 30 s of room
# for a machine that runs slower for minutes at a time, and 10 s for the claims about the kept
# runs' study of scale (docs/authoring.rst, 'Budgets').
LARGEST_BUDGET = 250.0

MARKER = re.compile(r"^// %%(.*)$")
KEYWORD = re.compile(r"^\s*([a-z]+):\s*(.*)$")
BARE_KEYWORD = re.compile(r"^\s*([a-z]+)\s*$")
DECLARATIONS = ("about", "assumes", "budget")
CHAPTER_NAME = re.compile(r"^(\d\d)_([a-z0-9_]+)$")
FIGURE = re.compile(r"^(\s*)\.\. figure:: ([A-Za-z0-9_-]+)\s*$")
MATH = re.compile(r":math:`|^\s*\.\. math::")
TEST_CASE_START = re.compile(r"\bTEST_CASE\s*\(")
STRING = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')


class SourceError(Exception):
    """A malformed chapter or exercise file: ``path:line: message``."""

    def __init__(self, path, line, message):
        super().__init__(f"{path}:{line}: {message}")
        self.path, self.line, self.message = path, line, message


@dataclass
class Block:
    kind: str  # "header", "prose", "code", "fold", "hint"
    line: int  # 1-based line of the block's first line in the file
    lines: list  # prose without the comment marks, or code as written
    heading: str = ""  # prose: the section heading it opens, if any
    summary: str = ""  # fold: the summary line


@dataclass
class Claim:
    name: str
    line: int  # the TEST_CASE's line
    index: int  # 0-based, in file order
    prose: Block = None  # the prose block that states it
    code: Block = None  # the code block that proves it


@dataclass
class Source:
    path: str
    blocks: list
    claims: list
    title: str = ""
    declarations: dict = field(default_factory=dict)  # name -> (text, line)
    figures: list = field(default_factory=list)  # (name, line) of every ``.. figure:: NAME``

    @property
    def name(self):
        return os.path.splitext(os.path.basename(self.path))[0]

    @property
    def sections(self):
        return [b.heading for b in self.blocks if b.kind == "prose" and b.heading]

    @property
    def has_math(self):
        return any(MATH.search(l) for b in self.blocks if b.kind in ("header", "prose", "hint") for l in b.lines)

    def declared(self, name, default=None):
        return self.declarations[name][0] if name in self.declarations else default


def strip_comment(line):
    return line[3:] if line.startswith("// ") else line[2:]


def unescape(s):
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), s)


def test_cases(code_lines, first_line, path):
    """The (name, line) of every TEST_CASE in the code, names joined across string literals."""
    text = "\n".join(code_lines)
    found = []
    for m in TEST_CASE_START.finditer(text):
        if text[: m.start()].rstrip().endswith("#define"):
            continue
        pos, parts = m.end(), []
        while True:
            s = STRING.match(text, pos)
            if not s:
                break
            parts.append(unescape(s.group(1)))
            pos = s.end()
        line = first_line + text.count("\n", 0, m.start())
        if not parts or not re.match(r"\s*\)", text[pos:]):
            raise SourceError(path, line, "TEST_CASE must be named by string literals only, "
                                          "as TEST_CASE(\"the claim\")")
        found.append(("".join(parts), line))
    return found


def name_unsafe_for_ctest(name):
    """Why CTest could not run a claim by this name (None if it can). Test discovery passes
    the names through CMake lists, which split at ";" and do not split inside "[...]": such a
    name would become tests that select no claim, or swallow the next claim's."""
    if ";" in name:
        return 'contains ";", at which CTest\'s discovery splits it into tests that run nothing; ' \
               'write ":" or ", and"'
    depth = 0
    for c in name:
        depth += {"[": 1, "]": -1}.get(c, 0)
        if depth < 0:
            break
    if depth != 0:
        return 'has an unmatched "[" or "]", which CMake\'s list handling in CTest\'s discovery ' \
               'treats as a bracket; match them'
    return None


def read(path, kind="chapter"):
    """Reads a chapter (``kind="chapter"``) or an exercise file (``kind="exercise"``)."""
    with open(path, encoding="utf-8") as f:
        return parse(f.read(), path, kind)


def parse(text, path, kind="chapter"):
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for n, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            raise SourceError(path, n, f"line of {len(line)} characters; at most {MAX_LINE}, so that "
                                       f"the page shows it without scrolling")
    blocks, declarations, i = [], {}, 0
    header = []
    while i < len(lines) and lines[i].startswith("//") and not MARKER.match(lines[i]):
        header.append(strip_comment(lines[i]))
        i += 1
    if not header or not header[0].strip():
        raise SourceError(path, 1, "a chapter opens with a comment block whose first line is its title")
    if len(header) < 2 or not header[1].strip() or set(header[1].strip()) != {"="} \
            or len(header[1].strip()) < len(header[0].strip()):
        raise SourceError(path, 2, "underline the title with '=' as long as the title, on the line after it")
    blocks.append(Block("header", 1, header))

    code, code_start, mode, fold = [], i + 1, "code", None  # mode: "code" or "fold"

    def flush():
        nonlocal code
        start = code_start
        while code and not code[0].strip():
            code.pop(0)
            start += 1
        while code and not code[-1].strip():
            code.pop()
        if mode == "fold":
            if not code:
                raise SourceError(path, fold.line, f"the fold '{fold.summary}' holds no code: a fold runs "
                                                   f"from its marker to the next // %% line")
            fold.lines = code
            blocks.append(fold)
        elif code:
            blocks.append(Block("code", start, code))
        code = []

    while i < len(lines):
        marker = MARKER.match(lines[i])
        if not marker:
            code.append(lines[i])
            i += 1
            continue
        flush()
        mode, line_no, rest = "code", i + 1, marker.group(1)
        keyword, bare = KEYWORD.match(rest), BARE_KEYWORD.match(rest)
        i += 1
        if keyword or (bare and bare.group(1) == "hint"):
            name = keyword.group(1) if keyword else bare.group(1)
            value = keyword.group(2).strip() if keyword else ""
            if name == "fold":
                if not value:
                    raise SourceError(path, line_no, "a fold needs a summary: // %% fold: what it holds")
                mode, fold = "fold", Block("fold", line_no, [], summary=value)
            elif name in DECLARATIONS and kind == "chapter":
                while i < len(lines) and lines[i].startswith("//") and strip_comment(lines[i]).strip() \
                        and not MARKER.match(lines[i]):
                    value += " " + strip_comment(lines[i]).strip()
                    i += 1
                if name in declarations:
                    raise SourceError(path, line_no, f"'{name}:' is declared twice (first at line "
                                                     f"{declarations[name][1]})")
                declarations[name] = (value, line_no)
            elif name == "hint" and kind == "exercise":
                prose = []
                while i < len(lines) and lines[i].startswith("//") and not MARKER.match(lines[i]):
                    prose.append(strip_comment(lines[i]))
                    i += 1
                blocks.append(Block("hint", line_no, prose))
            else:
                known = ["fold"] + (list(DECLARATIONS) if kind == "chapter" else ["hint"])
                raise SourceError(path, line_no, f"unknown marker '// %% {name}:'; the markers are "
                                                 + ", ".join(f"'// %% {k}:'" for k in known)
                                                 + ", and '// %% Heading' or '// %%' for prose")
        else:
            prose = []
            while i < len(lines) and lines[i].startswith("//") and not MARKER.match(lines[i]):
                prose.append(strip_comment(lines[i]))
                i += 1
            blocks.append(Block("prose", line_no, prose, heading=rest.strip()))
        code_start = i + 1
    flush()

    source = Source(path, blocks, [], title=header[0].strip(), declarations=declarations)
    for n, b in enumerate(blocks):
        if b.kind in ("header", "prose", "hint"):
            for k, line in enumerate(b.lines):
                m = FIGURE.match(line)
                if m:
                    source.figures.append((m.group(2), b.line + k + (0 if b.kind == "header" else 1)))
        if b.kind == "fold":
            for name, line in test_cases(b.lines, b.line + 1, path):
                raise SourceError(path, line, f"the claim \"{name}\" is inside the fold '{b.summary}' "
                                              f"(line {b.line}); a claim's test is the proof and stays open")
        if b.kind != "code":
            continue
        found = test_cases(b.lines, b.line, path)
        before = blocks[n - 1] if n > 0 else None
        for k, (name, line) in enumerate(found):
            if any(c.name == name for c in source.claims):
                raise SourceError(path, line, f"the claim \"{name}\" is named twice")
            unsafe = name_unsafe_for_ctest(name)
            if unsafe:
                raise SourceError(path, line, f"the claim \"{name}\" {unsafe}")
            if kind == "chapter" and (before is None or before.kind != "prose"
                                      or not any(l.strip() for l in before.lines)):
                raise SourceError(path, line, f"the claim \"{name}\" has no prose of its own: state it in "
                                              f"// lines after a // %% marker, right before its TEST_CASE")
            if kind == "chapter" and k > 0:
                raise SourceError(path, line, f"the claim \"{name}\" shares its prose with \"{found[0][0]}\" "
                                              f"(line {found[0][1]}); give each claim its own // %% prose "
                                              f"block")
            source.claims.append(Claim(name, line, len(source.claims), before, b))
    if kind == "chapter":
        budget = source.declared("budget")
        if budget is not None:
            budget_seconds(source)  # validates it
    return source


def budget_seconds(source):
    """The chapter's time budget in seconds of one core, and the reason it gives if above 10 s."""
    if "budget" not in source.declarations:
        return DEFAULT_BUDGET, ""
    text, line = source.declarations["budget"]
    m = re.match(r"^(\d+(?:\.\d+)?)\s*s\b\s*,?\s*(.*)$", text)
    if not m:
        raise SourceError(source.path, line, "write a budget as '// %% budget: 30 s, because ...'")
    seconds, reason = float(m.group(1)), m.group(2).strip()
    if seconds > LARGEST_BUDGET:
        raise SourceError(source.path, line, f"a budget of {seconds:g} s; no chapter may take more than "
                                             f"{LARGEST_BUDGET:g} s")
    if seconds > DEFAULT_BUDGET and not reason:
        raise SourceError(source.path, line, f"a budget above {DEFAULT_BUDGET:g} s needs its reason: "
                                             f"'// %% budget: {seconds:g} s, because ...'")
    return seconds, reason


def figure_id(chapter, name):
    """The HTML id of a chapter's figure (as docutils makes ids: lower case, runs of other
    characters as one hyphen)."""
    return re.sub(r"[^a-z0-9]+", "-", f"figure-{chapter}-{name}".lower()).strip("-")


def chapter_number(name):
    m = CHAPTER_NAME.match(name)
    return int(m.group(1)) if m else None


def chapter_files(root):
    """Every chapter file of the repository at ``root``, in number order."""
    folder = os.path.join(root, "chapters")
    return [os.path.join(folder, f) for f in sorted(os.listdir(folder))
            if f.endswith(".cpp") and CHAPTER_NAME.match(f[:-4])]


def assumed(source, known):
    """What a chapter declares it assumes: a list of chapter numbers (each checked against
    ``known``, the numbers the book has) and of plain phrases, in the order written, as
    ``// %% assumes: 5, 6, what a gradient is``. "nothing" is the empty list."""
    text = source.declared("assumes", "").strip()
    if not text or text.lower() in ("nothing", "none"):
        return []
    items = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if part.isdigit():
            if int(part) not in known:
                raise SourceError(source.path, source.declarations["assumes"][1],
                                  f"assumes chapter {int(part)}, which the book does not have")
            items.append(int(part))
        else:
            items.append(part)
    return items
