#pragma once
// Walking the elements of an output shape while tracking where each broadcast operand's element
// lives: the loop under every elementwise operation, where(), the batches of matmul and of
// attention. Only the library's own .cpp files include this.
//
// for_each_broadcast<K>(out, {&shape_0, ..., &shape_K-1}, f) calls f(i, offsets) for every
// element i of `out` in row-major order, where offsets[k] is the position of the matching
// element of operand k, whose shape broadcasts to `out`. Both rooms visit the elements in the
// same order; the fast one merges dimensions and fixes short rows' lengths when compiling.

#include <array>
#include <cstdint>

#include "litgrad/kernels/plain/broadcast.hpp"
#include "litgrad/kernels/room.hpp"
#include "litgrad/kernels/strides.hpp"
#if LITGRAD_FAST
#include "litgrad/kernels/fast/broadcast.hpp"
#endif

namespace litgrad::kernels {
using room::for_each_broadcast;
}  // namespace litgrad::kernels
