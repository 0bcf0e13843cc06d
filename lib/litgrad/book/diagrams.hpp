#pragma once
/// \file book/diagrams.hpp
/// \brief A chapter's diagrams drawn from what its code recorded: the graph of a real forward
/// pass (autograd::recorded_graph()), each operation a box, each tensor an arrow with its
/// shape, and a model's modules, when asked, each one box. A change to the code changes the
/// diagram, since nothing in it is typed by hand.

#include <map>
#include <string>
#include <vector>

#include "litgrad/autograd/graph.hpp"
#include "litgrad/book/figures.hpp"
#include "litgrad/book/json.hpp"
#include "litgrad/nn/module.hpp"

namespace litgrad::book {

/// \brief How recorded_diagram() draws a recorded graph.
struct DiagramView {
  /// The model whose modules group the operations (its named_modules() name them), or null to
  /// draw every operation.
  nn::Module* model = nullptr;
  /// With a model: the operations inside a module this many scopes below the model (1: the
  /// model's own children) are drawn as one box for that module, its name and type in it; the
  /// module's parameters, and any constant only it reads, go inside the box. 0 draws every
  /// operation.
  int depth = 0;
  /// Roles given by name, over the defaults (a named tensor with no history is a `"parameter"`
  /// when it requires grad and an `"input"` when not; one with no name a `"constant"`, shown
  /// by its value when it is one number): such
  /// as `{{"cache keys", "cache"}}`.
  std::map<std::string, std::string> roles;
  /// Left to right on wide screens (top to bottom on narrow ones, always).
  bool wide_left_to_right = false;
};

/// \brief The boxes and arrows of a diagram, as a test reads them; json() is the description
/// book::figure() takes.
struct Diagram {
  std::vector<DiagramNode> nodes;   ///< in the order of the recorded graph's vertices
  std::vector<DiagramEdge> edges;   ///< one per distinct (from, to, shape)
  bool wide_left_to_right = false;  ///< as DiagramView's
  /// \brief The description figures.hpp's diagram() makes of these boxes and arrows.
  Json json() const { return diagram(nodes, edges, wide_left_to_right); }
};

/// \brief Graph \p g drawn as \p view asks, with an `"output"` box after the last vertex:
/// the tensor the graph was recorded from.
/// \throws ValueError when \p view.depth is negative or is set without a model.
Diagram recorded_diagram(const autograd::RecordedGraph& g, const DiagramView& view = {});

}  // namespace litgrad::book
