#pragma once
// Strides: where the elements of a broadcast operand sit, for the loops of kernels/broadcast.hpp
// and the batches of kernels/attention.hpp. Only the library's own .cpp files include this.

#include <cstdint>

#include "litgrad/base/shape.hpp"

namespace litgrad::kernels {

/// All of `shape` but its last `trailing` dimensions: with trailing = 2, the batch dimensions of
/// a stack of matrices.
inline Shape leading_dims(const Shape& shape, std::int64_t trailing) {
  return Shape(shape.begin(), shape.end() - trailing);
}

/// Element offsets per dimension (or anything else that is a short list of int64): Shape's
/// storage, which keeps up to six inside itself and so allocates nothing for most tensors.
using Strides = Shape;

/// Row-major strides of `shape` read as broadcast to `out`: 0 along every dimension that
/// `shape` lacks or has size 1 in, so the same element is reused across it.
inline Strides broadcast_strides(const Shape& shape, const Shape& out) {
  Strides strides(out.size(), 0);
  std::int64_t stride = 1;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const std::size_t i = shape.size() - 1 - k;  // dimension of `shape`, from the right
    const std::size_t j = out.size() - 1 - k;    // the matching dimension of `out`
    strides[j] = shape[i] == 1 ? 0 : stride;
    stride *= shape[i];
  }
  return strides;
}

}  // namespace litgrad::kernels
