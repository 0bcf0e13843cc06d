"""Sphinx extension: renders litgrad's chapters, their claims and figures, and the claims page.

A chapter is a C++ file in sphinx-gallery's style (see shared/STYLE.md): a leading comment
block is the title and introduction; a ``// %% Heading`` line starts a section and ``// %%``
alone a block of prose, each followed by ``//`` lines of reST; everything else is code, shown
in file order. This extension reads such a file as a page:

* every ``TEST_CASE("claim")`` gets, right after the prose before it, a box with the claim's
  verdict, its name and what it measured, and after its code what it printed, all taken from
  the run of the chapter that wrote ``claims.json`` (``--emit``); a claim that failed or did
  not run stops the build, naming the claim;
* ``.. figure:: NAME`` with NAME a figure the chapter emitted is drawn by matplotlib from the
  emitted description and shown;
* the page offers the source file for download.

Config (set with ``-D`` by CMake): ``litgrad_build_dir``, where chapter ``NN_topic`` emitted into
``book/NN_topic`` and where figures are drawn to.

Also: ``.. litgrad-claims::`` (every claim of every chapter, with verdict and measured values),
``.. litgrad-used-in:: litgrad/header.hpp`` (the chapters whose code uses that header's names,
from Doxygen's XML), MathJax served from the build (Debian's libjs-mathjax, no network), and a
root ``index.html`` that leads to ``docs/index.html``.
"""
import json
import os
import re
import shutil
import xml.etree.ElementTree as ElementTree

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList
from sphinx.errors import SphinxError
from sphinx.parsers import RSTParser

import litgrad_figures

TEST_CASE = re.compile(r'TEST_CASE\("((?:[^"\\]|\\.)*)"\)')
FIGURE = re.compile(r"^(\s*)\.\. figure:: ([A-Za-z0-9_-]+)\s*$")
CHAPTER_FILE = re.compile(r"^chapters/(\d\d_[A-Za-z0-9_]+)$")


class ClaimError(SphinxError):
    category = "litgrad claim"


# ------------------------------------------------------------------------------------------
# Reading a chapter file


def split_chapter(text):
    """The chapter as a list of blocks: ("header", lines), ("prose", heading, lines), ("code", first_line, lines)."""
    lines = text.split("\n")
    blocks, i = [], 0
    header = []
    while i < len(lines) and lines[i].startswith("//"):
        header.append(lines[i])
        i += 1
    blocks.append(("header", [strip_comment(l) for l in header]))
    code, code_start = [], i + 1
    while i < len(lines):
        line = lines[i]
        marker = re.match(r"^// %%(.*)$", line)
        if marker:
            flush_code(blocks, code, code_start)
            code = []
            prose = []
            i += 1
            while i < len(lines) and lines[i].startswith("//"):
                prose.append(strip_comment(lines[i]))
                i += 1
            blocks.append(("prose", marker.group(1).strip(), prose))
            code_start = i + 1
            continue
        code.append(line)
        i += 1
    flush_code(blocks, code, code_start)
    return blocks


def strip_comment(line):
    return line[3:] if line.startswith("// ") else line[2:]


def flush_code(blocks, code, first_line):
    while code and not code[0].strip():
        code.pop(0)
        first_line += 1
    while code and not code[-1].strip():
        code.pop()
    if code:
        blocks.append(("code", first_line, code))


def claim_names(code_lines):
    unescape = lambda s: re.sub(r"\\(.)", r"\1", s)  # C string escapes: \" and \\
    return [unescape(m.group(1)) for m in TEST_CASE.finditer("\n".join(code_lines))]


def claim_label(chapter, index):
    return f"claim-{chapter}-{index + 1}"


def load_claims(build_dir, chapter):
    path = os.path.join(build_dir, "book", chapter, "claims.json")
    if not os.path.exists(path):
        raise ClaimError(f"{chapter}: no {path}; run the chapter with --emit first (the docs target does)")
    with open(path, encoding="utf-8") as f:
        return path, {c["name"]: c for c in json.load(f)}


def format_number(v):
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)
    return f"{v:.4g}"


def rst_text(text):
    """Text as reST shows it literally: every character with meaning in reST escaped."""
    return re.sub(r"([\\`*_|<>\[\]:])", r"\\\1", text)


def indent(lines, by="   "):
    return [by + l if l else "" for l in lines]


class ChapterParser(RSTParser):
    """Reads chapters/NN_topic.cpp as a page (see the module's description)."""

    supported = ("litgrad-chapter",)

    def parse(self, inputstring, document):
        env = document.settings.env
        docname = env.docname
        match = CHAPTER_FILE.match(docname)
        if not match:
            raise SphinxError(f"{docname}: chapters are named chapters/NN_topic.cpp")
        chapter = match.group(1)
        build_dir = env.config.litgrad_build_dir
        claims_path, claims = load_claims(build_dir, chapter)
        env.note_dependency(claims_path)
        rst = self.to_rst(chapter, split_chapter(inputstring), claims, build_dir, env)
        super().parse("\n".join(rst), document)

    def to_rst(self, chapter, blocks, claims, build_dir, env):
        out, index, pending_prose = [], 0, None
        source_name = chapter + ".cpp"
        for n, block in enumerate(blocks):
            kind = block[0]
            if kind == "header":
                out += block[1]
                out += ["", f":download:`Download this chapter ({source_name}) <{source_name}>` · "
                            f"run it: ``build/chapters/{chapter}`` · every claim below is a test run by ``ctest``", ""]
            elif kind == "prose":
                heading, prose = block[1], block[2]
                if heading:
                    out += ["", heading, "-" * (len(heading) + 4), ""]
                out += self.figures(prose, chapter, build_dir, env) + [""]
                following = blocks[n + 1] if n + 1 < len(blocks) and blocks[n + 1][0] == "code" else None
                for name in claim_names(following[2]) if following else []:
                    out += self.claim_box(chapter, index, name, claims)
                    index += 1
            else:
                first_line, code = block[1], block[2]
                out += ["", ".. code-block:: cpp", f"   :lineno-start: {first_line}", ""] + indent(code) + [""]
                for name in claim_names(code):
                    printed = claims.get(name, {}).get("output", "").rstrip("\n")
                    if printed:
                        out += ["", ".. container:: litgrad-printed", "", "   It prints:", "",
                                "   .. code-block:: text", ""] + indent(printed.split("\n"), "      ") + [""]
        claimed = [name for b in blocks if b[0] == "code" for name in claim_names(b[2])]
        if index != len(claimed):
            raise ClaimError(f"{chapter}: {len(claimed) - index} TEST_CASE(s) follow code, not prose; every claim "
                             f"needs its prose right before it")
        return out

    def claim_box(self, chapter, index, name, claims):
        if name not in claims:
            raise ClaimError(f"{chapter}: the claim \"{name}\" did not run; this page is built only from a run "
                             f"that checked every claim")
        c = claims[name]
        if not c["passed"]:
            raise ClaimError(f"{chapter}: the claim \"{name}\" FAILED in the run that built this page")
        lines = ["", f".. _{claim_label(chapter, index)}:", "", ".. container:: litgrad-claim litgrad-held", "",
                 "   **✓ held** · claim " + str(index + 1) + " · test ``" + name.replace("`", "'") + "``", ""]
        for key, value in c["measured"].items():
            lines += [f"   | measured: {rst_text(key)} = **{format_number(value)}**"]
        return lines + [""]

    def figures(self, prose, chapter, build_dir, env):
        out = []
        for line in prose:
            m = FIGURE.match(line)
            description = os.path.join(build_dir, "book", chapter, f"{m.group(2)}.json") if m else None
            if not m or not os.path.exists(description):
                out.append(line)
                continue
            env.note_dependency(description)
            png_dir = os.path.join(build_dir, "figures", chapter)
            os.makedirs(png_dir, exist_ok=True)
            png = os.path.join(png_dir, f"{m.group(2)}.png")
            if not os.path.exists(png) or os.path.getmtime(png) < os.path.getmtime(description):
                with open(description, encoding="utf-8") as f:
                    litgrad_figures.draw(json.load(f), png)
            rel = os.path.relpath(png, os.path.join(env.srcdir, os.path.dirname(env.docname)))
            out += [f"{m.group(1)}.. figure:: {rel}", f"{m.group(1)}   :alt: figure {m.group(2)}",
                    f"{m.group(1)}   :width: 100%", f"{m.group(1)}   :name: figure-{chapter}-{m.group(2)}"]
        return out


# ------------------------------------------------------------------------------------------
# The claims page and the API's links back to chapters


def chapter_files(srcdir):
    folder = os.path.join(srcdir, "chapters")
    return sorted(f for f in os.listdir(folder) if re.match(r"^\d\d_[A-Za-z0-9_]+\.cpp$", f))


def chapter_title(text):
    header = split_chapter(text)[0][1]
    return header[0].strip() if header else "?"


class ClaimsDirective(Directive):
    """Every claim of every chapter: its test, verdict and measured values, linked to its place."""

    def run(self):
        env = self.state.document.settings.env
        lines = []
        for f in chapter_files(env.srcdir):
            chapter = f[:-4]
            path = os.path.join(env.srcdir, "chapters", f)
            env.note_dependency(path)
            with open(path, encoding="utf-8") as src:
                text = src.read()
            claims_path, claims = load_claims(env.config.litgrad_build_dir, chapter)
            env.note_dependency(claims_path)
            names = [n for b in split_chapter(text) if b[0] == "code" for n in claim_names(b[2])]
            held = sum(1 for n in names if claims.get(n, {}).get("passed"))
            lines += [f":doc:`/chapters/{chapter}`: {len(names)} claims, {held} held.", "",
                      ".. list-table::", "   :header-rows: 1", "   :widths: 4 60 10 26", "",
                      "   * - #", "     - claim (its test's name)", "     - verdict", "     - measured"]
            for i, name in enumerate(names):
                c = claims.get(name)
                verdict = "✓ held" if c and c["passed"] else "✗ FAILED" if c else "not run"
                measured = "; ".join(f"{rst_text(k)} = {format_number(v)}" for k, v in (c or {}).get("measured", {}).items())
                lines += [f"   * - {i + 1}", f"     - :ref:`{name.replace('`', chr(39))} <{claim_label(chapter, i)}>`",
                          f"     - {verdict}", f"     - {measured or '—'}"]
            lines.append("")
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="litgrad-claims"), self.content_offset, container)
        return container.children


def header_names(xml_dir, header):
    """The public names a header declares, read from Doxygen's XML for that file."""
    index = ElementTree.parse(os.path.join(xml_dir, "index.xml"))
    for compound in index.getroot().iter("compound"):
        if compound.get("kind") == "file" and compound.findtext("name") == os.path.basename(header):
            tree = ElementTree.parse(os.path.join(xml_dir, compound.get("refid") + ".xml"))
            location = tree.getroot().find("compounddef/location")
            if location is not None and not location.get("file", "").endswith(header):
                continue
            names = {m.findtext("name") for m in tree.getroot().iter("memberdef") if m.get("kind") in ("function", "typedef", "enum")}
            names |= {c.text.split("::")[-1] for c in tree.getroot().iter("innerclass")}
            return {n for n in names if n and not n.startswith("operator")}
    raise SphinxError(f"litgrad-used-in: Doxygen's XML has no file {header}")


class UsedInDirective(Directive):
    """``.. litgrad-used-in:: litgrad/attention.hpp``: links to the chapters whose code uses its names."""

    required_arguments = 1

    def run(self):
        env = self.state.document.settings.env
        header = self.arguments[0]
        xml_dir = env.config.breathe_projects["litgrad"]
        names = header_names(xml_dir, header)
        used = []
        for f in chapter_files(env.srcdir):
            path = os.path.join(env.srcdir, "chapters", f)
            with open(path, encoding="utf-8") as src:
                text = src.read()
            code = "\n".join("\n".join(b[2]) for b in split_chapter(text) if b[0] == "code")
            hits = sorted(n for n in names if re.search(r"\b" + re.escape(n) + r"\b", code))
            if hits:
                used.append((f[:-4], hits))
        if not used:
            return [nodes.paragraph(text="No chapter uses this header yet.")]
        lines = ["Used in: " + "; ".join(f":doc:`/chapters/{c}` ({', '.join('``' + h + '``' for h in hits)})"
                                       for c, hits in used), ""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="litgrad-used-in"), self.content_offset, container)
        return container.children


class ApiDirective(Directive):
    """``.. litgrad-api:: litgrad/tensor.hpp``: every public symbol the header declares, in the
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
                        params = ", ".join(f"{''.join(p.find('type').itertext()).strip()} {p.findtext('declname') or ''}".strip()
                                           for p in m.findall("param"))
                        directive = [f".. doxygenfunction:: {name}({params})"]
                    elif mkind in ("enum", "typedef", "variable"):
                        directive = [f".. doxygen{mkind}:: {name}"]
                    else:
                        continue
                    entries.append((int(location.get("line")), group, directive))
        if not entries:
            raise SphinxError(f"litgrad-api: Doxygen's XML declares nothing in {header}")
        lines, current_group = [], None
        for _, group, directive in sorted(entries, key=lambda e: e[0]):
            if group and group != current_group:
                lines += ["", f".. rubric:: {group}", ""]
            current_group = group
            lines += [""] + directive + [""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=f"litgrad-api {header}"), self.content_offset, container)
        return container.children


class PerformanceDirective(Directive):
    """``.. litgrad-performance::``: the last benchmark run (tools/bench wrote bench/results.json
    in the build folder): the machine, a table per workload with the goal and whether it was met,
    and the length sweep on log-log axes. Nothing here is typed by hand."""

    def run(self):
        env = self.state.document.settings.env
        build_dir = env.config.litgrad_build_dir
        path = os.path.join(build_dir, "bench", "results.json")
        env.note_dependency(path)
        if not os.path.exists(path):
            lines = [".. note::", "", "   No benchmark has been run in this build. Run ``tools/bench``, then rebuild the",
                     "   book (``tools/book``); this page then shows that run's numbers.", ""]
        else:
            with open(path, encoding="utf-8") as f:
                results = json.load(f)
            lines = ["Measured on this machine by the last ``tools/bench``:", ""]
            lines += [f"* {rst_text(k)}: {rst_text(str(v))}" for k, v in results["machine"].items()] + [""]
            for name, row in results["workloads"].items():
                lines += [".. list-table:: " + rst_text(name), "   :widths: 60 40", ""]
                if name == "length sweep":
                    lines = lines[:-3] + [".. list-table:: length sweep (N=4, E=64, 4 heads, forward + backward)",
                                          "   :header-rows: 1", "", "   * - L", "     - litgrad ms", "     - libtorch ms",
                                          "     - speedup"]
                    for r in row["rows"]:
                        lines += [f"   * - {r['L']}", f"     - {r['litgrad_seconds'] * 1e3:.3f}",
                                  f"     - {r.get('libtorch_seconds', float('nan')) * 1e3:.3f}",
                                  f"     - {r.get('speedup', float('nan')):.2f}x"]
                else:
                    for k, v in row.items():
                        if k in ("runs",):
                            continue
                        shown = f"{v:.4g}" if isinstance(v, float) else ("yes" if v is True else "no" if v is False else str(v))
                        lines += [f"   * - {rst_text(k)}", f"     - {rst_text(shown)}"]
                lines += [""]
                if name == "length sweep":
                    lines += [f"Goal of the sweep: {rst_text(row['goal'])}; {'met' if row['goal met'] else 'not met'}.", ""]
            sweep = results["workloads"]["length sweep"]["rows"]
            series = [{"label": "litgrad", "x": [r["L"] for r in sweep], "y": [r["litgrad_seconds"] * 1e3 for r in sweep]}]
            if sweep and "libtorch_seconds" in sweep[0]:
                series.append({"label": "libtorch", "x": [r["L"] for r in sweep], "y": [r["libtorch_seconds"] * 1e3 for r in sweep]})
            png_dir = os.path.join(build_dir, "figures", "performance")
            os.makedirs(png_dir, exist_ok=True)
            png = os.path.join(png_dir, "sweep.png")
            litgrad_figures.draw({"kind": "lines", "xlabel": "sequence length L", "ylabel": "forward + backward (ms)",
                                  "log_y": True, "log_x": True, "series": series}, png)
            rel = os.path.relpath(png, os.path.join(env.srcdir, os.path.dirname(env.docname)))
            lines += [f".. figure:: {rel}", "   :alt: the length sweep", "   :width: 100%", "",
                      "   Time of one forward and backward pass against sequence length, log-log. The projections grow",
                      "   like L and the attention products like L squared: the curves bend upward as the quadratic",
                      "   part takes over.", ""]
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source="litgrad-performance"), self.content_offset, container)
        return container.children


# ------------------------------------------------------------------------------------------
# Offline MathJax and the root index


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


def outdated_claims_page(app, env, added, changed, removed):
    """The claims page summarises every chapter: rebuild it whenever a chapter is re-read."""
    if any(CHAPTER_FILE.match(d) for d in added | changed):
        return ["docs/claims"]
    return []


def setup(app):
    app.add_config_value("litgrad_build_dir", "", "env")
    app.add_source_suffix(".cpp", "litgrad-chapter")
    app.add_source_parser(ChapterParser)
    app.add_directive("litgrad-claims", ClaimsDirective)
    app.add_directive("litgrad-used-in", UsedInDirective)
    app.add_directive("litgrad-api", ApiDirective)
    app.add_directive("litgrad-performance", PerformanceDirective)
    app.connect("builder-inited", copy_mathjax)
    app.connect("build-finished", write_root_index)
    app.connect("env-get-outdated", outdated_claims_page)
    app.add_css_file("litgrad.css")
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
