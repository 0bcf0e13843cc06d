"""Draws a chapter's figures with matplotlib from the descriptions the chapter emitted.

A chapter describes each figure as JSON (``lib/litgrad/book/figures.hpp``): a ``kind`` and its
data and labels. Each description is drawn twice: *wide*, for a desktop's column (panels side
by side), and *narrow*, for a phone (panels stacked, heatmaps without their cell numbers when
the cells are too many to carry them). ``draw_both`` returns both PNGs and the height in pixels
of the smallest text in each, so that the browser check can prove the text stays legible at
the width the page shows it.
"""
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
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


def _heatmap(ax, d, fig, numbers):
    """A matrix as coloured cells with labelled rows and columns; the description may set
    "numbers" (write each cell's value, overriding the automatic choice), "colorbar" (false
    to leave it out), and "vmin"/"vmax" (a colour scale shared between panels)."""
    values = d["values"]
    rows, cols = _cells(values)
    low = d.get("vmin", min(0.0, min(min(r) for r in values)))
    high = d.get("vmax", max(max(r) for r in values))
    image = ax.imshow(values, cmap="viridis", aspect="equal", vmin=low, vmax=high if high > low else low + 1)
    longest = max(map(len, d["columns"])) if d["columns"] else 0
    rotate = cols > 6 or longest * cols > 24
    ax.set_xticks(range(cols), d["columns"], rotation=45 if rotate else 0, ha="right" if rotate else "center")
    ax.set_yticks(range(rows), d["rows"])
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


def _lines(ax, d):
    for s in d["series"]:
        style = s.get("style", "-")
        if style == "-":  # a plain line: dots at its points, when there are few
            ax.plot(s["x"], s["y"], style, marker="o" if len(s["x"]) <= 40 else None, markersize=3,
                    label=s["label"])
        else:  # a format of its own ("k--", or markers alone such as "o"), drawn as it says
            ax.plot(s["x"], s["y"], style, markersize=6, label=s["label"])
    if d.get("log_y"):
        ax.set_yscale("log")
    if d.get("log_x"):
        ax.set_xscale("log", base=d.get("log_x_base", 2))
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    ax.grid(True, alpha=0.3)
    if "title" in d:
        ax.set_title(d["title"])
    if len(d["series"]) > 1 or d.get("note"):
        ax.legend(title=d.get("note"), fontsize=9, title_fontsize=9)


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
        ax.legend(fontsize=9)


def _graph(ax, d, narrow):
    """Boxes in columns by layer, arrows between them: a computation's graph, left to right.
    An edge that skips layers bends, so that it does not run under the boxes between."""
    nodes, edges = d["nodes"], d["edges"]
    layers = {}
    for i, n in enumerate(nodes):
        layers.setdefault(n["layer"], []).append(i)
    spacing = 1.9
    position = {}
    for layer, members in layers.items():
        for k, i in enumerate(members):
            position[i] = (layer * spacing, -1.15 * (k - (len(members) - 1) / 2))
    for a, b in edges:
        (xa, ya), (xb, yb) = position[a], position[b]
        skip = abs(nodes[b]["layer"] - nodes[a]["layer"]) > 1
        ax.annotate("", xy=(xb, yb), xytext=(xa, ya), zorder=1,
                    arrowprops=dict(arrowstyle="-|>", color="#555", lw=1.2, shrinkA=34, shrinkB=34,
                                    mutation_scale=14, connectionstyle="arc3,rad=-0.35" if skip else "arc3"))
    for i, n in enumerate(nodes):
        x, y = position[i]
        ax.text(x, y, n["label"], ha="center", va="center", fontsize=10, zorder=2,
                bbox=dict(boxstyle="round,pad=0.4", fc="#eef3fb", ec="#4a6fa5"))
    xs = [p[0] for p in position.values()]
    ys = [p[1] for p in position.values()]
    ax.set_xlim(min(xs) - 0.9, max(xs) + 0.9)
    ax.set_ylim(min(ys) - 1.0, max(ys) + 1.4)
    ax.axis("off")


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
        ax.legend(fontsize=9, loc="best")


def _panel_ratio(p):
    """A panel's share of a row of panels: heatmaps by their columns, plots alike."""
    return max(_cells(p["values"])[1], 2) if p["kind"] == "heatmap" else 6


def _panel_height(p, width):
    """The height in inches of one panel drawn ``width`` inches wide."""
    if p["kind"] == "graph":
        most = max([sum(1 for n in p["nodes"] if n["layer"] == layer) for layer in {n["layer"] for n in p["nodes"]}])
        return max(2.8, 1.2 * most + 1.0)
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


def draw(d, png_path, narrow=False):
    """Draws description ``d`` into ``png_path``; returns the smallest text's height in pixels."""
    panels, widths, size, grid, shape = _layout(d, narrow)
    fig, axes = plt.subplots(*shape, figsize=size, squeeze=False, gridspec_kw=grid)
    for ax, p, width in zip(axes.flat, panels, widths):
        kind = p["kind"]
        if kind == "heatmap":
            _heatmap(ax, p, fig, _numbers_fit(p, width))
        elif kind == "lines":
            _lines(ax, p)
        elif kind == "bars":
            _bars(ax, p)
        elif kind == "graph":
            _graph(ax, p, narrow)
        elif kind == "plane":
            _plane(ax, p, fig)
        else:
            raise ValueError(f"unknown figure kind {kind!r}")
    fig.tight_layout()
    fig.canvas.draw()
    smallest = min(t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip())
    fig.savefig(png_path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return round(smallest * DPI / 72)


def draw_both(description, png_dir, name):
    """Draws the description file ``description`` wide and narrow into ``png_dir`` unless the
    drawings are newer; returns (wide png, narrow png, {"wide": px, "narrow": px}), px being
    the smallest text's height at the drawing's own size."""
    os.makedirs(png_dir, exist_ok=True)
    wide, narrow = os.path.join(png_dir, f"{name}.png"), os.path.join(png_dir, f"{name}-narrow.png")
    sizes_path = os.path.join(png_dir, f"{name}.text.json")
    fresh = all(os.path.exists(p) and os.path.getmtime(p) >= os.path.getmtime(description)
                for p in (wide, narrow, sizes_path)) and os.path.getmtime(sizes_path) >= os.path.getmtime(__file__)
    if not fresh:
        with open(description, encoding="utf-8") as f:
            d = json.load(f)
        sizes = {"wide": draw(d, wide), "narrow": draw(d, narrow, narrow=True)}
        with open(sizes_path, "w", encoding="utf-8") as f:
            json.dump(sizes, f)
    with open(sizes_path, encoding="utf-8") as f:
        return wide, narrow, json.load(f)
