#pragma once
// The autograd record: one Node per operation that had an input requiring grad.
// Only the library's own .cpp files include this.

#include <cstdint>
#include <functional>
#include <vector>

#include "litgrad/kernels/memory.hpp"
#include "litgrad/tensor.hpp"

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

struct Node {
  Node(const char* op, std::vector<Tensor> inputs, BackwardFn backward, GraphBackwardFn graph_backward, Saved saved,
       std::uint64_t output_version);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const char* op;                  // the operation's public name, e.g. "matmul"
  std::vector<Tensor> inputs;      // where the gradients go; emptied when the graph is freed
  BackwardFn backward;             // null once freed by a backward() without retain_graph
  GraphBackwardFn graph_backward;  // null when the operation has none (then no create_graph through it)
  Saved saved;
  // The storage versions of the inputs when recorded, in the kernels' recycled blocks (as the
  // Node itself): from the heap, they were one more allocation and free per operation.
  std::vector<std::uint64_t, kernels::Allocator<std::uint64_t>> input_versions;
  std::uint64_t output_version;
};

/// Makes `value` (a freshly computed tensor with no history) the output of `op`.
/// When recording is on and some input requires grad, the result carries a Node; otherwise it
/// is `value` itself. `backward` may capture `value` (it shares the storage, not the Node, so
/// the graph holds no cycle). `graph_backward`, when given, is the backward written with
/// operations; `saved` says which tensors the backward reads.
Tensor record(const char* op, const Tensor& value, std::vector<Tensor> inputs, BackwardFn backward,
              GraphBackwardFn graph_backward = nullptr, Saved saved = Saved());

/// Marks an in-place change of t's elements: every tensor sharing its storage is now one
/// version later. \throws AutogradError, naming \p op, when gradients are being recorded and t
/// requires grad (a leaf: torch refuses; a tensor made by an operation: litgrad does not record
/// in-place operations).
void note_in_place(const char* op, const Tensor& t);

/// Marks t's elements as changed in place by the library itself (an optimiser's step, a loaded
/// state): every tensor sharing its storage is one version later, as after torch's in-place
/// updates, so a graph that saved the old values refuses to use them.
void bump_version(const Tensor& t);

/// Sums g over the dimensions it has beyond `shape`, or of size 1 in `shape`: the gradient of
/// an operand that was broadcast to g's shape, recorded (so that it can be differentiated).
Tensor sum_to(const Tensor& g, const Shape& shape);

}  // namespace litgrad::detail
