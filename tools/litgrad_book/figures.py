"""Draws a chapter's figures with matplotlib from the descriptions the chapter emitted.

A chapter describes each figure as JSON (``lib/litgrad/book/figures.hpp``): a ``kind`` and its
data and labels. Each description is drawn twice: *wide*, for a desktop's column (panels side
by side), and *narrow*, for a phone (panels stacked, heatmaps without their cell numbers when
the cells are too many to carry them). ``draw_both`` returns both PNGs and the height in pixels
of the smallest text in each, so that the browser check can prove the text stays legible at
the width the page shows it. A drawing that would not show what its caption says (a labelled
line hidden under others, labels that run into each other) is refused with ``FigureError``,
which fails the book's build (``problems``).
"""
import json
import os

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402
from matplotlib.text import Text  # noqa: E402

plt.rcParams.update({"font.size": 11, "axes.titlesize": 12, "figure.dpi": 100, "svg.hashsalt": "litgrad",
                     "path.simplify": False})

DPI = 150
WIDE = 6.4  # inches: a single plot in a desktop column
WIDEST = 7.2  # inches: several panels side by side, still legible when scaled to the column
NARROW = 4.0  # inches: a phone's width
CELL_TEXT = 9  # points: the numbers inside heatmap cells


def _cells(values):
    return len(values), len(values[0]) if values else 0


LABEL_PT = 11  # points: a heatmap's row and column labels, where the cells leave room
# Points below which a heatmap labels every k-th row and column only: what stays above 10 pixels
# as the browser check measures it, with the wide drawing shown about 0.8 of its size in a
# desktop's column and the narrow one about 0.6 on a phone.
SMALLEST_LABEL_PT = {False: 7.0, True: 8.0}


def _label_cells(ax, row_labels, column_labels, cell, narrow):
    """Labels a heatmap's rows and columns for square cells of ``cell`` points."""
    every = 1
    smallest = SMALLEST_LABEL_PT[narrow]
    while min(LABEL_PT, every * cell * 0.9 / 1.25) < smallest and every < len(row_labels) + len(column_labels):
        every += 1
    size = min(LABEL_PT, every * cell * 0.9 / 1.25)
    longest = max(map(len, column_labels)) if column_labels else 0
    upright = longest * 0.62 * size > every * cell * 0.9  # wider than its cells: stood on end
    ax.set_xticks(range(0, len(column_labels), every), column_labels[::every], rotation=90 if upright else 0,
                  fontsize=size)
    ax.set_yticks(range(0, len(row_labels), every), row_labels[::every], fontsize=size)


def _heatmap(ax, d, fig, numbers, cell_inches, narrow):
    """A matrix as coloured cells with labelled rows and columns; the description may set
    "numbers" (write each cell's value, overriding the automatic choice), "colorbar" (false
    to leave it out), and "vmin"/"vmax" (a colour scale shared between panels).

    The labels are sized to their cells, which are square, so that neighbouring labels never
    run into each other: a line of text a little less tall than a cell, and upright columns'
    labels where they are wider than a cell. Where that would be smaller than
    SMALLEST_LABEL_PT, only every k-th row and column is labelled, at the size k cells allow."""
    values = d["values"]
    rows, cols = _cells(values)
    low = d.get("vmin", min(0.0, min(min(r) for r in values)))
    high = d.get("vmax", max(max(r) for r in values))
    image = ax.imshow(values, cmap="viridis", aspect="equal", vmin=low, vmax=high if high > low else low + 1)
    _label_cells(ax, d["rows"], d["columns"], cell_inches * 72, narrow)
    ax.litgrad_labels = (d["rows"], d["columns"])  # sized again to the cells as laid out
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    if d.get("numbers", numbers):
        for i, row in enumerate(values):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=CELL_TEXT,
                        color="white" if v < low + 0.6 * (high - low) else "black")
    for r, c in d.get("outline", []):
        ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    if "title" in d:
        ax.set_title(d["title"])
    if d.get("colorbar", True):
        fig.colorbar(image, ax=ax, fraction=0.046 if rows >= cols else 0.046 * rows / cols + 0.01, pad=0.04)


# The plain lines of a plot, in turn: solid, dashed, dash-dotted, long-dashed (the reference
# lines a chapter styles itself are black dashes or dots). Where two coincide (a measurement on
# its prediction) the one drawn over leaves the one below showing in its gaps; problems() holds
# every labelled line to showing.
DASHES = ["-", (0, (6, 2.5)), (0, (6, 2, 1.5, 2)), (0, (11, 3))]
MARKERS = ["o", "s", "^", "D"]  # and a shape of its own at each point, where the points are few
LEGEND_PT = 9  # every legend's text, in points


def _lines(ax, d):
    plain = 0  # the plain lines so far
    for s in d["series"]:
        style = s.get("style", "-")
        if style == "-":  # a plain line: dots at its points, when there are few
            ax.plot(s["x"], s["y"], linestyle=DASHES[plain % len(DASHES)], linewidth=max(1.4, 2.2 - 0.2 * plain),
                    marker=MARKERS[plain % len(MARKERS)] if len(s["x"]) <= 40 else None,
                    markersize=4 - 0.5 * (plain % len(MARKERS)), label=s["label"])
            plain += 1
        else:  # a format of its own ("k--", or markers alone such as "o"), drawn as it says, over
            # the plain lines: a reference line that a curve reaches still shows
            ax.plot(s["x"], s["y"], style, markersize=6, label=s["label"], zorder=2.5)
    if d.get("log_y"):
        ax.set_yscale("log")
        low, high = ax.get_ylim()
        if high < 10 * low:  # within a decade matplotlib labels 1.2 as 1.2 × 10⁰: plain numbers read better
            plain = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}")
            ax.yaxis.set_major_formatter(plain)
            ax.yaxis.set_minor_formatter(plain)
    if d.get("log_x"):
        ax.set_xscale("log", base=d.get("log_x_base", 2))
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    ax.grid(True, alpha=0.3)
    if "title" in d:
        ax.set_title(d["title"])
    if len(d["series"]) > 1 or d.get("note"):
        ax.legend(title=d.get("note"), fontsize=LEGEND_PT, title_fontsize=LEGEND_PT)


def _bars(ax, d):
    n = len(d["series"])
    width = 0.8 / n
    for k, s in enumerate(d["series"]):
        ax.bar([x - 0.4 + width * (k + 0.5) for x in s["x"]], s["y"], width=width, label=s["label"])
    ax.set_xticks(range(len(d["categories"])), d["categories"])
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    ax.grid(True, axis="y", alpha=0.3)
    if "title" in d:
        ax.set_title(d["title"])
    if n > 1:
        ax.legend(fontsize=LEGEND_PT)


# A diagram's boxes by role (lib/litgrad/book/figures.hpp): fill, outline, shape, line style.
DIAGRAM_ROLES = {
    "input": ("#e3f1df", "#4d8a3f", "box", "solid"),
    "parameter": ("#fff4d6", "#b08a1e", "box", "solid"),
    "constant": ("#eeeeee", "#888888", "box", "dashed"),
    "operation": ("#eef3fb", "#4a6fa5", "box", "rounded"),
    "module": ("#dfe8f7", "#2d4f86", "box", "rounded,bold"),
    "cache": ("#fde5d2", "#c0642b", "cylinder", "solid"),
    "output": ("#ffffff", "#333333", "box", "bold"),
}
DIAGRAM_POINTS = {"node": 10, "edge": 9}  # font sizes; the smaller is what must stay legible


def diagram_dot(d, narrow):
    """The Graphviz source of a diagram: top to bottom, or left to right on wide screens when
    the description asks (a long chain is then a row that fits a desktop's column)."""
    def quoted(text):
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    rank = "LR" if d.get("wide_left_to_right") and not narrow else "TB"
    font = 'fontname="DejaVu Sans"'
    lines = ["digraph diagram {",
             f'  graph [rankdir={rank}, nodesep=0.25, ranksep=0.3, margin=0.05, bgcolor="white", ordering="in"];',
             f'  node [{font}, fontsize={DIAGRAM_POINTS["node"]}, height=0.3, margin="0.12,0.05"];',
             f'  edge [{font}, fontsize={DIAGRAM_POINTS["edge"]}, color="#555555", fontcolor="#333333", '
             'arrowsize=0.7];']
    # On a phone a parameter, constant or cache read by one operation is written inside that
    # operation's box, with its shape, instead of standing beside it: the boxes side by side
    # are what make a diagram too wide to read there.
    nodes, edges = d["nodes"], d["edges"]
    folded = set()
    if narrow:
        out = {i: [e for e in edges if e["from"] == i] for i in range(len(nodes))}
        folded = {i for i, n in enumerate(nodes) if n["role"] in ("parameter", "constant", "cache") and len(out[i]) == 1
                  and not any(e["to"] == i for e in edges)}
    labels = [n["label"] for n in nodes]
    for i in sorted(folded):
        e = out[i][0]
        shape = "" if e["label"] == "[]" else e["label"]
        labels[e["to"]] += f"\n{nodes[i]['label']} {shape}".rstrip()
    for i, n in enumerate(nodes):
        if i in folded:
            continue
        fill, line, shape, style = DIAGRAM_ROLES[n["role"]]
        lines.append(f"  n{i} [label={quoted(labels[i])}, shape={shape}, style={quoted(style + ',filled')}, "
                     f'fillcolor="{fill}", color="{line}"];')
    for e in edges:
        if e["from"] in folded:
            continue
        label = f", label={quoted(' ' + e['label'])}" if e["label"] else ""
        lines.append(f"  n{e['from']} -> n{e['to']} [{label.lstrip(', ')}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def draw_diagram(d, png_path, narrow=False):
    """Lays the diagram out and draws it with Graphviz's dot; returns the smallest text's
    height in pixels, as draw() does."""
    import shutil
    import subprocess
    dot = shutil.which("dot")
    if not dot:
        raise FigureError(f"{os.path.basename(png_path)}: diagrams are drawn by Graphviz's dot, which is not "
                          "installed (tools/install-deps book installs the graphviz package)")
    result = subprocess.run([dot, "-Tpng", f"-Gdpi={DPI}", "-o", png_path], input=diagram_dot(d, narrow),
                            text=True, capture_output=True)
    if result.returncode != 0 or result.stderr.strip():
        raise FigureError(f"{os.path.basename(png_path)}: dot: {result.stderr.strip()}")
    return round(min(DIAGRAM_POINTS.values()) * DPI / 72)


def _plane(ax, d, fig):
    """A field underneath (contours or class regions), paths and points over it."""
    import numpy as np
    field = d.get("field")
    if field:
        x, y, z = np.array(field["x"]), np.array(field["y"]), np.array(field["z"])
        if field["style"] == "regions":
            classes = sorted(set(z.flatten().tolist()))
            cmap = matplotlib.colors.ListedColormap(["#cfe3f7", "#fbd9c4", "#d8efd0", "#eadcf3"][:len(classes)])
            ax.contourf(x, y, z, levels=[c - 0.5 for c in classes] + [classes[-1] + 0.5], cmap=cmap)
        else:
            if field.get("log_levels"):
                low, high = max(z.min(), 1e-300), z.max()
                levels = np.geomspace(low, high, field["levels"])
                image = ax.contourf(x, y, z, levels=levels, norm=matplotlib.colors.LogNorm(), cmap="viridis", alpha=0.8)
            elif "vmin" in field:  # a fixed range, so that panels side by side share colours
                levels = np.linspace(field["vmin"], field["vmax"], field["levels"] + 1)
                image = ax.contourf(x, y, z, levels=levels, cmap="viridis", alpha=0.8, extend="both")
            else:
                image = ax.contourf(x, y, z, levels=field["levels"], cmap="viridis", alpha=0.8)
            if z.max() > z.min():
                ax.contour(x, y, z, levels=image.levels, colors="white", linewidths=0.5, alpha=0.6)
            if "colorbar" in field:
                fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label=field["colorbar"])
    markers = ["o", "s", "^", "D", "v", "P"]
    for k, p in enumerate(d.get("paths", [])):
        ax.plot(p["x"], p["y"], "-", marker="." if p.get("markers", True) else None, markersize=4,
                linewidth=1.5, label=p["label"])
    for k, p in enumerate(d.get("points", [])):
        ax.scatter(p["x"], p["y"], s=22, marker=markers[k % len(markers)], label=p["label"], edgecolors="black",
                   linewidths=0.4, zorder=3)
        for tx, ty, t in zip(p["x"], p["y"], p.get("text", [])):
            ax.annotate(t, (tx, ty), textcoords="offset points", xytext=(4, 3), fontsize=10,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    if field:  # the field fills the axes: nothing is drawn outside what was computed
        ax.set_xlim(x.min(), x.max())
        ax.set_ylim(y.min(), y.max())
    if d.get("equal_axes"):
        ax.set_aspect("equal", adjustable="box" if field else "datalim")
    if "title" in d:
        ax.set_title(d["title"])
    if len(d.get("paths", [])) + len(d.get("points", [])) > 1:
        ax.legend(fontsize=LEGEND_PT, loc="best")


def _panel_ratio(p):
    """A panel's share of a row of panels: heatmaps by their columns, plots alike."""
    return max(_cells(p["values"])[1], 2) if p["kind"] == "heatmap" else 6


def _panel_height(p, width):
    """The height in inches of one panel drawn ``width`` inches wide."""
    if p["kind"] == "plane":
        return min(5.0, width * 0.8)
    if p["kind"] == "heatmap":
        rows, cols = _cells(p["values"])
        return rows * _cell_inches(p, width) + 1.5 + (0.4 if "title" in p else 0)
    return min(4.2, width * 0.68)


def _cell_inches(p, width):
    """A heatmap's square cell: the panel's width less room for labels and the colour bar."""
    return min(0.7, max(0.18, (width - 1.8) / max(_cells(p["values"])[1], 1)))


def _numbers_fit(p, width):
    rows, cols = _cells(p["values"])
    return rows * cols <= 64 and (width - 1.8) / max(cols, 1) >= 0.42


def _layout(d, narrow):
    """(panels, each panel's width, figsize, gridspec keywords, subplot grid) of a description:
    narrow stacks the panels, wide lays them side by side."""
    panels = d["panels"] if d["kind"] == "panels" else [d]
    if narrow:
        heights = [_panel_height(p, NARROW) for p in panels]
        return panels, [NARROW] * len(panels), (NARROW, sum(heights)), {"height_ratios": heights}, (len(panels), 1)
    width = WIDE if len(panels) == 1 else WIDEST
    ratios = [_panel_ratio(p) for p in panels]
    widths = [width * r / sum(ratios) for r in ratios]
    height = max(_panel_height(p, w) for p, w in zip(panels, widths))
    return panels, widths, (width, height), {"width_ratios": ratios}, (1, len(panels))


def _fit_texts(fig, narrow):
    """Lays the figure out (tight_layout) with every axis label, legend title and figure text
    that would run off the figure's edge wrapped onto more lines, shorter in proportion to how
    far it runs over; what still sticks out (a short word) the tight bounding box of savefig()
    takes in."""
    import textwrap
    fig.tight_layout()
    for ax in fig.axes:  # the cells as laid out may be smaller than the estimate they were labelled for
        if hasattr(ax, "litgrad_labels"):
            rows, columns = ax.litgrad_labels
            _label_cells(ax, rows, columns, ax.bbox.width / max(len(columns), 1) * 72 / fig.dpi, narrow)
    fig.tight_layout()
    for _ in range(3):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        wrapped = False
        for ax in fig.axes:
            legend = ax.get_legend()
            for t in [ax.xaxis.label, ax.yaxis.label] + ([legend.get_title()] if legend else []) + list(fig.texts):
                text = t.get_text()
                if not text.strip() or " " not in text:
                    continue
                box = t.get_window_extent(renderer)
                # a y label is centred on its axes, which are shorter than the figure: beyond
                # their height it may run past the figure's top
                room = ax.bbox.height if t is ax.yaxis.label else fig.bbox.width
                length = box.height if t is ax.yaxis.label else box.width
                if length > 0.95 * room:
                    longest = max(len(line) for line in text.split("\n"))
                    t.set_text(textwrap.fill(text.replace("\n", " "), max(8, int(longest * 0.9 * room / length))))
                    wrapped = True
        if not wrapped:
            return
        fig.tight_layout()


def _legends_off_the_points(fig):
    """Moves a legend that covers a point of the plot (the box matplotlib found best still may,
    in a phone's narrow panel) to below the axes, under the x axis's label, in two columns. Returns
    whether it moved one."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    moved = False
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None:
            continue
        box = legend.get_window_extent(renderer)
        points = [ax.transData.transform(line.get_xydata()) for line in ax.get_lines() if len(line.get_xydata())]
        if not any(((p[:, 0] >= box.x0) & (p[:, 0] <= box.x1) & (p[:, 1] >= box.y0) & (p[:, 1] <= box.y1)).any()
                   for p in points):
            continue
        # From the axes' bottom edge to below its x label, in points: tick labels and the label
        # sit at distances in points, which a new layout keeps.
        below = ax.bbox.y0 - ax.xaxis.label.get_window_extent(renderer).y0
        title = legend.get_title().get_text()
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, title=title or None, fontsize=LEGEND_PT, title_fontsize=LEGEND_PT, loc="upper center",
                  bbox_to_anchor=(0.5, 0), bbox_transform=ax.transAxes, ncol=2,
                  borderaxespad=(below * 72 / fig.dpi + 4) / LEGEND_PT)  # in the legend's font sizes
        moved = True
    return moved


class FigureError(Exception):
    """A figure that would not show what its caption says: a label cut off at the figure's edge,
    or a labelled line hidden under the lines drawn after it."""


VISIBLE_SHARE = 0.05  # of a line's length, at least, must show beside the lines drawn over it


def _path_points(ax, line):
    """The line's points in display pixels, with a point every 2 pixels along each segment."""
    points = ax.transData.transform(np.column_stack(line.get_data()).astype(float))
    points = points[np.isfinite(points).all(axis=1)]
    dense = list(points[:1])
    for a, b in zip(points[:-1], points[1:]):
        n = max(1, int(np.hypot(*(b - a)) / 2))
        dense += [a + (b - a) * k / n for k in range(1, n + 1)]
    return np.array(dense).reshape(-1, 2), points


def _distances(points, line_points, joined):
    """Each point's distance to a line drawn through ``line_points`` (its segments when
    ``joined``, its markers alone otherwise)."""
    if not len(line_points):
        return np.full(len(points), np.inf)
    if not joined or len(line_points) == 1:
        return np.min(np.hypot(points[:, None, 0] - line_points[None, :, 0],
                               points[:, None, 1] - line_points[None, :, 1]), axis=1)
    d = np.full(len(points), np.inf)
    for a, b in zip(line_points[:-1], line_points[1:]):
        ab = b - a
        length = ab @ ab
        t = np.clip(((points - a) @ ab) / length, 0, 1) if length > 0 else np.zeros(len(points))
        d = np.minimum(d, np.hypot(*(points - (a + t[:, None] * ab)).T))
    return d


def _drawn_texts(fig):
    """The texts the figure shows: each axes' title, axis labels, legend, and the labels of the
    ticks inside its view (matplotlib keeps labels for ticks beyond it, which it does not draw),
    and the figure's own texts."""
    texts = list(fig.texts)
    for ax in fig.axes:
        texts += [ax.title, ax._left_title, ax._right_title, ax.xaxis.label, ax.yaxis.label]
        for axis in (ax.xaxis, ax.yaxis):
            scale = axis.get_transform()  # a log axis is compared in its logarithms
            low, high = sorted(scale.transform(np.array(axis.get_view_interval(), dtype=float)))
            slack = 1e-9 * abs(high - low)
            for tick in axis.get_major_ticks():
                at = scale.transform(np.array([tick.get_loc()], dtype=float))[0]
                if low - slack <= at <= high + slack:
                    texts += [tick.label1, tick.label2]
        legend = ax.get_legend()
        if legend:
            texts += list(legend.get_texts()) + [legend.get_title()]
        texts += ax.texts
    return [t for t in texts if t.get_visible() and t.get_text().strip()]


def _unrotated_width(t, renderer):
    """The length of a text along its own baseline, in display pixels."""
    rotation = t.get_rotation()
    t.set_rotation(0)
    width = t.get_window_extent(renderer).width
    t.set_rotation(rotation)
    return width


def problems(fig):
    """What the drawn figure fails to show, one line each: two labels of one axis that run into
    each other, and a labelled line of which less than ``VISIBLE_SHARE`` of the part inside
    the axes shows beside the lines drawn after it. (No text can run off the figure: draw()
    wraps long labels and saves the figure with every text inside it.)"""
    found = []
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    for ax in fig.axes:  # neighbouring labels of one axis must not run into each other
        for axis, along in ((ax.xaxis, 0), (ax.yaxis, 1)):
            drawn = set(_drawn_texts(fig))
            ticks = [tick for tick in axis.get_major_ticks() if tick.label1 in drawn]
            at = [ax.transData.transform((t.get_loc(), 0) if along == 0 else (0, t.get_loc()))[along] for t in ticks]
            for (a, at_a), (b, at_b) in zip(zip([t.label1 for t in ticks], at), zip([t.label1 for t in ticks[1:]], at[1:])):
                box_a, box_b = a.get_window_extent(renderer), b.get_window_extent(renderer)
                spacing = abs(at_b - at_a)  # between the ticks the labels belong to
                height = a.get_fontsize() * fig.dpi / 72  # a line of the text, across it
                turn = np.radians(a.get_rotation())
                if along == 1 or abs(np.sin(turn)) > 0.99:  # stacked, or upright: a line's height
                    collide = spacing < 0.95 * height
                elif abs(np.sin(turn)) < 0.01:  # side by side along the axis: half their widths
                    collide = spacing < 0.95 * (box_a.width + box_b.width) / 2
                else:  # slanted: parallel strips, a line's height wide, that run into each
                    # other where the labels are longer than the gap along them
                    longest = max(_unrotated_width(t, renderer) for t in (a, b))
                    collide = spacing * abs(np.sin(turn)) < 0.95 * height and \
                        longest > spacing * abs(np.cos(turn))
                if collide:
                    found.append(f"the labels {a.get_text()!r} and {b.get_text()!r} run into each other")
    pixels = fig.dpi / 72
    for ax in fig.axes:
        lines = [l for l in ax.get_lines() if l.get_visible() and not l.get_label().startswith("_")]
        lines.sort(key=lambda l: l.get_zorder())  # in the order drawn (stable: ties as added)
        for i, line in enumerate(lines):
            dense, points = _path_points(ax, line)
            own = line.get_linewidth()
            if line.get_linestyle() in ("None", "", " "):  # markers alone: each marker's width
                dense, own = points, line.get_markersize()
            if not len(dense):
                continue
            inside = ((dense[:, 0] >= ax.bbox.x0) & (dense[:, 0] <= ax.bbox.x1) & (dense[:, 1] >= ax.bbox.y0)
                      & (dense[:, 1] <= ax.bbox.y1))
            covered = np.zeros(len(dense), bool)
            for other in lines[i + 1:]:
                _, points = _path_points(ax, other)
                if other.get_linestyle() not in ("-", "solid"):
                    continue  # dashes, dots or markers alone leave what is under them showing
                # hidden where the other stroke spans this one's whole width
                reach = (other.get_linewidth() - own) / 2 * pixels + 0.5
                covered |= _distances(dense, points, True) <= reach
            shown = (~covered & inside).sum() / max(1, inside.sum())
            if inside.any() and shown < VISIBLE_SHARE:
                found.append(f"the line {line.get_label()!r} is hidden under the lines drawn after it "
                             f"({shown:.0%} of it shows)")
    return found


def draw(d, png_path, narrow=False):
    """Draws description ``d`` into ``png_path``; returns the smallest text's height in pixels."""
    if d["kind"] == "diagram":
        return draw_diagram(d, png_path, narrow)
    panels, widths, size, grid, shape = _layout(d, narrow)
    fig, axes = plt.subplots(*shape, figsize=size, squeeze=False, gridspec_kw=grid)
    for ax, p, width in zip(axes.flat, panels, widths):
        kind = p["kind"]
        if kind == "heatmap":
            _heatmap(ax, p, fig, _numbers_fit(p, width), _cell_inches(p, width), narrow)
        elif kind == "lines":
            _lines(ax, p)
        elif kind == "bars":
            _bars(ax, p)
        elif kind == "plane":
            _plane(ax, p, fig)
        else:
            raise ValueError(f"unknown figure kind {kind!r}")
    _fit_texts(fig, narrow)
    # On a phone the panels are stacked, and each may grow down. Matplotlib places a legend
    # anew at each drawing, so one that cleared the points may land on them once another
    # panel's has moved: look again after each new layout.
    for _ in range(len(fig.axes) if narrow else 0):
        if not _legends_off_the_points(fig):
            break
        _fit_texts(fig, narrow)
    found = problems(fig)
    if found:
        plt.close(fig)
        raise FigureError(f"{os.path.basename(png_path)}: " + "; ".join(found))
    smallest = min(t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip())
    fig.savefig(png_path, dpi=DPI, metadata={"Software": None}, bbox_inches="tight", pad_inches=0.05)
    plt.close(fig)
    return round(smallest * DPI / 72)


DIAGRAM_SHOWN = 0.75  # CSS pixels per pixel of a diagram: its text 14 px high as shown


def shown_width(d, png_path):
    """The width description ``d``'s drawing is shown at: a plot fills its column (its text is
    sized for that), a diagram its own size times DIAGRAM_SHOWN (at most the column), so that a
    small diagram is not blown up past its text's size."""
    if d["kind"] != "diagram":
        return "100%"
    with open(png_path, "rb") as f:
        width = int.from_bytes(f.read(24)[16:20], "big")  # the PNG header's width
    return f"{round(width * DIAGRAM_SHOWN)}px"


def draw_both(description, png_dir, name):
    """Draws the description file ``description`` wide and narrow into ``png_dir`` unless the
    drawings are newer; returns (wide png, narrow png, {"wide": px, "narrow": px, "widths":
    {"wide": w, "narrow": w}}), px being the smallest text's height at the drawing's own size
    and w the width to show it at (shown_width)."""
    os.makedirs(png_dir, exist_ok=True)
    wide, narrow = os.path.join(png_dir, f"{name}.png"), os.path.join(png_dir, f"{name}-narrow.png")
    sizes_path = os.path.join(png_dir, f"{name}.text.json")
    fresh = all(os.path.exists(p) and os.path.getmtime(p) >= os.path.getmtime(description)
                for p in (wide, narrow, sizes_path)) and os.path.getmtime(sizes_path) >= os.path.getmtime(__file__)
    if not fresh:
        with open(description, encoding="utf-8") as f:
            d = json.load(f)
        sizes = {"wide": draw(d, wide), "narrow": draw(d, narrow, narrow=True)}
        sizes["widths"] = {"wide": shown_width(d, wide), "narrow": shown_width(d, narrow)}
        with open(sizes_path, "w", encoding="utf-8") as f:
            json.dump(sizes, f)
    with open(sizes_path, encoding="utf-8") as f:
        return wide, narrow, json.load(f)
