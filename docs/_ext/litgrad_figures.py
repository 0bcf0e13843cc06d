"""Draws a chapter's figures with matplotlib from the descriptions the chapter emitted.

A chapter describes each figure as JSON (lib/litgrad/book/figures.hpp): a ``kind`` and its
data and labels. ``draw(description, png_path)`` turns one description into a PNG sized to
stay readable on a phone-width screen (the page scales it down; the text stays large).
"""
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

plt.rcParams.update({"font.size": 11, "axes.titlesize": 12, "figure.dpi": 100, "svg.hashsalt": "litgrad",
                     "path.simplify": False})


def _heatmap(ax, d, fig):
    values = d["values"]
    image = ax.imshow(values, cmap="viridis", aspect="auto", vmin=min(0.0, min(min(r) for r in values)))
    ax.set_xticks(range(len(d["columns"])), d["columns"], rotation=45 if len(d["columns"]) > 6 else 0)
    ax.set_yticks(range(len(d["rows"])), d["rows"])
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    if len(values) * len(values[0]) <= 64:  # small maps carry their numbers
        for i, row in enumerate(values):
            for j, v in enumerate(row):
                ax.text(j, i, f"{v:.2f}", ha="center", va="center", fontsize=9,
                        color="white" if v < 0.6 * max(max(r) for r in values) else "black")
    for r, c in d.get("outline", []):
        ax.add_patch(plt.Rectangle((c - 0.5, r - 0.5), 1, 1, fill=False, edgecolor="red", linewidth=2.5))
    if "title" in d:
        ax.set_title(d["title"])
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)


def _lines(ax, d):
    for s in d["series"]:
        ax.plot(s["x"], s["y"], marker="o" if len(s["x"]) <= 40 else None, markersize=3, label=s["label"])
    if d.get("log_y"):
        ax.set_yscale("log")
    if d.get("log_x"):
        ax.set_xscale("log", base=2)
    ax.set_xlabel(d["xlabel"])
    ax.set_ylabel(d["ylabel"])
    ax.grid(True, alpha=0.3)
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
    ax.legend(fontsize=9)


def draw(d, png_path):
    """Draws description ``d`` into ``png_path``."""
    panels = d["panels"] if d["kind"] == "panels" else [d]
    fig, axes = plt.subplots(1, len(panels), figsize=(6.4 if len(panels) == 1 else 4.2 * len(panels), 4.4),
                             squeeze=False, gridspec_kw={"width_ratios": [max(2, len(p.get("columns", [0] * 6))) for p in panels]})
    for ax, p in zip(axes[0], panels):
        kind = p["kind"]
        if kind == "heatmap":
            _heatmap(ax, p, fig)
        elif kind == "lines":
            _lines(ax, p)
        elif kind == "bars":
            _bars(ax, p)
        else:
            raise ValueError(f"unknown figure kind {kind!r}")
    fig.tight_layout()
    fig.savefig(png_path, dpi=150, metadata={"Software": None})
    plt.close(fig)
