#pragma once
// Sums over dimensions, and the largest element along one, on raw arrays. Only the library's
// own .cpp files (and the kernels' tests) include this.
//
// A sum's arithmetic, the same in both rooms (kernels/room.hpp), depends on where the summed
// dimensions sit (sum_layout):
//  - Rows: the summed dimensions are the last ones, so each result sums one contiguous run of
//    terms: in eight lanes (kernels/lanes.hpp).
//  - Block: they sit together ([outer, n, inner], inner > 1 or size-1 dimensions after them):
//    each result is a running total from +0, its terms in increasing order.
//  - Scattered: each element of x is added to the result it belongs to, in x's row-major order
//    (a running total per result too, from +0).
// The backward of a sum hands every element of x the gradient of its result.

#include <cstdint>
#include <vector>

#include "litgrad/base/shape.hpp"
#include "litgrad/kernels/room.hpp"

namespace litgrad::kernels {

/// Where the summed dimensions of `shape` (reduced[d]) sit, as the top of this file says; and
/// `kept`, the shape of the sums (the summed dimensions set to 1).
struct SumLayout {
  enum class Kind { Rows, Block, Scattered } kind = Kind::Block;
  std::int64_t outer = 1, n = 1, inner = 1;  // Rows and Block: x as [outer, n, inner]
  Shape shape, kept;
};

inline SumLayout sum_layout(const Shape& shape, const std::vector<bool>& reduced) {
  SumLayout layout;
  layout.shape = layout.kept = shape;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (reduced[d]) layout.kept[d] = 1;
  std::size_t first_reduced = reduced.size();  // the start of the trailing run of summed dimensions
  while (first_reduced > 0 && reduced[first_reduced - 1]) --first_reduced;
  bool rows = true;
  for (std::size_t d = 0; d < first_reduced; ++d) rows = rows && !reduced[d];
  int part = 0;  // 0: before the summed dimensions, 1: among them, 2: after them
  for (std::size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;    // sits on either side of a boundary
    if (reduced[d] && part == 2) {  // a second run of summed ones
      layout.kind = SumLayout::Kind::Scattered;
      return layout;
    }
    part = reduced[d] ? 1 : (part == 0 ? 0 : 2);
    (part == 0 ? layout.outer : part == 1 ? layout.n : layout.inner) *= shape[d];
  }
  if (rows) layout.kind = SumLayout::Kind::Rows;
  return layout;
}

namespace plain {
void sum(const double* x, const SumLayout& layout, double* y);
void sum_backward(const double* g, const SumLayout& layout, double* dx);
// One implementation, which both rooms use: comparisons add nothing up.
//   max_along: x as [outer, n, inner]; the largest of each slice (a NaN wins; the first of equal
//   ones) into values [outer, inner], and its position j into indices.
void max_along(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner, double* values,
               double* indices);
//   max_along_backward: dx (x's layout, written whole) gets each g at the position that won, 0
//   elsewhere.
void max_along_backward(const double* g, const double* indices, std::int64_t outer, std::int64_t n, std::int64_t inner,
                        double* dx);
//   top_positions: the positions of each slice's k largest (smallest unless `largest`) elements,
//   into indices [outer, k, inner]: a NaN ranks above every number, as in torch, and equal
//   elements keep their order; in order of rank when `sorted`, else of position.
void top_positions(const double* x, std::int64_t outer, std::int64_t n, std::int64_t inner, std::int64_t k,
                   bool largest, bool sorted, double* indices);
}  // namespace plain

namespace fast {
void sum(const double* x, const SumLayout& layout, double* y);
void sum_backward(const double* g, const SumLayout& layout, double* dx);
}  // namespace fast

/// y (layout.kept, written whole) = the sums of x (layout.shape).
inline void sum(const double* x, const SumLayout& layout, double* y) { room::sum(x, layout, y); }
/// dx (layout.shape) = g (layout.kept) handed to every element summed into it.
inline void sum_backward(const double* g, const SumLayout& layout, double* dx) { room::sum_backward(g, layout, dx); }
using plain::max_along;
using plain::max_along_backward;
using plain::top_positions;

}  // namespace litgrad::kernels
