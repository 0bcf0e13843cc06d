"""``.. litgrad-performance::``: the last benchmark run, for learners.

``tools/bench`` writes ``bench/results.json`` in the build folder (``bench/report.py``): the
machine, then workloads, each with a title, a sentence of what it is, one table in one unit, and
its goal with the reason for it. This directive shows them as they are; nothing on the page is
typed by hand. A comparison's ratio is libtorch's time divided by litgrad's.
"""
import os
import json

from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from docutils import nodes
from sphinx.util.nodes import nested_parse_with_titles

import litgrad_figures


def number(v, unit=""):
    if v is None:
        return "—"
    if isinstance(v, str):
        return v
    return f"{v:.3g}" if abs(v) < 100 else f"{v:,.0f}"


def comparison_table(w):
    unit = w["unit"]
    lines = [".. list-table::", "   :header-rows: 1", "   :class: litgrad-numbers", "",
             "   * - ", f"     - litgrad ({unit})", f"     - libtorch ({unit})", "     - litgrad's speed-up"]
    for label, ours, theirs, ratio in w["rows"]:
        lines += [f"   * - {label}", f"     - {number(ours)}", f"     - {number(theirs)}",
                  f"     - {number(ratio)}×" if ratio else "     - —"]
    return lines


def plain_table(w):
    lines = [".. list-table::", "   :header-rows: 1", "   :class: litgrad-numbers", "",
             f"   * - {w['columns'][0] or ' '}"] + [f"     - {c}" for c in w["columns"][1:]]
    for row in w["rows"]:
        lines += [f"   * - {row[0]}"] + [f"     - {number(v)}" for v in row[1:]]
    return lines


class PerformanceDirective(Directive):
    def run(self):
        env = self.state.document.settings.env
        build_dir = env.config.litgrad_build_dir
        path = os.path.join(build_dir, "bench", "results.json")
        env.note_dependency(path)
        if not os.path.exists(path):
            lines = [".. note::", "", "   No benchmark has been run in this build. Run ``tools/bench``, then rebuild",
                     "   the book (``tools/book``); this page then shows that run's numbers.", ""]
            return self.parsed(lines)
        with open(path, encoding="utf-8") as f:
            results = json.load(f)
        if isinstance(results.get("workloads"), dict):
            return self.parsed([".. note::", "", "   The last ``tools/bench`` ran before this page's format changed;",
                                "   run it again to show its numbers here.", ""])
        lines = ["The machine of the last ``tools/bench``:", ""]
        lines += [f"* **{k}**: ``{v}``" if k in ("compiler", "libtorch's BLAS") else f"* **{k}**: {v}"
                  for k, v in results["machine"]] + [""]
        for w in results["workloads"]:
            verdict = "**met**" if w["met"] else "**not met**"
            lines += [w["title"], "-" * (len(w["title"]) + 4), "", w["about"], ""]
            lines += comparison_table(w) if w["kind"] == "comparison" else plain_table(w)
            lines += ["", f"**Goal:** {w['goal']} ({verdict}). {w['why']}", ""]
            if w["title"].startswith("The same layer at every"):
                lines += self.sweep_figure(env, build_dir, w)
        return self.parsed(lines)

    def sweep_figure(self, env, build_dir, w):
        lengths = [int(r[0].split("=")[1]) for r in w["rows"]]
        series = [{"label": "litgrad", "x": lengths, "y": [r[1] for r in w["rows"]]}]
        if all(r[2] is not None for r in w["rows"]):
            series.append({"label": "libtorch", "x": lengths, "y": [r[2] for r in w["rows"]]})
        png_dir = os.path.join(build_dir, "figures", "performance")
        os.makedirs(png_dir, exist_ok=True)
        description = os.path.join(png_dir, "sweep.json")
        with open(description, "w", encoding="utf-8") as f:
            json.dump({"kind": "lines", "xlabel": "sequence length L", "ylabel": "forward + backward (ms)",
                       "log_y": True, "log_x": True, "series": series}, f)
        wide, _, _ = litgrad_figures.draw_both(description, png_dir, "sweep")
        rel = os.path.relpath(wide, os.path.join(env.srcdir, os.path.dirname(env.docname)))
        return [f".. figure:: {rel}", "   :alt: the length sweep", "   :width: 100%", "",
                "   Time of one forward and backward pass against sequence length, both axes logarithmic. The",
                "   curves bend upward as the part that grows like L² takes over from the part that grows like L.",
                ""]

    def parsed(self, lines):
        container = nodes.container()
        nested_parse_with_titles(self.state, StringList(lines, source="litgrad-performance"), container)
        return container.children
