#pragma once
// Where tensors keep their elements: a vector of doubles in the kernels' memory
// (kernels/memory.hpp), and the count of the in-place changes made to them. Only the library's
// own .cpp files include this.

#include <cstdint>
#include <vector>

#include "litgrad/kernels/memory.hpp"

namespace litgrad::detail {

/// The elements, shared between a tensor and its detached or reshaped copies (its views).
struct Storage : std::vector<double, kernels::Allocator<double>> {
  using vector::vector;
  /// How many times the elements have been changed in place (copy_, add_, ...) since they were
  /// made: the graph remembers the version of every tensor a backward will read, and refuses
  /// to compute a gradient from one changed since (torch's version counter).
  std::uint64_t version = 0;
};

}  // namespace litgrad::detail
