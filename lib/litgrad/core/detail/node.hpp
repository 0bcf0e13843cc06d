#pragma once
// The autograd record: one Node per operation that had an input requiring grad.
// Only the library's own .cpp files include this.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <utility>
#include <vector>

#include "litgrad/core/op.hpp"
#include "litgrad/core/tensor.hpp"
#include "litgrad/kernels/memory.hpp"

namespace litgrad::detail {

/// Given the gradient of the objective with respect to an operation's output, returns one
/// gradient per input, shaped like that input (undefined where an input needs none). It computes
/// on raw numbers and records nothing.
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output)>;

/// The same gradients written with operations, so that they are recorded in their turn and can
/// be differentiated again (autograd::grad with create_graph): given the gradient of the output,
/// the output and the inputs, each with its history.
using GraphBackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output, const Tensor& output,
                                                          const std::vector<Tensor>& inputs)>;

/// Which of an operation's tensors its backward reads: changing one in place between the
/// forward and the backward would make the gradient wrong, so backward() refuses (as torch's
/// "modified by an inplace operation"). By default every input and the output.
struct Saved {
  std::uint32_t inputs = ~0u;  ///< bit i: input i is read
  bool output = true;          ///< the output is read
  static Saved nothing() { return {0u, false}; }
  static Saved only_inputs() { return {~0u, false}; }
  static Saved only_output() { return {0u, true}; }
};

/// A tensor an operation's backward reads that is not one of its inputs, so that no gradient
/// goes to it: where's condition, gather's index, max's indices. Changed in place between the
/// forward and the backward it would make the gradient wrong silently, so its version is kept
/// and checked as a saved input's is. `what` names it in the error: "the condition".
struct Read {
  const char* what;
  const Tensor& tensor;
};
using Reads = std::initializer_list<Read>;

struct Node {
  // The inputs and their versions live in the kernels' recycled blocks, as the Node itself:
  // from the heap, each was one more allocation and free per recorded operation.
  using InputList = std::vector<Tensor, kernels::Allocator<Tensor>>;

  Node(const char* op, InputList inputs, BackwardFn backward, GraphBackwardFn graph_backward, Saved saved,
       std::uint64_t output_version);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const char* op;                  // the operation's public name, e.g. "matmul"
  InputList inputs;                // where the gradients go; emptied when the graph is freed
  BackwardFn backward;             // null once freed by a backward() without retain_graph
  GraphBackwardFn graph_backward;  // null when the operation has none (then no create_graph through it)
  Saved saved;
  // The storage versions of the inputs when recorded.
  std::vector<std::uint64_t, kernels::Allocator<std::uint64_t>> input_versions;
  std::uint64_t output_version;
  // The tensors the backward reads besides the inputs (Read), with their versions when recorded.
  struct Kept {
    const char* what;
    Tensor tensor;
    std::uint64_t version;
  };
  std::vector<Kept, kernels::Allocator<Kept>> reads;
};

/// The inputs of an operation as a call of record() lists them, `{a, b}`: references, so that
/// listing them copies nothing when nothing is recorded.
using Inputs = std::initializer_list<std::reference_wrapper<const Tensor>>;

/// Whether a gradient must reach t: it is defined and requires grad.
inline bool needs_grad(const Tensor& t) { return t.defined() && t.requires_grad(); }

/// Whether an operation on `inputs` is recorded: recording is on and some input requires grad.
bool records(Inputs inputs);
bool records(const std::vector<Tensor>& inputs);

/// While an autograd::ScopeCapture lives on this thread, make_node() hands it every Node it
/// makes (autograd/graph.cpp sets this); null otherwise, when recording pays one test for it.
extern thread_local void (*note_node)(const Node*);

/// Makes `value` (a freshly computed tensor) the output of the operation named `op`, with a
/// Node holding the inputs and the backward functions (record() below, once it has decided to
/// record; a custom autograd::Function, named by its author).
Tensor make_node(const char* op, const Tensor& value, Node::InputList inputs, BackwardFn backward,
                 GraphBackwardFn graph_backward, Saved saved, Reads reads = {});

/// Makes `value` (a freshly computed tensor with no history) the output of `op`, an entry of
/// the table of operations (ops/registry.hpp: the library records nothing that is not there).
/// When recording is on and some input requires grad, the result carries a Node; otherwise it
/// is `value` itself, and neither the closures nor a list of the inputs is made (an evaluation,
/// or the operations a backward pass runs, pay nothing for a history they do not keep).
/// `backward` may capture `value` (it shares the storage, not the Node, so the graph holds no
/// cycle). `graph_backward`, when given, is the backward written with operations; `saved` says
/// which of the inputs and output the backward reads, and `reads` lists any other tensor either
/// backward reads (a condition, an index), which must not change before it runs.
template <class Backward, class GraphBackward = std::nullptr_t>
Tensor record(const Op& op, const Tensor& value, Inputs inputs, Backward&& backward,
              GraphBackward&& graph_backward = nullptr, Saved saved = Saved(), Reads reads = {}) {
  if (!records(inputs)) return value;
  return make_node(op.name, value, Node::InputList(inputs.begin(), inputs.end()), std::forward<Backward>(backward),
                   std::forward<GraphBackward>(graph_backward), saved, reads);
}

/// The same, for an operation on a list of tensors (cat).
template <class Backward, class GraphBackward = std::nullptr_t>
Tensor record(const Op& op, const Tensor& value, const std::vector<Tensor>& inputs, Backward&& backward,
              GraphBackward&& graph_backward = nullptr, Saved saved = Saved()) {
  if (!records(inputs)) return value;
  return make_node(op.name, value, Node::InputList(inputs.begin(), inputs.end()), std::forward<Backward>(backward),
                   std::forward<GraphBackward>(graph_backward), saved);
}

/// Marks an in-place change of t's elements: every tensor sharing its storage is now one
/// version later. \throws AutogradError, naming \p op, when gradients are being recorded and t
/// requires grad (a leaf: torch refuses; a tensor made by an operation: litgrad does not record
/// in-place operations); the error suggests \p instead, the out-of-place form to use in a graph
/// (by default op without its underscore: "add" for "add_").
void note_in_place(const char* op, const Tensor& t, const char* instead = nullptr);

/// Marks t's elements as changed in place by the library itself (an optimiser's step, a loaded
/// state): every tensor sharing its storage is one version later, as after torch's in-place
/// updates, so a graph that saved the old values refuses to use them.
void bump_version(const Tensor& t);

}  // namespace litgrad::detail
