#pragma once
// Where tensors keep their elements: a vector of doubles in the kernels' memory
// (kernels/memory.hpp). Only the library's own .cpp files include this.

#include <vector>

#include "litgrad/kernels/memory.hpp"

namespace litgrad::detail {

/// The elements, shared between a tensor and its detached or reshaped copies.
using Storage = std::vector<double, kernels::Allocator<double>>;

}  // namespace litgrad::detail
