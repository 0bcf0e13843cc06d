#pragma once
// A sum of many terms in eight interleaved lanes: the order in which softmax and sum() add.
// Only the library's own .cpp files include this.
//
// Adding n terms one after another is a chain of n dependent additions, each waiting for the
// last. lane_sum(n, f) adds term j into lane j mod 8 (each lane from +0, in increasing j), then
// the lanes pairwise: ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)). Eight independent
// additions are in flight at once, and a compiler runs them as one SIMD instruction (the fast
// room); the order depends only on n, so equal inputs give equal sums wherever they sit.

#include <cstdint>

#include "litgrad/kernels/room.hpp"

#include "litgrad/kernels/plain/lanes.hpp"
#if LITGRAD_FAST
#include "litgrad/kernels/fast/lanes.hpp"
#endif

namespace litgrad::kernels {
using room::lane_sum;
}  // namespace litgrad::kernels
