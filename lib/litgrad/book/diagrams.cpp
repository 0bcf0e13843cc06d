// Turning a recorded graph into a diagram's boxes and arrows (diagrams.hpp): which vertex is
// drawn as which box, then one arrow per distinct (box, box, shape).

#include "litgrad/book/diagrams.hpp"

#include <algorithm>
#include <cstdio>
#include <set>
#include <tuple>

#include "litgrad/base/error.hpp"

namespace litgrad::book {

namespace {

// The module box an operation belongs to: the scope `depth` below the model in its chain, or
// null when it runs higher up (then it is drawn as itself).
const void* module_box(const std::vector<const void*>& scopes, const void* model, int depth) {
  if (!model || depth == 0) return nullptr;
  const auto at = std::find(scopes.begin(), scopes.end(), model);
  // A model that opens no scope of its own (a chapter's module) sits above the whole chain.
  const std::ptrdiff_t root = at == scopes.end() ? -1 : at - scopes.begin();
  const std::ptrdiff_t wanted = root + depth;
  return wanted < static_cast<std::ptrdiff_t>(scopes.size()) ? scopes[wanted] : nullptr;
}

}  // namespace

Diagram recorded_diagram(const autograd::RecordedGraph& g, const DiagramView& view) {
  if (view.depth < 0 || (view.depth > 0 && !view.model))
    throw ValueError("recorded_diagram: depth ", view.depth, " needs a model to group by and must not be negative");
  std::map<const void*, std::pair<std::string, std::string>> modules;  // name, type
  if (view.model)
    for (const auto& [name, m] : view.model->named_modules()) modules[m] = {name, m->type()};
  const std::size_t n = g.vertices.size();

  std::vector<DiagramNode> nodes;
  std::map<const void*, std::size_t> module_node;
  std::vector<std::size_t> box(n, 0);
  // Module boxes first, in the order their first operation ran, so that parameters can be
  // placed inside the module whose name prefixes theirs.
  for (std::size_t v = 0; v < n; ++v) {
    const void* m = module_box(g.vertices[v].scopes, view.model, view.depth);
    if (m && !module_node.count(m)) {
      const auto it = modules.find(m);
      const std::string label = it == modules.end()        ? "module"
                                : it->second.first.empty() ? it->second.second
                                                           : it->second.first + "\n" + it->second.second;
      module_node[m] = nodes.size();
      nodes.push_back({label, "module"});
    }
  }
  const auto owner_of = [&](const std::string& parameter) {
    std::size_t best = nodes.size(), best_length = 0;
    for (const auto& [m, node] : module_node) {
      const std::string prefix = modules.count(m) ? modules.at(m).first + "." : "";
      if (prefix.size() > 1 && parameter.rfind(prefix, 0) == 0 && prefix.size() > best_length)
        best = node, best_length = prefix.size();
    }
    return best;
  };
  for (std::size_t v = 0; v < n; ++v) {
    const auto& vertex = g.vertices[v];
    if (const void* m = module_box(vertex.scopes, view.model, view.depth)) {
      box[v] = module_node.at(m);
      continue;
    }
    if (vertex.op.empty() && !vertex.name.empty()) {
      const std::size_t owner = owner_of(vertex.name);
      if (owner < nodes.size()) {
        box[v] = owner;
        continue;
      }
    }
    if (vertex.op.empty() && vertex.name.empty()) {  // a constant made inside one module
      std::set<std::size_t> readers;
      for (const auto& [from, to] : g.edges)
        if (from == v) {
          const void* m = module_box(g.vertices[to].scopes, view.model, view.depth);
          readers.insert(m ? module_node.at(m) : nodes.size());
        }
      if (readers.size() == 1 && *readers.begin() < nodes.size()) {
        box[v] = *readers.begin();
        continue;
      }
    }
    std::string role = vertex.op.empty() ? (vertex.name.empty()    ? "constant"
                                            : vertex.requires_grad ? "parameter"
                                                                   : "input")
                                         : "operation";
    if (const auto it = view.roles.find(vertex.name); !vertex.name.empty() && it != view.roles.end()) role = it->second;
    std::string label = vertex.op.empty() ? vertex.name : vertex.op;
    if (label.empty()) {  // a constant: its value when it is one number
      label = "constant";
      if (vertex.tensor.numel() == 1) {
        char value[32];
        std::snprintf(value, sizeof value, "%.4g", vertex.tensor.item());
        label = value;
      }
    }
    box[v] = nodes.size();
    nodes.push_back({label, role});
  }

  // One arrow per (from, to, shape): a tensor read twice by one box, or many tensors of one
  // shape between two modules, is one arrow.
  std::vector<DiagramEdge> edges;
  std::set<std::tuple<std::size_t, std::size_t, std::string>> drawn;
  const auto arrow = [&](std::size_t from, std::size_t to, const Shape& shape) {
    if (from == to || !drawn.insert({from, to, to_string(shape)}).second) return;
    edges.push_back({from, to, to_string(shape)});
  };
  for (const auto& [from, to] : g.edges) arrow(box[from], box[to], g.vertices[from].shape);
  if (n > 0) {
    nodes.push_back({"output", "output"});
    arrow(box[n - 1], nodes.size() - 1, g.vertices[n - 1].shape);
  }
  return {nodes, edges, view.wide_left_to_right};
}

}  // namespace litgrad::book
