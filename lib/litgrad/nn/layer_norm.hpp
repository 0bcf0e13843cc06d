#pragma once
/// \file nn/layer_norm.hpp
/// \brief `nn::LayerNorm`: each token's features brought to mean 0 and variance 1, then scaled
/// and shifted, as `torch.nn.LayerNorm`.

#include <cstdint>
#include <vector>

#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief Layer normalisation over the last dimensions, as `torch.nn.functional.layer_norm`:
/// with \p normalized_shape the sizes of the last k dimensions of \p x,
/// `y = (x - mean) / sqrt(var + eps) * weight + bias`, mean and the biased variance taken over
/// those k dimensions. \p weight and \p bias, of shape \p normalized_shape, may be undefined.
/// Shapes: `[..., normalized_shape]` in and out. Computed from sum, product and sqrt, so its
/// gradient is autograd's.
/// \throws ShapeError when \p x does not end in \p normalized_shape or weight, bias differ from it.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);

/// \brief Layer normalisation with a learned scale and shift per feature.
///
/// `weight` starts at ones and `bias` at zeros, as torch's; with \p elementwise_affine false
/// there are neither. The output's features have mean 0 and variance `var / (var + eps)`, a
/// hair below 1.
///
/// \code
/// nn::LayerNorm norm(64);
/// Tensor y = norm(randn({8, 10, 64}));   // each of the 80 tokens normalised over its 64 features
/// \endcode
class LayerNorm : public Module {
 public:
  /// \brief Normalises over the last dimensions, of sizes \p normalized_shape.
  /// \throws ValueError for an empty shape, a size below 1 or a negative eps.
  LayerNorm(Shape normalized_shape, double eps = 1e-5, bool elementwise_affine = true);
  /// \brief Normalises over the last dimension, of size \p features.
  explicit LayerNorm(std::int64_t features, double eps = 1e-5, bool elementwise_affine = true)
      : LayerNorm(Shape{features}, eps, elementwise_affine) {}

  /// \brief layer_norm() with this module's weight and bias: `[..., normalized_shape]` in and out.
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }

  std::string extra_repr() const override;

  Shape normalized_shape;   ///< the sizes of the dimensions normalised over
  double eps;               ///< added to the variance
  bool elementwise_affine;  ///< whether weight and bias exist
  Tensor weight;            ///< the scale, `normalized_shape`, or undefined
  Tensor bias;              ///< the shift, `normalized_shape`, or undefined
};

}  // namespace litgrad::nn
