#pragma once
/// \file graph.hpp
/// \brief The graph a computation recorded, as data: what a backward pass would walk, read out
/// so that it can be printed, counted or drawn (the book draws its diagrams from it), as
/// torchviz's `make_dot` reads torch's `grad_fn` chain.
///
/// Every operation on a tensor that requires grad leaves a record of its inputs (autograd.hpp).
/// recorded_graph() walks those records back from an output and returns one vertex per
/// operation and per tensor with no history (an input, a parameter, a constant), each with the
/// shape of the tensor it stands for, and an edge from each input to the operation that read
/// it, and from each other tensor it read (an index, a condition, which get no gradient). A ScopeCapture alive during
/// the forward pass also notes, for every operation, the scopes it ran inside: the library's modules open one each
/// (nn::Module::scope()), so a model's graph can be drawn module by module (book/diagrams.hpp draws it so).

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "litgrad/core/tensor.hpp"

namespace litgrad {

namespace detail {
struct Node;
}

namespace autograd {

/// \brief A vertex of RecordedGraph: an operation, or a tensor with no history.
struct RecordedVertex {
  std::string op;              ///< the operation's name, as `grad_fn()` gives it; empty for a tensor with no history
  std::string name;            ///< a tensor's name from recorded_graph()'s \p names; empty when not named
  Shape shape;                 ///< the shape of the tensor the operation made, or of the tensor itself
  bool requires_grad = false;  ///< false for a constant: a tensor with no history that requires no grad
  /// The tensor itself for a tensor with no history; undefined for an operation (the record
  /// does not keep what an operation made).
  Tensor tensor;
  /// The scopes the operation ran inside, outermost first (each the object that opened it,
  /// for nn::Module::scope() the module); empty without a ScopeCapture, and for tensors.
  std::vector<const void*> scopes;
};

/// \brief The graph recorded from the inputs to one output.
struct RecordedGraph {
  /// Inputs come before the operations that read them; the output is the last vertex.
  std::vector<RecordedVertex> vertices;
  /// `{input, operation}` for every input an operation read (a tensor read twice, twice), in
  /// the order of the operation's inputs, then for every other tensor it read (embedding's
  /// ids, where's condition, gather's index).
  std::vector<std::pair<std::size_t, std::size_t>> edges;
};

/// \brief While it lives, notes on this thread which scopes each recorded operation runs
/// inside, for recorded_graph(). Scopes cost nothing when no capture is alive.
///
/// \code
/// autograd::ScopeCapture capture;
/// Tensor loss = model(x).sum();   // the library's modules open their scopes
/// auto g = autograd::recorded_graph(loss, model.named_parameters(), &capture);
/// \endcode
class ScopeCapture {
 public:
  /// \brief Begins noting scopes on this thread (inside an outer capture, this one notes them).
  ScopeCapture();
  /// \brief Stops, giving the thread back to any outer capture.
  ~ScopeCapture();
  ScopeCapture(const ScopeCapture&) = delete;
  ScopeCapture& operator=(const ScopeCapture&) = delete;
  /// \brief The scopes noted for the operation whose record is \p node, outermost first.
  std::vector<const void*> scopes_of(const litgrad::detail::Node* node) const;

 private:
  friend struct CaptureAccess;
  ScopeCapture* outer_;  // a capture alive when this one began (captures nest)
  std::unordered_map<const litgrad::detail::Node*, std::vector<const void*>> scopes_;
};

/// \brief While it lives, and a ScopeCapture is alive on this thread, every operation recorded
/// runs inside the scope of \p owner (a module, usually through nn::Module::scope()).
class Scope {
 public:
  /// \brief Opens the scope of \p owner, when a capture is alive on this thread.
  explicit Scope(const void* owner);
  /// \brief Closes it.
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  bool open_;
};

/// \brief The graph recorded from the tensors with no history to \p output.
///
/// \param output a tensor made by recorded operations (a tensor with no history gives a graph
///   of one vertex).
/// \param names names for tensors with no history, matched by identity (the same tensor, not
///   the same values), as `model.named_parameters()` gives them; others keep an empty name.
/// \param scopes a capture that was alive while \p output was computed, to fill each
///   operation's scopes.
/// \throws AutogradError when the graph has been freed by a backward pass (without
///   `retain_graph`): its records no longer hold their inputs.
RecordedGraph recorded_graph(const Tensor& output, const std::vector<std::pair<std::string, Tensor>>& names = {},
                             const ScopeCapture* scopes = nullptr);

}  // namespace autograd
}  // namespace litgrad
