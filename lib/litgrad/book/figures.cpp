#include "litgrad/book/figures.hpp"

#include <algorithm>

#include "litgrad/base/error.hpp"

namespace litgrad::book {

namespace {
Json array_of(const std::vector<Json>& items) {
  Json a = Json::array();
  for (const auto& item : items) a.push(item);
  return a;
}
}  // namespace

Json heatmap(const Tensor& values, const std::vector<std::string>& rows, const std::vector<std::string>& columns,
             const std::string& xlabel, const std::string& ylabel) {
  if (values.dim() != 2 || values.size(0) != static_cast<std::int64_t>(rows.size()) ||
      values.size(1) != static_cast<std::int64_t>(columns.size()))
    throw ShapeError("heatmap: values of shape ", values.shape(), " with ", rows.size(), " row and ", columns.size(),
                     " column labels");
  return Json::object()
      .set("kind", "heatmap")
      .set("values", Json::from(values))
      .set("rows", Json::from(rows))
      .set("columns", Json::from(columns))
      .set("xlabel", xlabel)
      .set("ylabel", ylabel);
}

std::vector<std::string> numbered(std::int64_t n, const std::string& prefix, std::int64_t first) {
  if (n < 0) throw ValueError("numbered: a count of ", n, " labels");
  std::vector<std::string> labels;
  for (std::int64_t i = 0; i < n; ++i) labels.push_back(prefix + std::to_string(first + i));
  return labels;
}

Json side_by_side(const std::vector<Json>& panels) {
  return Json::object().set("kind", "panels").set("panels", array_of(panels));
}

Json series(const std::string& label, const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw ShapeError("series: ", x.size(), " x values and ", y.size(), " y values");
  return Json::object().set("label", label).set("x", Json::from(x)).set("y", Json::from(y));
}

Json line_plot(const std::string& xlabel, const std::string& ylabel, const std::vector<Json>& lines, bool log_y) {
  return Json::object()
      .set("kind", "lines")
      .set("xlabel", xlabel)
      .set("ylabel", ylabel)
      .set("log_y", Json::boolean(log_y))
      .set("series", array_of(lines));
}

Json bar_plot(const std::string& xlabel, const std::string& ylabel, const std::vector<std::string>& categories,
              const std::vector<Json>& bars) {
  return Json::object()
      .set("kind", "bars")
      .set("xlabel", xlabel)
      .set("ylabel", ylabel)
      .set("categories", Json::from(categories))
      .set("series", array_of(bars));
}

Json diagram(const std::vector<DiagramNode>& nodes, const std::vector<DiagramEdge>& edges, bool wide_left_to_right) {
  static const std::vector<std::string> roles = {"input",  "parameter", "constant", "operation",
                                                 "module", "cache",     "output"};
  Json n = Json::array(), e = Json::array();
  for (const auto& node : nodes) {
    if (std::find(roles.begin(), roles.end(), node.role) == roles.end())
      throw ValueError("diagram: the node '", node.label, "' has role '", node.role,
                       "'; the roles are input, parameter, constant, operation, module, cache and output");
    n.push(Json::object().set("label", node.label).set("role", node.role));
  }
  for (const auto& edge : edges) {
    if (edge.from >= nodes.size() || edge.to >= nodes.size())
      throw ValueError("diagram: edge ", edge.from, " -> ", edge.to, " for ", nodes.size(), " nodes");
    e.push(Json::object()
               .set("from", static_cast<std::int64_t>(edge.from))
               .set("to", static_cast<std::int64_t>(edge.to))
               .set("label", edge.label));
  }
  return Json::object()
      .set("kind", "diagram")
      .set("nodes", n)
      .set("edges", e)
      .set("wide_left_to_right", Json::boolean(wide_left_to_right));
}

Json field(const std::vector<double>& x, const std::vector<double>& y, const Tensor& z, const std::string& style,
           int levels, bool log_levels) {
  if (z.dim() != 2 || z.size(0) != static_cast<std::int64_t>(y.size()) ||
      z.size(1) != static_cast<std::int64_t>(x.size()))
    throw ShapeError("field: z of shape ", z.shape(), " for ", y.size(), " y and ", x.size(), " x values");
  return Json::object()
      .set("x", Json::from(x))
      .set("y", Json::from(y))
      .set("z", Json::from(z))
      .set("style", style)
      .set("levels", levels)
      .set("log_levels", Json::boolean(log_levels));
}

Json points(const std::string& label, const std::vector<double>& x, const std::vector<double>& y,
            const std::vector<std::string>& text) {
  if (x.size() != y.size() || (!text.empty() && text.size() != x.size()))
    throw ShapeError("points: ", x.size(), " x, ", y.size(), " y and ", text.size(), " labels");
  Json p = Json::object().set("label", label).set("x", Json::from(x)).set("y", Json::from(y));
  if (!text.empty()) p.set("text", Json::from(text));
  return p;
}

Json path(const std::string& label, const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) throw ShapeError("path: ", x.size(), " x values and ", y.size(), " y values");
  return Json::object().set("label", label).set("x", Json::from(x)).set("y", Json::from(y));
}

Json plane(const std::string& xlabel, const std::string& ylabel, const Json& field_data, const std::vector<Json>& paths,
           const std::vector<Json>& point_sets, bool equal_axes) {
  return Json::object()
      .set("kind", "plane")
      .set("xlabel", xlabel)
      .set("ylabel", ylabel)
      .set("field", field_data)
      .set("paths", array_of(paths))
      .set("points", array_of(point_sets))
      .set("equal_axes", Json::boolean(equal_axes));
}

}  // namespace litgrad::book
