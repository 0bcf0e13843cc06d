#pragma once
/// \file book/figures.hpp
/// \brief Describing a chapter's figures as data: what kind of plot, its numbers and labels.
///
/// Chapters do not draw. They hand the book a description built here (with book::figure());
/// the book's Sphinx extension draws it with matplotlib when it renders the page. Each
/// description is a Json object with a `kind` and the fields that kind needs.

#include <string>
#include <vector>

#include "litgrad/book/json.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::book {

/// \brief A heatmap of a matrix `[rows, columns]`, with a label for every row and column and
/// for both axes. Add `"outline"` (an array of `[row, column]` pairs) to frame cells.
/// \throws ShapeError unless \p values is 2-D and the label counts match.
Json heatmap(const Tensor& values, const std::vector<std::string>& row_labels,
             const std::vector<std::string>& column_labels, const std::string& xlabel, const std::string& ylabel);

/// \brief Labels for `n` rows or columns: `prefix + "0"`, `prefix + "1"`, ... (`"0"` to `"7"`
/// for eight positions, `"example 1"` ... with \p prefix `"example "` and \p first 1).
std::vector<std::string> numbered(std::int64_t n, const std::string& prefix = "", std::int64_t first = 0);

/// \brief Several plots side by side, each with a `"title"` set by the caller.
Json side_by_side(const std::vector<Json>& panels);

/// \brief One line of a line plot: y against x, named in the legend.
/// \throws ShapeError when x and y differ in length.
Json series(const std::string& label, const std::vector<double>& x, const std::vector<double>& y);

/// \brief A line plot of several series; \p log_y puts the y axis on a log scale.
Json line_plot(const std::string& xlabel, const std::string& ylabel, const std::vector<Json>& series,
               bool log_y = false);

/// \brief Bars: for every category, one bar per series (series made with series() and x the
/// category indices).
Json bar_plot(const std::string& xlabel, const std::string& ylabel, const std::vector<std::string>& categories,
              const std::vector<Json>& series);

/// \brief One box of diagram(): its text (lines separated by `\n`) and what it stands for,
/// which gives its colour and outline: `"input"`, `"parameter"`, `"constant"`, `"operation"`,
/// `"module"`, `"cache"` or `"output"`.
struct DiagramNode {
  std::string label;               ///< the text in the box
  std::string role = "operation";  ///< what it stands for
};

/// \brief An arrow of diagram(), from node \p from to node \p to (indices), with a label (a
/// shape, usually: what flows along it), empty for none.
struct DiagramEdge {
  std::size_t from = 0;  ///< the node it leaves
  std::size_t to = 0;    ///< the node it points to
  std::string label;     ///< written beside the arrow
};

/// \brief A diagram of boxes and arrows, laid out by Graphviz: top to bottom, or left to right
/// on wide screens when \p wide_left_to_right (narrow screens always get top to bottom).
/// book/diagrams.hpp makes one from a graph a computation recorded.
/// \throws ValueError for an edge naming a node that does not exist or an unknown role.
Json diagram(const std::vector<DiagramNode>& nodes, const std::vector<DiagramEdge>& edges,
             bool wide_left_to_right = false);

/// \brief A grid of values over the plane, z[i][j] at (x[j], y[i]), for plane(): drawn as
/// filled contours (\p style `"contour"`, with \p levels contour lines, log-spaced when
/// \p log_levels) or as a map of classes (\p style `"regions"`, z holding class numbers).
/// Set `"vmin"` and `"vmax"` to fix the contours' range (so that panels share colours) and
/// `"colorbar"` to a label to draw a colour bar.
/// \throws ShapeError unless \p z is `[y.size(), x.size()]`.
Json field(const std::vector<double>& x, const std::vector<double>& y, const Tensor& z,
           const std::string& style = "contour", int levels = 12, bool log_levels = false);

/// \brief Points for plane(), named \p label in the legend; \p text, if given, one label per
/// point written beside it. \throws ShapeError when the counts differ.
Json points(const std::string& label, const std::vector<double>& x, const std::vector<double>& y,
            const std::vector<std::string>& text = {});

/// \brief A path through the plane for plane(), as a line with a marker at each point
/// (set `"markers"` false for a plain line, as for a curve).
/// \throws ShapeError when x and y differ in length.
Json path(const std::string& label, const std::vector<double>& x, const std::vector<double>& y);

/// \brief A plot of the plane: an optional field() underneath (pass `Json()` for none), then
/// paths and points over it, with equal scales on both axes when \p equal_axes.
Json plane(const std::string& xlabel, const std::string& ylabel, const Json& field, const std::vector<Json>& paths,
           const std::vector<Json>& points, bool equal_axes = false);

}  // namespace litgrad::book
