#include "litgrad/nn/linear.hpp"

#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/nn/init.hpp"
#include "litgrad/ops/detail/matmul_transposed.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/matmul.hpp"
#include "litgrad/ops/reshaping.hpp"

namespace litgrad::nn {

Linear::Linear(std::int64_t in, std::int64_t out, bool with_bias, Generator& gen)
    : Module("Linear"), in_features(in), out_features(out) {
  if (in < 1 || out < 1)
    throw ValueError("Linear: in_features and out_features must be at least 1, got ", in, " and ", out);
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = zeros({out, in});
  init::uniform_(weight, -bound, bound, gen);
  register_parameter("weight", weight);
  if (with_bias) {
    bias = zeros({out});
    init::uniform_(bias, -bound, bound, gen);
    register_parameter("bias", bias);
  }
}

// x: [..., in]; weight: [out, in]; bias: [out]; result: [..., out].
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (weight.dim() != 2 || x.dim() == 0 || x.size(-1) != weight.size(1))
    throw ShapeError("linear: input of shape ", x.shape(), " does not fit weight of shape ", weight.shape(),
                     " (the input must end in the weight's second size)");
  if (bias.defined() && bias.shape() != Shape{weight.size(0)})
    throw ShapeError("linear: bias of shape ", bias.shape(), " for weight of shape ", weight.shape(), " (expected [",
                     weight.size(0), "])");
  // x weightᵀ + bias, reading weight in place (no transposed copy, forward or backward), with
  // the products added to the bias (no pass of its own).
  if (x.dim() >= 2) return detail::matmul_transposed(x, weight, bias);
  const Tensor y = matmul(x, transpose(weight, 0, 1));
  return bias.defined() ? y + bias : y;
}

Tensor Linear::forward(const Tensor& x) const {
  if (x.dim() == 0 || x.size(-1) != in_features)
    throw ShapeError("Linear: input of shape ", x.shape(), " does not end in in_features=", in_features);
  return linear(x, weight, bias);
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(in_features) + ", out_features=" + std::to_string(out_features) +
         ", bias=" + (bias.defined() ? "True" : "False");
}

}  // namespace litgrad::nn
