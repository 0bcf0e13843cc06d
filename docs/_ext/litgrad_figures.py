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
    values = d["values"]
    rows, cols = _cells(values)
    low = min(0.0, min(min(r) for r in values))
    high = max(max(r) for r in values)
    image = ax.imshow(values, cmap="viridis", aspect="equal", vmin=low, vmax=high if high > low else low + 1)
    ax.set_xticks(range(cols), d["columns"], rotation=45 if cols > 6 or max(map(len, d["columns"])) > 4 else 0,
                  ha="right" if cols > 6 else "center")
    ax.set_yticks(range(rows), d["rows"])
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    if numbers:
        for i, row in enumerate(values):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=CELL_TEXT,
                        color="white" if v < low + 0.6 * (high - low) else "black")
    for r, c in d.get("outline", []):
        ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    if "title" in d:
        ax.set_title(d["title"])
    fig.colorbar(image, ax=ax, fraction=0.046 if rows >= cols else 0.046 * rows / cols + 0.01, pad=0.04)


def _lines(ax, d):
    for s in d["series"]:
        style = s.get("style", "-")
        ax.plot(s["x"], s["y"], style, marker="o" if len(s["x"]) <= 40 and style == "-" else None, markersize=3,
                label=s["label"])
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


def _panel_ratio(p):
    """A panel's share of a row of panels: heatmaps by their columns, plots alike."""
    return max(_cells(p["values"])[1], 2) if p["kind"] == "heatmap" else 6


def _panel_height(p, width):
    """The height in inches of one panel drawn ``width`` inches wide."""
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
