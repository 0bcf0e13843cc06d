"""The Sphinx extension: renders litgrad's chapters as pages, and the pages that summarise them.

How a chapter file is laid out, and why, is in ``docs/authoring.rst``; ``reader`` reads it.
This extension turns a read chapter into a page:

* the title, a line of links to the previous and next chapters and the course, what the chapter
  assumes, its claims and its time, then the introduction;
* prose as reST; code in file order, folded code as a closed ``<details>`` box;
* after each claim's test, a box with the verdict of the run that built the page (``--emit``
  wrote ``claims.json``), every number it measured with what that number is and the bound it was
  held to, then what the claim printed;
* ``.. figure:: NAME``, with NAME a figure the chapter emitted, drawn by matplotlib
  (``figures``) twice: for wide screens and for phones;
* at the end, the chapter's exercises (``exercises``).

A page is never built from a run whose claims failed or did not run, nor with a figure that
was not emitted or was emitted and shown nowhere: the build stops, naming the file, the line and
the claim.

Directives for other pages: ``.. litgrad-course::`` (the course: every chapter, what it shows,
what it assumes, its claims and time), ``.. litgrad-claims::`` (every claim with its verdict and
measured values), ``.. litgrad-used-in:: litgrad/header.hpp`` (the chapters whose code uses that
header's names), ``.. litgrad-api:: litgrad/header.hpp`` (the header's public symbols through
Breathe), ``.. litgrad-output:: NAME`` (what a program emitted into ``book/NAME/output.txt``),
``.. litgrad-figure:: PROGRAM NAME`` (a figure another program emitted) and
``.. litgrad-performance::`` (the last ``tools/bench``, from ``performance``).

Config (set with ``-D`` by CMake): ``litgrad_build_dir``, where chapter ``NN_topic`` emitted into
``book/NN_topic``, where ``book/NN_topic.run.json`` holds its run time, and where figures are
drawn to.
"""
import functools
import hashlib
import html
import json
import os
import re
import shutil
import sys
import xml.etree.ElementTree as ElementTree

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.errors import SphinxError
from sphinx.parsers import RSTParser
from sphinx.util.nodes import nested_parse_with_titles

from litgrad_book import exercise_page, figures, fingerprint, margins, mutations, performance, reader

CHAPTER_DOC = re.compile(r"^chapters/(\d\d_[a-z0-9_]+)$")


class ChapterError(SphinxError):
    category = "litgrad chapter"


def source_error(e):
    return ChapterError(str(e))


# ------------------------------------------------------------------------------------------
# What the run of a chapter left in the build folder


def emitted_dir(build_dir, chapter):
    return os.path.join(build_dir, "book", chapter)


def load_claims(build_dir, chapter):
    path = os.path.join(emitted_dir(build_dir, chapter), "claims.json")
    if not os.path.exists(path):
        raise ChapterError(f"chapters/{chapter}.cpp: no {path}; the docs target runs the chapter with "
                           f"--emit first (cmake --build build --target litgrad_docs)")
    with open(path, encoding="utf-8") as f:
        return path, {c["name"]: c for c in json.load(f)}


def load_run(build_dir, chapter):
    """The chapter's run time: {"wall_seconds", "cpu_seconds", "budget_seconds"}, or None."""
    path = os.path.join(build_dir, "book", f"{chapter}.run.json")
    if not os.path.exists(path):
        return path, None
    with open(path, encoding="utf-8") as f:
        return path, json.load(f)


def emitted_figures(build_dir, chapter):
    folder = os.path.join(emitted_dir(build_dir, chapter), "figures")
    if not os.path.isdir(folder):
        return {}
    return {f[:-5]: os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".json")}


def read_chapters(srcdir):
    """Every chapter of the book, read, in number order: a list of reader.Source."""
    try:
        return [reader.read(p) for p in reader.chapter_files(srcdir)]
    except reader.SourceError as e:
        raise source_error(e)


# ------------------------------------------------------------------------------------------
# Text helpers


def format_number(v):
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    return f"{v:.4g}"


def rst_text(text):
    """Text as reST shows it literally: every character with meaning in reST escaped."""
    return re.sub(r"([\\`*_|<>\[\]:])", r"\\\1", str(text))


def literal(text):
    return "``" + str(text).replace("`", "'") + "``"


def indent(lines, by="   "):
    return [by + l if l else "" for l in lines]


def claim_label(chapter, index):
    return f"claim-{chapter}-{index + 1}"


def measured_lines(m, g):
    """One measured value as a reST bullet: its name and value, the bound, what it is, and how
    far inside the bound it sits (``g``, its margin: ``margins.of_claim``)."""
    bound = f" ({rst_text(m['bound'])})" if m.get("bound") else ""
    inside = margins.text(g)
    if inside and m.get("large_margin_because"):
        inside += f", by design: {rst_text(m['large_margin_because'])}"
    return [f"* {rst_text(m['name'])} = **{format_number(m['value'])}**{bound}: {rst_text(m['description'])}"
            + (f" · *{inside}*" if inside else "")]


def large_margin_lines(chapters):
    """The Claims page's list of the claims that check much less than they measure: each
    measured number more than ``margins.LARGE`` times inside its bound (``chapters``: (source,
    its claims.json) pairs)."""
    def rows(reasoned):
        found = []
        for source, claims in chapters:
            index = {c.name: c.index for c in source.claims}
            for claim, name, value, bound, g, why in margins.large(claims, reasoned):
                if claim in index:
                    found.append((source, index[claim], claim, name, value, bound, g, why))
        return found

    def bullets(found):
        """One bullet a claim: its numbers, each with its bound and margin, then the reasons."""
        claims = {}
        for source, i, claim, name, value, bound, g, why in found:
            claims.setdefault((source.name, i), (source, claim, [], []))
            numbers, reasons = claims[(source.name, i)][2:]
            shown = "exactly at the best value" if g == float("inf") else f"{g:.3g}×"
            numbers.append(f"{rst_text(name)} = {format_number(value)} ({rst_text(bound)}), {shown}")
            if why and why not in reasons:
                reasons.append(why)
        return [f"* :ref:`{rst_text(claim)} <{claim_label(source.name, i)}>` ({rst_text(source.title)}): "
                + "; ".join(numbers) + "".join(f". Why: {rst_text(why)}" for why in reasons)
                for (_, i), (source, claim, numbers, reasons) in claims.items()]

    unexplained, explained = rows(False), rows(True)
    lines = ["Claims that check much less than they measure", "-" * 50, "",
             f"A measured number more than {margins.LARGE} times inside its bound (an equality, or a bound on a "
             "sign, has no margin; a two-sided bound measured over several seeds is judged by how far the seeds "
             "spread from its middle, not by one draw near it) belongs to a claim that could say more than it does, "
             "unless its chapter says why "
             f"so large a margin is the point. {len(unexplained)} numbers, in "
             f"{len({(r[0].name, r[1]) for r in unexplained})} claims:", ""]
    lines += bullets(unexplained) + [""]
    if explained:
        lines += [f"And {len(explained)} numbers, in {len({(r[0].name, r[1]) for r in explained})} claims, far inside "
                  "bounds their chapters say are meant to sit far above them, with the reason each gives:", ""]
        lines += bullets(explained) + [""]
    return lines


def chapter_link(source):
    return f":doc:`{rst_text(source.title)} </chapters/{source.name}>`"


def assumes_text(source, by_number):
    items = reader.assumed(source, set(by_number))
    if not items:
        return "nothing but curiosity"
    return ", ".join(chapter_link(by_number[i]) if isinstance(i, int) else rst_text(i) for i in items)


def time_text(run):
    """What the run took, in what its budget holds it to: seconds of one core's processor time
    (every thread's, and the training its claims share, done once earlier), and the wall time."""
    if not run:
        return "time not measured in this build"
    return f"{run['cpu_seconds']:.1f} s of one core ({run['wall_seconds']:.1f} s wall)"


def budget_text(budget, run, reason=""):
    """The budget the run was held to: its seconds, times this machine's slowness against the
    reference where the runner measured one (runner.py says when), and the reason it gives."""
    factor = (run or {}).get("machine_slowness", 1.0)
    held = f"{budget:g} s" + (f" × {factor:.2f}, this machine's slowness against the reference" if factor > 1 else "")
    return f"budget {held}" + (f": {rst_text(reason)}" if reason else "")


def figure_rst(indentation, chapter, name, env, build_dir, description):
    """The reST of one figure: the wide drawing, with the narrow one added after parsing."""
    env.note_dependency(description)
    png_dir = os.path.join(build_dir, "figures", chapter)
    wide, narrow, smallest = figures.draw_both(description, png_dir, name)
    rel = lambda p: os.path.relpath(p, os.path.join(env.srcdir, os.path.dirname(env.docname)))
    pad = indentation
    return [f"{pad}.. figure:: {rel(wide)}", f"{pad}   :alt: figure {name}", f"{pad}   :width: {smallest['widths']['wide']}",
            f"{pad}   :name: {reader.figure_id(chapter, name)}", f"{pad}   :figclass: litgrad-figure",
            f"{pad}   :class: litgrad-wide litgrad-text-{smallest['wide']}"], \
        (rel(narrow), smallest["narrow"], smallest["widths"]["narrow"])


class ChapterParser(RSTParser):
    """Reads chapters/NN_topic.cpp as a page (see the module's description)."""

    supported = ("litgrad-chapter",)

    def parse(self, inputstring, document):
        env = document.settings.env
        match = CHAPTER_DOC.match(env.docname)
        if not match:
            raise ChapterError(f"{env.docname}: a chapter is a file chapters/NN_topic.cpp")
        chapter = match.group(1)
        path = f"chapters/{chapter}.cpp"
        try:
            source = reader.parse(inputstring, path)
            book = read_chapters(env.srcdir)
        except reader.SourceError as e:
            raise source_error(e)
        build_dir = env.config.litgrad_build_dir
        claims_path, claims = load_claims(build_dir, chapter)
        env.note_dependency(claims_path)
        run_path, run = load_run(build_dir, chapter)
        env.note_dependency(run_path)
        self.narrow = {}
        rst = self.to_rst(source, book, claims, run, build_dir, env)
        super().parse("\n".join(rst), document)
        add_narrow_images(document, self.narrow)

    def to_rst(self, source, book, claims, run, build_dir, env):
        chapter = source.name
        by_number = {reader.chapter_number(s.name): s for s in book}
        emitted = emitted_figures(build_dir, chapter)
        shown = set()
        out = []
        claim_at = {id(c.code): c for c in source.claims}
        prose_of = {id(c.prose): c for c in source.claims}
        for block in source.blocks:
            if block.kind == "header":
                title, rest = block.lines[:2], block.lines[2:]
                out += title + [""] + self.chapter_facts(source, book, by_number, claims, run) + [""]
                out += self.prose(rest, source, block, emitted, shown, env, build_dir)
            elif block.kind == "prose":
                if block.heading:
                    out += ["", block.heading, "-" * (len(block.heading) + 4), ""]
                claim = prose_of.get(id(block))
                if claim:
                    out += ["", f".. _{claim_label(chapter, claim.index)}:", ""]
                out += self.prose(block.lines, source, block, emitted, shown, env, build_dir) + [""]
            elif block.kind == "fold":
                last = block.line + len(block.lines)
                out += ["", ".. raw:: html", "",
                        f'   <details class="litgrad-fold"><summary>{html.escape(block.summary)} '
                        f'<span class="litgrad-fold-lines">(lines {block.line + 1}–{last})</span>'
                        f'</summary>', ""]
                out += self.code(block)
                out += ["", ".. raw:: html", "", "   </details>", ""]
            elif block.kind == "code":
                out += self.code(block)
                claim = claim_at.get(id(block))
                if claim:
                    out += self.verdict(source, claim, claims, env)
        unshown = sorted(set(emitted) - shown)
        if unshown:
            raise ChapterError(f"{source.path}: the chapter emitted the figure(s) {', '.join(unshown)} but shows "
                               f"them nowhere; add '.. figure:: NAME' to the prose that discusses each")
        out += exercise_page.chapter_section(env, chapter)
        out += ["", *self.neighbours(source, book, "litgrad-chapter-nav litgrad-chapter-nav-bottom")]
        return out

    def chapter_facts(self, source, book, by_number, claims, run):
        held = sum(1 for c in source.claims if claims.get(c.name, {}).get("passed"))
        budget, reason = reader.budget_seconds(source)
        facts = [f"**Assumes** {assumes_text(source, by_number)}",
                 f"**{len(source.claims)} claims**, {'all held' if held == len(source.claims) else f'{held} held'}"
                 f" · {time_text(run)} ({budget_text(budget, run, reason)})",
                 f":download:`Download this chapter <{source.name}.cpp>` · run it: "
                 f"``build/chapters/{source.name}`` · each claim is a test that ``ctest`` runs"]
        return self.neighbours(source, book, "litgrad-chapter-nav") + [
            "", ".. container:: litgrad-chapter-facts", ""] + indent(
            [line for f in facts for line in ("| " + f,)]) + [""]

    def neighbours(self, source, book, classes):
        names = [s.name for s in book]
        i = names.index(source.name)
        parts = []
        if i > 0:
            parts.append(f"← {chapter_link(book[i - 1])}")
        parts.append(":doc:`The course </docs/index>`")
        if i + 1 < len(book):
            parts.append(f"{chapter_link(book[i + 1])} →")
        return [f".. container:: {classes}", "", "   " + " · ".join(parts), ""]

    def prose(self, lines, source, block, emitted, shown, env, build_dir):
        out = []
        for k, line in enumerate(lines):
            m = reader.FIGURE.match(line)
            if not m:
                out.append(line)
                continue
            name = m.group(2)
            line_no = block.line + k + (0 if block.kind == "header" else 1)
            if name not in emitted:
                listed = ", ".join(sorted(emitted)) or "none"
                raise ChapterError(f"{source.path}:{line_no}: '.. figure:: {name}' names a figure the chapter did "
                                   f"not emit; it emitted: {listed} (book::figure(\"{name}\", ...) emits one)")
            shown.add(name)
            figure, narrow = figure_rst(m.group(1), source.name, name, env, build_dir, emitted[name])
            self.narrow[reader.figure_id(source.name, name)] = narrow
            out += figure
        return out

    def code(self, block):
        return ["", ".. code-block:: cpp", f"   :lineno-start: {block.line}", ""] + indent(block.lines) + [""]

    def verdict(self, source, claim, claims, env):
        if claim.name not in claims:
            raise ChapterError(f"{source.path}:{claim.line}: the claim \"{claim.name}\" did not run; a page is "
                               f"built only from a run that checked every claim")
        c = claims[claim.name]
        if not c["passed"]:
            raise ChapterError(f"{source.path}:{claim.line}: the claim \"{claim.name}\" FAILED in the run that "
                               f"would build this page; run build/chapters/{source.name} to see why")
        lines = ["", ".. container:: litgrad-claim litgrad-held", "",
                 f"   **✓ held** · claim {claim.index + 1} · test {literal(claim.name)}", ""]
        if c["measured"]:
            lines += ["   Measured:", ""]
            for m, g in zip(c["measured"], margins.of_claim(c)):
                lines += indent(measured_lines(m, g))
            lines.append("")
        lines += indent(mutations.claim_lines(env, source.name, claim.name))
        printed = c.get("output", "").rstrip("\n")
        if printed:
            lines += ["", ".. container:: litgrad-printed", "", "   It printed:", "",
                      "   .. code-block:: text", ""] + indent(printed.split("\n"), "      ") + [""]
        return lines + [""]


def add_narrow_images(document, narrow):
    """Adds to each figure its drawing for narrow screens, shown by CSS instead of the wide one."""
    for figure in document.findall(nodes.figure):
        key = next((i for i in figure["ids"] if i in narrow), None)
        if key is None:
            continue
        uri, smallest, width = narrow[key]
        wide = next(figure.findall(nodes.image))
        image = nodes.image(uri=uri, alt=wide.get("alt", ""), width=width,
                            classes=["litgrad-narrow", f"litgrad-text-{smallest}"])
        wide.parent.insert(wide.parent.index(wide) + 1, image)


# ------------------------------------------------------------------------------------------
# The course page, the claims page, and a program's output


def nested(directive, lines):
    """Parses generated reST where the directive stands; section titles are allowed."""
    container = nodes.container()
    nested_parse_with_titles(directive.state, StringList(lines, source=directive.name), container)
    return container.children


def chapter_summary(env, source):
    """(claims held, claims, run) of one chapter, noting the files as dependencies."""
    build_dir = env.config.litgrad_build_dir
    claims_path, claims = load_claims(build_dir, source.name)
    run_path, run = load_run(build_dir, source.name)
    env.note_dependency(claims_path)
    env.note_dependency(run_path)
    env.note_dependency(os.path.join(env.srcdir, source.path))
    held = sum(1 for c in source.claims if claims.get(c.name, {}).get("passed"))
    return held, claims, run


class CourseDirective(Directive):
    """``.. litgrad-course::``: every chapter, in order, with what it shows and assumes."""

    def run(self):
        env = self.state.document.settings.env
        book = read_chapters(env.srcdir)
        if not book:
            return nested(self, ["The book has no chapters yet."])
        by_number = {reader.chapter_number(s.name): s for s in book}
        first = book[0]
        lines = [f"Start with {chapter_link(first)}" +
                 (", which assumes nothing." if not reader.assumed(first, set(by_number))
                  else f"; it assumes {assumes_text(first, by_number)}."), ""]
        for s in book:
            held, _, run = chapter_summary(env, s)
            about = s.declared("about")
            if not about:
                raise ChapterError(f"{s.path}: a chapter says what it shows for the course page: "
                                   f"'// %% about: one sentence' after its title block")
            lines += [".. container:: litgrad-course-entry", "",
                      f"   {chapter_link(s)}", "", f"   {about}", "",
                      "   .. container:: litgrad-course-facts", "",
                      f"      | Assumes {assumes_text(s, by_number)}",
                      f"      | {len(s.claims)} claims proved, {held} held in the run that built this page"
                      f" · {time_text(run)}" + (f" · {n} exercises" if (n := exercise_page.count(env, s.name))
                                                else ""), ""]
        return nested(self, lines)


class ClaimsDirective(Directive):
    """``.. litgrad-claims::``: every claim of every chapter, its verdict and what it measured."""

    def run(self):
        env = self.state.document.settings.env
        lines = mutations.page_header(env)
        sources = read_chapters(env.srcdir)
        lines += large_margin_lines([(s, list(chapter_summary(env, s)[1].values())) for s in sources])
        for s in sources:
            held, claims, run = chapter_summary(env, s)
            budget, _ = reader.budget_seconds(s)
            lines += [rst_text(s.title), "-" * (len(s.title) + 4), "",
                      f"{chapter_link(s)}: {len(s.claims)} claims, {held} held, in {time_text(run)} "
                      f"({budget_text(budget, run)}).", ""]
            lines += mutations.chapter_lines(env, s.name)
            for claim in s.claims:
                c = claims.get(claim.name)
                verdict = "✓ held" if c and c["passed"] else "✗ FAILED" if c else "not run"
                number = f"{claim.index + 1}. "
                pad = " " * len(number)  # the item's body lines up with its text
                lines += [f"{number}:ref:`{rst_text(claim.name)} <{claim_label(s.name, claim.index)}>`"
                          f" · **{verdict}**", ""]
                for m, g in zip((c or {}).get("measured", []), margins.of_claim(c or {})):
                    lines += indent(measured_lines(m, g), pad)
                lines += [""] + indent(mutations.claim_lines(env, s.name, claim.name), pad) + [""]
        return nested(self, lines)


class OutputDirective(Directive):
    """``.. litgrad-output:: NAME``: what the program NAME printed when the build ran it with
    ``--emit`` (``book/NAME/output.txt``), as a text block."""

    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        path = os.path.join(emitted_dir(env.config.litgrad_build_dir, self.arguments[0]), "output.txt")
        if not os.path.exists(path):
            raise ChapterError(f"litgrad-output: no {path}; the docs target runs {self.arguments[0]} with --emit")
        env.note_dependency(path)
        with open(path, encoding="utf-8") as f:
            text = f.read().rstrip("\n")
        return nested(self, [".. code-block:: text", ""] + indent(text.split("\n")) + [""])


class FigureDirective(Directive):
    """``.. litgrad-figure:: PROGRAM NAME`` with a caption as content: the figure NAME that the
    program PROGRAM emitted (``book/PROGRAM/figures/NAME.json``), drawn as chapters' are."""

    required_arguments = 2
    has_content = True

    def run(self):
        env = self.state.document.settings.env
        program, name = self.arguments
        build_dir = env.config.litgrad_build_dir
        emitted = emitted_figures(build_dir, program)
        if name not in emitted:
            raise ChapterError(f"litgrad-figure: {program} emitted no figure {name}; it emitted: "
                               f"{', '.join(sorted(emitted)) or 'none'}")
        lines, narrow = figure_rst("", program, name, env, build_dir, emitted[name])
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines + [""] + indent(list(self.content)),
                                                        source=self.name), container)
        add_narrow_images(container, {reader.figure_id(program, name): narrow})
        return container.children


class PerformanceDirective(Directive):
    """``.. litgrad-performance::``: the last ``tools/bench`` run (``bench/results.json`` in the
    build folder), or where none ran in this build the report kept in the repository
    (``performance.KEPT``), as ``performance.page_lines`` lays it out, with the length sweep
    drawn."""

    def run(self):
        env = self.state.document.settings.env
        build_dir = env.config.litgrad_build_dir
        path = os.path.join(build_dir, "bench", "results.json")
        env.note_dependency(path)
        env.note_dependency(performance.KEPT)
        kept = not os.path.exists(path)
        if kept:
            path = performance.KEPT
        results = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                results = json.load(f)

        def sweep_figure(workload):
            png_dir = os.path.join(build_dir, "figures", "performance")
            os.makedirs(png_dir, exist_ok=True)
            description = os.path.join(png_dir, "sweep.json")
            with open(description, "w", encoding="utf-8") as f:
                json.dump(performance.sweep_description(workload), f)
            wide, _, _ = figures.draw_both(description, png_dir, "sweep")
            rel = os.path.relpath(wide, os.path.join(env.srcdir, os.path.dirname(env.docname)))
            return [f".. figure:: {rel}", "   :alt: the length sweep", "   :width: 100%", ""] + \
                indent(performance.SWEEP_CAPTION) + [""]

        return nested(self, performance.page_lines(results, sweep_figure, kept=kept))


# ------------------------------------------------------------------------------------------
# The API pages and their links back to chapters


MEMBER_KINDS = ("function", "typedef", "enum", "variable")


@functools.lru_cache(maxsize=None)
def doxygen_xml(path):
    """One of Doxygen's XML files, parsed once per process: every API page reads the index and
    every namespace's file."""
    return ElementTree.parse(path)


def header_names(xml_dir, header):
    """The public names a header declares, read from Doxygen's XML, each with its kind: its
    classes ("class"), and the functions, types and constants declared in it. Doxygen files a
    member of a namespace under the namespace, not the file, so every namespace's members are
    read and kept by the file their declaration sits in."""
    index = doxygen_xml(os.path.join(xml_dir, "index.xml"))
    found, names = False, {}
    for compound in index.getroot().iter("compound"):
        kind = compound.get("kind")
        if kind not in ("file", "namespace"):
            continue
        if kind == "file" and compound.findtext("name") != os.path.basename(header):
            continue
        tree = doxygen_xml(os.path.join(xml_dir, compound.get("refid") + ".xml"))
        if kind == "file":
            location = tree.getroot().find("compounddef/location")
            if location is not None and not location.get("file", "").endswith(header):
                continue
            found = True
            names.update({c.text.split("::")[-1]: "class" for c in tree.getroot().iter("innerclass")})
        for m in tree.getroot().iter("memberdef"):
            where = m.find("location")
            if m.get("kind") in MEMBER_KINDS and where is not None and \
                    where.get("declfile", where.get("file", "")).endswith(header):
                names.setdefault(m.findtext("name"), m.get("kind"))
    if not found:
        raise SphinxError(f"litgrad-used-in: Doxygen's XML has no file {header}")
    return {n: kind for n, kind in names.items() if n and not n.startswith("operator")}


# Words before a name that make it no declaration of the name ("return f(x)" calls f).
NOT_TYPES = {"return", "case", "else", "throw", "new", "delete", "sizeof", "co_return", "co_yield"}
# Types a parameter of a chapter's own function is declared with, besides a template's
# (`std::vector<double>* operations`): a header's name declared as a parameter is the chapter's.
PARAMETER_TYPES = ["double", "int", "bool", "auto", r"std::int64_t", r"std::uint64_t", "Tensor"]


def names_used(code, names):
    """Which of ``names`` (a header's, each with its kind, as ``header_names`` gives them) the
    C++ ``code`` uses, read as the compiler reads it: a name in a comment or a string is no
    use, nor is ``std::``'s namesake (``std::cos``), a member reached with ``.`` or ``->``, a
    function's name that is not called (a variable of that name), or a name the code defines
    itself at the start of a line (a chapter's own ``constexpr double kU = ...`` or
    ``int differing_bits(...)``)."""
    toks = [t.lstrip("\0") for t in fingerprint.tokens(code)]
    used = set()
    for k, t in enumerate(toks):
        if t not in names:
            continue
        before = toks[k - 1] if k else ""
        after = toks[k + 1] if k + 1 < len(toks) else ""
        if before == "." or (before == ">" and toks[k - 2] == "-") or \
                (before == ":" and k >= 3 and toks[k - 2] == ":" and toks[k - 3] == "std") or \
                (names[t] == "function" and after not in ("(", "<")):
            continue
        used.add(t)
    for name in list(used):
        own = re.compile(r"^(?:(?:static|inline|constexpr|const)\s+)*(?!(?:" + "|".join(NOT_TYPES) +
                         r")\b)[\w:<>]+[\s*&]+" + re.escape(name) + r"\s*[=({;]", re.M)
        parameter = re.compile(r"[(,]\s*(?:const\s+)?(?:[\w:]+<[^()]*>|" + "|".join(PARAMETER_TYPES) +
                               r")(?:\s*[*&]+\s*|\s+)" + re.escape(name) + r"\s*[=,)]")
        if own.search(code) or parameter.search(code):
            used.discard(name)
    return used


class UsedInDirective(Directive):
    """``.. litgrad-used-in:: litgrad/ops/attention.hpp``: links to the chapters whose code uses its names."""

    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        header = self.arguments[0]
        names = header_names(env.config.breathe_projects["litgrad"], header)
        used = []
        for s in read_chapters(env.srcdir):
            env.note_dependency(os.path.join(env.srcdir, s.path))
            code = "\n".join("\n".join(b.lines) for b in s.blocks if b.kind in ("code", "fold"))
            hits = sorted(names_used(code, names))
            if hits:
                used.append((s, hits))
        if not used:
            return [nodes.paragraph(text="No chapter uses this header yet.")]
        return nested(self, ["Used in: " + "; ".join(f"{chapter_link(s)} ({', '.join(literal(h) for h in hits)})"
                                                      for s, hits in used), ""])


class ApiDirective(Directive):
    """``.. litgrad-api:: litgrad/core/tensor.hpp``: every public symbol the header declares, in the
    header's order, each through its own Breathe directive. (Breathe's doxygenfile would declare
    the enclosing namespace once per page, which Sphinx reports as duplicate declarations.)"""

    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        xml_dir = env.config.breathe_projects["litgrad"]
        header = self.arguments[0]
        env.note_dependency(os.path.join(xml_dir, "index.xml"))
        entries = []  # (line, group header or None, directive lines)
        index = ElementTree.parse(os.path.join(xml_dir, "index.xml")).getroot()
        for compound in index.iter("compound"):
            kind = compound.get("kind")
            if kind not in ("namespace", "class", "struct"):
                continue
            root = ElementTree.parse(os.path.join(xml_dir, compound.get("refid") + ".xml")).getroot()
            definition = root.find("compounddef")
            if kind in ("class", "struct"):
                location = definition.find("location")
                if location.get("file") == header:
                    entries.append((int(location.get("line")), None,
                                    [f".. doxygen{kind}:: {definition.findtext('compoundname')}", "   :members:"]))
                continue
            for section in definition.findall("sectiondef"):
                group = section.findtext("header") if section.get("kind") == "user-defined" else None
                for m in section.findall("memberdef"):
                    location = m.find("location")
                    if location.get("file") != header:
                        continue
                    name = m.findtext("qualifiedname")
                    mkind = m.get("kind")
                    if mkind == "function":
                        params = ", ".join(
                            f"{''.join(p.find('type').itertext()).strip()} {p.findtext('declname') or ''}".strip()
                            for p in m.findall("param"))
                        directive = [f".. doxygenfunction:: {name}({params})"]
                    elif mkind in ("enum", "typedef", "variable"):
                        directive = [f".. doxygen{mkind}:: {name}"]
                    else:
                        continue
                    entries.append((int(location.get("line")), group, directive))
        if not entries:
            raise SphinxError(f"litgrad-api: Doxygen's XML declares nothing in {header}")
        # A function that is not overloaded anywhere is named without its parameters: Breathe
        # cannot match some signatures (a std::function return type, say), and needs none to
        # tell it apart.
        counts = {}
        for compound in index.iter("compound"):
            if compound.get("kind") == "namespace":
                for member in compound.iter("member"):
                    if member.get("kind") == "function":
                        name = compound.findtext("name") + "::" + member.findtext("name")
                        counts[name] = counts.get(name, 0) + 1
        for k, (line, group, d) in enumerate(entries):
            if d[0].startswith(".. doxygenfunction:: "):
                base = d[0][len(".. doxygenfunction:: "):].split("(")[0]
                if counts.get(base, 0) == 1:
                    entries[k] = (line, group, [f".. doxygenfunction:: {base}"])
        lines, current_group = [], None
        for _, group, directive in sorted(entries, key=lambda e: e[0]):
            if group and group != current_group:
                lines += ["", f".. rubric:: {group}", ""]
            current_group = group
            lines += [""] + directive + [""]
        return nested(self, lines)


# ------------------------------------------------------------------------------------------
# Offline MathJax, Debian's furo, the root index


MATHJAX = "/usr/share/javascript/mathjax"


def copy_mathjax(app):
    """Serves Debian's MathJax 2 from the built site, so math renders with no network."""
    if app.builder.format != "html":
        return
    target = os.path.join(app.outdir, "_static", "mathjax")
    if not os.path.exists(os.path.join(target, "MathJax.js")):
        if not os.path.exists(os.path.join(MATHJAX, "MathJax.js")):
            raise SphinxError(f"no MathJax at {MATHJAX}: install Debian's libjs-mathjax")
        shutil.copytree(MATHJAX, target, symlinks=False, ignore=shutil.ignore_patterns("unpacked", "test"),
                        dirs_exist_ok=True)


def mend_debian_furo(app):
    """Debian's furo package ships the theme's JavaScript as source, an ES module importing the
    UMD script gumshoe-patched.js, where the theme loads it as a classic script; and its
    stylesheet imports normalize.css from the web server path /javascript/. Serve one classic
    script (gumshoe, then furo reading it from window) and normalize.css with the site."""
    import furo

    static = os.path.join(app.outdir, "_static")
    scripts = os.path.join(os.path.dirname(furo.__file__), "theme", "furo", "static", "scripts")
    with open(os.path.join(scripts, "furo.js"), encoding="utf-8") as f:
        script = f.read()
    importing = 'import Gumshoe from "./gumshoe-patched.js";'
    if importing in script:
        with open(os.path.join(scripts, "gumshoe-patched.js"), encoding="utf-8") as f:
            gumshoe = f.read()
        with open(os.path.join(static, "scripts", "furo.js"), "w", encoding="utf-8") as f:
            f.write(gumshoe + "\n" + script.replace(importing, "var Gumshoe = window.Gumshoe;"))
    css = os.path.join(static, "styles", "furo.css")
    with open(css, encoding="utf-8") as f:
        text = f.read()
    if "/javascript/normalize.css/" in text:
        shutil.copy("/usr/share/javascript/normalize.css/normalize.css", os.path.join(static, "styles", "normalize.css"))
        with open(css, "w", encoding="utf-8") as f:
            f.write(text.replace("url(/javascript/normalize.css/normalize.css)", "url(normalize.css)"))


def write_root_index(app, exception):
    if exception or app.builder.format != "html":
        return
    if app.config.html_theme == "furo":
        mend_debian_furo(app)
    with open(os.path.join(app.outdir, "index.html"), "w", encoding="utf-8") as f:
        f.write('<!DOCTYPE html><meta charset="utf-8"><title>litgrad</title>'
                '<meta http-equiv="refresh" content="0; url=docs/index.html">'
                '<a href="docs/index.html">litgrad</a>\n')


SUMMARY_PAGES = ["docs/index", "docs/claims"]


def outdated_summaries(app, env, added, changed, removed):
    """The course and claims pages summarise every chapter, and every chapter links to its
    neighbours: when a chapter is added, removed or re-read, re-read them all."""
    chapters = {d for d in added | changed | removed if CHAPTER_DOC.match(d)}
    if not chapters:
        return []
    neighbours = [d for d in env.found_docs if CHAPTER_DOC.match(d)] if added or removed else []
    return SUMMARY_PAGES + neighbours


def code_hash():
    """A hash of the code that makes the pages: this module and every module of the package it
    imported."""
    files = sorted({m.__file__ for name, m in sys.modules.items()
                    if name.startswith("litgrad_book") and getattr(m, "__file__", None)})
    digest = hashlib.sha256()
    for path in files:
        with open(path, "rb") as f:
            digest.update(f.read())
    return digest.hexdigest()


def setup(app):
    app.add_config_value("litgrad_build_dir", "", "env")
    # A hash of the code that makes the pages, so that a change to how pages are made re-reads
    # every page (Sphinx would otherwise keep pages read by the old code): an "env" value whose
    # default changed counts as a changed configuration.
    app.add_config_value("litgrad_extension_hash", code_hash(), "env")
    app.add_source_suffix(".cpp", "litgrad-chapter")
    app.add_source_parser(ChapterParser)
    app.add_directive("litgrad-course", CourseDirective)
    app.add_directive("litgrad-claims", ClaimsDirective)
    app.add_directive("litgrad-output", OutputDirective)
    app.add_directive("litgrad-figure", FigureDirective)
    app.add_directive("litgrad-used-in", UsedInDirective)
    app.add_directive("litgrad-api", ApiDirective)
    app.add_directive("litgrad-performance", PerformanceDirective)
    app.connect("builder-inited", copy_mathjax)
    app.connect("build-finished", write_root_index)
    app.connect("env-get-outdated", outdated_summaries)
    app.add_css_file("litgrad.css")
    return {"version": "2", "parallel_read_safe": True, "parallel_write_safe": True}
