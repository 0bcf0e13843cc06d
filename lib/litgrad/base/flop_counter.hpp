#pragma once
/// \file flop_counter.hpp
/// \brief `FlopCounter`: how much arithmetic the matrix products did, counted rather than timed,
/// as `torch.utils.flop_counter.FlopCounterMode` counts it.
///
/// Almost all of a Transformer's arithmetic is in its matrix products: the linear layers, the
/// attention scores `q kᵀ` and the weighted sums of values. A product of an `n x k` by a
/// `k x m` matrix does `n k m` multiply-adds, and torch's counter (like most papers) calls
/// that `2 n k m` floating-point operations. A count depends only on the shapes, never on the
/// machine or its load, so a claim such as "a decoding step's work grows linearly with the
/// prefix" can be checked exactly where a timing could only be eyed.

#include <cstdint>

namespace litgrad {

/// \brief Counts the floating-point operations of the matrix products run on this thread while
/// it exists: `2 n k m` for each `n x k` by `k x m` product, forward and backward alike
/// (matmul, bmm, linear layers, attention's scores and weighted sums).
///
/// Element-wise work (additions, exponentials, norms) is not counted: it grows with the
/// tensors' sizes, not with a product of three dimensions, as torch's counter also leaves it
/// out. Counters may nest; each counts from its own start.
///
/// \code
/// FlopCounter counter;
/// Tensor y = matmul(randn({8, 16}), randn({16, 4}));
/// counter.total_flops();  // 2 * 8 * 16 * 4 = 1024
/// \endcode
class FlopCounter {
 public:
  /// \brief Starts counting from zero.
  FlopCounter();

  /// \brief The operations counted since construction (or the last reset()).
  std::int64_t total_flops() const;

  /// \brief Counts from zero again.
  void reset();

 private:
  std::int64_t start_;
};

namespace detail {
/// \brief Adds \p multiply_adds multiply-adds to this thread's running count (called by the
/// product kernels).
void count_multiply_adds(std::int64_t multiply_adds);
}  // namespace detail

}  // namespace litgrad
