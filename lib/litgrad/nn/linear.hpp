#pragma once
/// \file nn/linear.hpp
/// \brief `nn::Linear`: `y = x Wᵀ + b`, initialised as torch's.

#include <cstdint>

#include "litgrad/core/random.hpp"
#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief `x Wᵀ + b` over the last dimension, as `torch.nn.functional.linear`.
///
/// Shapes: x `[..., in]`, weight `[out, in]`, bias `[out]` or undefined; result `[..., out]`.
/// Recorded as one operation, "linear" (or "matmul" without a bias, or for a 1-D x followed by
/// an add), that adds the products to the bias: the same bits as `matmul(x, transpose(weight,
/// 0, 1)) + bias`, which a test checks, in one pass over the result.
/// \throws ShapeError when x does not end in `in` or the bias is not `[out]`.
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());

/// \brief An affine map applied to the last dimension: `[..., in_features] -> [..., out_features]`.
///
/// `weight` is `[out_features, in_features]` and `bias` `[out_features]`, both uniform in
/// `[-1/sqrt(in_features), 1/sqrt(in_features))` at the start, which is what torch's
/// `kaiming_uniform_(a=sqrt(5))` and its bias rule come to.
///
/// \code
/// nn::Linear layer(2, 3);
/// Tensor y = layer(randn({5, 2}));   // [5, 3]
/// \endcode
class Linear : public Module {
 public:
  /// \brief A layer from \p in_features to \p out_features, with a bias unless \p bias is false.
  /// \throws ValueError for a size below 1.
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias = true, Generator& gen = default_generator());

  /// \brief `x Wᵀ + b`. \throws ShapeError when x's last dimension is not in_features.
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }

  std::string extra_repr() const override;

  std::int64_t in_features;   ///< the size of the input's last dimension
  std::int64_t out_features;  ///< the size of the output's last dimension
  Tensor weight;              ///< `[out_features, in_features]`
  Tensor bias;                ///< `[out_features]`, or undefined without bias
};

}  // namespace litgrad::nn
