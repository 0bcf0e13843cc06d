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
#include "litgrad/tensor.hpp"

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

}  // namespace litgrad::book
