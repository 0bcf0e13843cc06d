#pragma once
// The fast room's for_each_broadcast (kernels/broadcast.hpp): neighbouring dimensions that every
// operand walks as one are merged, and rows of two to four elements get their length fixed when
// compiling, so that the compiler unrolls them. The elements are visited in the same order as
// the plain room's odometer.

#include <array>
#include <cstdint>
#include <type_traits>

#include "litgrad/kernels/strides.hpp"

namespace litgrad::kernels::fast {

/// Calls f(width) with `width` = n: a compile-time constant (std::integral_constant) for n from 2
/// to 4, so that a loop of `width` iterations unrolls (short rows, such as a pair of features,
/// cost more in loop control than in arithmetic), and a plain std::int64_t otherwise.
template <class F>
void with_short_width(std::int64_t n, F&& f) {
  switch (n) {
    case 2: return f(std::integral_constant<std::int64_t, 2>());
    case 3: return f(std::integral_constant<std::int64_t, 3>());
    case 4: return f(std::integral_constant<std::int64_t, 4>());
    default: return f(n);
  }
}

/// Calls f(i, offsets) for every element i (row-major) of `out`, where offsets[k] is the
/// position of the matching element of operand k, whose shape broadcasts to `out`.
template <std::size_t K, class F>
void for_each_broadcast(const Shape& out, const std::array<const Shape*, K>& operands, F&& f) {
  if (numel(out) == 0) return;
  std::array<Strides, K> full;
  for (std::size_t k = 0; k < K; ++k) full[k] = broadcast_strides(*operands[k], out);
  // Merge neighbouring dimensions that every operand walks as one (stride[d] equal to
  // stride[d+1] * size[d+1]), so that the inner loop runs as long as it can: [64, 8, 2] summed
  // over its middle dimension walks as [64, 16] for the input.
  Shape size;
  std::array<Strides, K> strides;
  for (std::size_t d = 0; d < out.size(); ++d) {
    if (out[d] == 1) continue;
    bool merge = !size.empty();
    for (std::size_t k = 0; k < K && merge; ++k) merge = strides[k].back() == full[k][d] * out[d];
    if (merge) {
      size.back() *= out[d];
      for (std::size_t k = 0; k < K; ++k) strides[k].back() = full[k][d];
    } else {
      size.push_back(out[d]);
      for (std::size_t k = 0; k < K; ++k) strides[k].push_back(full[k][d]);
    }
  }
  std::array<std::int64_t, K> offsets{};
  const std::size_t nd = size.size();
  if (nd == 0) {  // a single element, at offset 0 in every operand
    f(std::int64_t{0}, offsets);
    return;
  }
  const std::int64_t inner = size[nd - 1];
  std::array<std::int64_t, K> inner_stride{};
  for (std::size_t k = 0; k < K; ++k) inner_stride[k] = strides[k][nd - 1];
  // The innermost dimension, of `width` elements (a constant for short rows).
  auto run = [&](std::int64_t i, std::array<std::int64_t, K> o, auto width) {
    for (std::int64_t j = 0; j < width; ++j) {
      f(i + j, o);
      for (std::size_t k = 0; k < K; ++k) o[k] += inner_stride[k];
    }
  };
  if (nd <= 2) {  // most do, after merging: a plain loop of rows
    const std::int64_t rows = nd == 2 ? size[0] : 1;
    with_short_width(inner, [&](auto width) {
      for (std::int64_t r = 0; r < rows; ++r) {
        for (std::size_t k = 0; k < K; ++k) offsets[k] = nd == 2 ? r * strides[k][0] : 0;
        run(r * inner, offsets, width);
      }
    });
    return;
  }
  // Otherwise the outer dimensions advance like an odometer.
  Strides index(nd, 0);
  const std::int64_t total = numel(size);
  for (std::int64_t i = 0; i < total; i += inner) {
    run(i, offsets, inner);
    for (std::size_t d = nd - 1; d-- > 0;) {
      for (std::size_t k = 0; k < K; ++k) offsets[k] += strides[k][d];
      if (++index[d] < size[d]) break;
      for (std::size_t k = 0; k < K; ++k) offsets[k] -= strides[k][d] * size[d];
      index[d] = 0;
    }
  }
}

}  // namespace litgrad::kernels::fast
