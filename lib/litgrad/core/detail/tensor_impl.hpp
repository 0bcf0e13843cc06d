#pragma once
// What a Tensor handle points to. Only the library's own .cpp files include this.

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "litgrad/core/detail/storage.hpp"
#include "litgrad/core/tensor.hpp"

namespace litgrad::detail {

struct Node;

struct TensorImpl {
  std::shared_ptr<Storage> storage;
  Shape shape;
  DType dtype = DType::Float64;
  bool requires_grad = false;
  bool retains_grad = false;      // a non-leaf whose gradient backward() keeps in `grad`
  Tensor grad;                    // accumulated by backward(); leaves (and retains_grad)
  std::shared_ptr<Node> grad_fn;  // the operation that made this tensor; null for a leaf
  // Functions called with this tensor's gradient once backward() has it whole, each of which
  // may replace it (register_hook), with the numbers that remove them.
  std::vector<std::pair<std::uint64_t, std::function<Tensor(const Tensor&)>>> hooks;
  // Kept by backward() while it runs, in the tensor rather than in a map: the number of the
  // pass that last reached this tensor, and the gradient arriving from the tensors made from it.
  std::uint64_t reached_in_pass = 0;
  Tensor pending_grad;
};

/// A fresh zero-filled tensor with no history.
Tensor empty_tensor(const Shape& shape, DType dtype = DType::Float64);
// Throws ValueError "<op>: negative size in shape [...]" for a negative size.
void check_sizes(const char* op, const Shape& shape);

/// A fresh tensor with no history whose elements are not set: only for an output that the
/// caller writes in full before anyone reads it.
Tensor uninitialized_tensor(const Shape& shape, DType dtype = DType::Float64);

/// A tensor with no history sharing x's storage under another shape (same element count).
Tensor share_storage(const Tensor& x, const Shape& shape);

/// Throws ValueError naming op when x has no elements.
void require_nonempty(const char* op, const Tensor& x);

}  // namespace litgrad::detail
