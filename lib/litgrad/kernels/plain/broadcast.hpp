#pragma once
// The plain room's for_each_broadcast (kernels/broadcast.hpp): an odometer over the output's
// dimensions, one element at a time.

#include <array>
#include <cstdint>

#include "litgrad/kernels/strides.hpp"

namespace litgrad::kernels::plain {

template <std::size_t K, class F>
void for_each_broadcast(const Shape& out, const std::array<const Shape*, K>& operands, F&& f) {
  const std::int64_t total = numel(out);
  if (total == 0) return;
  std::array<Strides, K> strides;
  for (std::size_t k = 0; k < K; ++k) strides[k] = broadcast_strides(*operands[k], out);
  const std::size_t nd = out.size();
  Strides index(nd, 0);
  std::array<std::int64_t, K> offsets{};
  for (std::int64_t i = 0; i < total; ++i) {
    f(i, offsets);
    for (std::size_t d = nd; d-- > 0;) {  // the last dimension moves fastest
      for (std::size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
      if (++index[d] < out[d]) break;
      for (std::size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * out[d];
      index[d] = 0;
    }
  }
}

}  // namespace litgrad::kernels::plain
