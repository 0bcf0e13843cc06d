#include "litgrad/nn/layer_norm.hpp"

#include <sstream>

#include "litgrad/base/error.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/reduction.hpp"

namespace litgrad::nn {

// x: [..., normalized_shape]; result: the same. Over the last k dimensions:
// y = (x - mean) / sqrt(var + eps) * weight + bias, var the biased variance.
Tensor layer_norm(const Tensor& x, const Shape& normalized_shape, const Tensor& weight, const Tensor& bias,
                  double eps) {
  const std::int64_t k = static_cast<std::int64_t>(normalized_shape.size());
  bool fits = k >= 1 && x.dim() >= k;
  for (std::int64_t i = 0; fits && i < k; ++i) fits = x.shape()[x.dim() - k + i] == normalized_shape[i];
  if (!fits)
    throw ShapeError("layer_norm: input of shape ", x.shape(), " does not end in normalized_shape ", normalized_shape);
  for (const Tensor* t : {&weight, &bias})
    if (t->defined() && t->shape() != normalized_shape)
      throw ShapeError("layer_norm: ", (t == &weight ? "weight" : "bias"), " of shape ", t->shape(),
                       " differs from normalized_shape ", normalized_shape);
  std::vector<std::int64_t> dims;
  for (std::int64_t i = x.dim() - k; i < x.dim(); ++i) dims.push_back(i);
  const Tensor centred = x - mean(x, dims, true);
  const Tensor variance = mean(centred * centred, dims, true);  // biased: divided by N
  Tensor y = centred / sqrt(variance + eps);
  if (weight.defined()) y = y * weight;
  if (bias.defined()) y = y + bias;
  return y;
}

LayerNorm::LayerNorm(Shape shape, double e, bool affine)
    : Module("LayerNorm"), normalized_shape(std::move(shape)), eps(e), elementwise_affine(affine) {
  if (normalized_shape.empty()) throw ValueError("LayerNorm: normalized_shape must not be empty");
  for (std::int64_t n : normalized_shape)
    if (n < 1) throw ValueError("LayerNorm: sizes must be at least 1, got ", normalized_shape);
  if (!(eps >= 0)) throw ValueError("LayerNorm: eps must be non-negative, got ", eps);
  if (affine) {
    weight = ones(normalized_shape);
    bias = zeros(normalized_shape);
    register_parameter("weight", weight);
    register_parameter("bias", bias);
  }
}

Tensor LayerNorm::forward(const Tensor& x) const { return layer_norm(x, normalized_shape, weight, bias, eps); }

std::string LayerNorm::extra_repr() const {
  std::ostringstream os;
  os << "(";
  for (std::size_t i = 0; i < normalized_shape.size(); ++i)
    os << normalized_shape[i] << (normalized_shape.size() == 1 ? "," : i + 1 < normalized_shape.size() ? ", " : "");
  os << "), eps=" << eps << ", elementwise_affine=" << (elementwise_affine ? "True" : "False");
  return os.str();
}

}  // namespace litgrad::nn
