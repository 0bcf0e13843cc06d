#pragma once
// The autograd record: one Node per operation that had an input requiring grad.
// Only the library's own .cpp files include this.

#include <functional>
#include <vector>

#include "litgrad/tensor.hpp"

namespace litgrad::detail {

/// Given the gradient of the objective with respect to an operation's output, returns one
/// gradient per input, shaped like that input (undefined where an input needs none).
using BackwardFn = std::function<std::vector<Tensor>(const Tensor& grad_output)>;

struct Node {
  Node(const char* op, std::vector<Tensor> inputs, BackwardFn backward);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  const char* op;              // the operation's public name, e.g. "matmul"
  std::vector<Tensor> inputs;  // where the gradients go; emptied when the graph is freed
  BackwardFn backward;         // null once freed by a backward() without retain_graph
};

/// Makes `value` (a freshly computed tensor with no history) the output of `op`.
/// When recording is on and some input requires grad, the result carries a Node; otherwise it
/// is `value` itself. `backward` may capture `value` (it shares the storage, not the Node, so
/// the graph holds no cycle).
Tensor record(const char* op, const Tensor& value, std::vector<Tensor> inputs,
              BackwardFn backward);

}  // namespace litgrad::detail
