#pragma once
// Walking the elements of an output shape while tracking where each broadcast operand's element
// lives: the loop under every elementwise operation, where(), the batches of matmul and of
// attention. Only the library's own .cpp files include this.
//
// for_each_broadcast<K>(out, {&shape_0, ..., &shape_K-1}, f) calls f(i, offsets) for every
// element i of `out` in row-major order, where offsets[k] is the position of the matching
// element of operand k, whose shape broadcasts to `out`. Both rooms visit the elements in the
// same order; the fast one merges dimensions and fixes short rows' lengths when compiling.
// for_each_broadcast_in_rows is the same walk cut into parts for threads where that changes no
// bit.

#include <array>
#include <cstdint>

#include "litgrad/kernels/parallel.hpp"
#include "litgrad/kernels/plain/broadcast.hpp"
#include "litgrad/kernels/room.hpp"
#include "litgrad/kernels/strides.hpp"
#if LITGRAD_FAST
#include "litgrad/kernels/fast/broadcast.hpp"
#endif

namespace litgrad::kernels {
using room::for_each_broadcast;

/// for_each_broadcast(out, operands, f), with out cut into ranges of its first dimension of
/// more than one element (out's rows) for threads, when operand `written` is not broadcast
/// along that dimension (or is -1: nothing is written into an operand): then each part writes
/// its own rows of that operand, each element getting its terms in the order the whole walk
/// gives them, so no bit changes. Otherwise the walk runs whole, on this thread.
template <std::size_t K, class F>
void for_each_broadcast_in_rows(const Shape& out, const std::array<const Shape*, K>& operands, int written, F f) {
  if (numel(out) == 0) return;
  std::size_t d = 0;  // out's first dimension with more than one element
  while (d < out.size() && out[d] == 1) ++d;
  // Operand k's dimension that lines up with d (shapes align on the right), or -1 if it has none.
  auto aligned = [&](std::size_t k) {
    const std::int64_t j = static_cast<std::int64_t>(d) - static_cast<std::int64_t>(out.size() - operands[k]->size());
    return j >= 0 && (*operands[k])[static_cast<std::size_t>(j)] == out[d] ? j : -1;
  };
  if (d + 1 >= out.size() || (written >= 0 && aligned(static_cast<std::size_t>(written)) < 0))
    return for_each_broadcast<K>(out, operands, f);
  const std::int64_t rows = out[d], row = numel(out) / rows;
  in_ranges(rows, row * kElementWork, [&](std::int64_t begin, std::int64_t end) {
    if (begin == 0 && end == rows) return for_each_broadcast<K>(out, operands, f);
    Shape part = out;
    part[d] = end - begin;
    std::array<Shape, K> shapes;
    std::array<const Shape*, K> parts;
    std::array<std::int64_t, K> skip{};
    for (std::size_t k = 0; k < K; ++k) {
      shapes[k] = *operands[k];
      const std::int64_t j = aligned(k);  // the dimensions before j are all 1, as out's before d
      if (j >= 0) {
        shapes[k][static_cast<std::size_t>(j)] = end - begin;
        skip[k] = begin * (numel(*operands[k]) / rows);
      }
      parts[k] = &shapes[k];
    }
    for_each_broadcast<K>(part, parts, [&](std::int64_t i, std::array<std::int64_t, K> o) {
      for (std::size_t k = 0; k < K; ++k) o[k] += skip[k];
      f(begin * row + i, o);
    });
  });
}
}  // namespace litgrad::kernels
