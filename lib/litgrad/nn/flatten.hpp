#pragma once
/// \file nn/flatten.hpp
/// \brief `nn::Flatten`, as torch's `nn.Flatten`: dimensions start_dim to end_dim made one.
///
/// \code
/// nn::Flatten flat;                      // start_dim 1, as torch's: the batch is kept
/// Tensor rows = flat(randn({8, 3, 4}));  // [8, 12]
/// \endcode

#include <cstdint>
#include <string>

#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief `flatten(x, start_dim, end_dim)` as a module. Its default start_dim is 1, as torch's
/// module's (the function's is 0): a batch `[N, ...]` becomes `[N, features]`.
class Flatten : public Module {
 public:
  /// \brief Flattens dimensions \p start_dim to \p end_dim (negative: from the end).
  explicit Flatten(std::int64_t start_dim = 1, std::int64_t end_dim = -1);
  std::int64_t start_dim;  ///< the first dimension made one
  std::int64_t end_dim;    ///< the last, counted from the end when negative
  /// \brief flatten(x, start_dim, end_dim), whose messages name flatten.
  /// \throws IndexError for a dimension x does not have.
  /// \throws ValueError when start_dim comes after end_dim.
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }
  std::string extra_repr() const override;
};

}  // namespace litgrad::nn
