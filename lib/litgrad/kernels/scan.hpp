#pragma once
// Running sums along the last dimension, on raw arrays: what top_p_filter (text/sampling.cpp) needs
// to find where the probability mass of a sorted row reaches p. One implementation, which both
// rooms (kernels/room.hpp) use: a running sum has one order, left to right, and any other
// order would change its bits. Only the library's own .cpp files include this.

#include <cstdint>

namespace litgrad::kernels {

/// x and y as [rows, n]: y[r, j] = x[r, 0] + x[r, 1] + ... + x[r, j], a running total from +0
/// that adds the terms in increasing order of j. With non-negative terms each row of y never
/// decreases (rounding is monotonic).
void running_sum(const double* x, std::int64_t rows, std::int64_t n, double* y);

}  // namespace litgrad::kernels
