#include "litgrad/nn/init.hpp"

#include <algorithm>
#include <string>
#include <cmath>

#include "litgrad/error.hpp"

namespace litgrad::nn::init {

void uniform_(Tensor& t, double low, double high, Generator& gen) {
  const Tensor values = uniform(t.shape(), low, high, gen);
  std::copy_n(values.data(), values.numel(), t.data());
}

namespace {
// fan_in + fan_out as torch counts them: size(1) and size(0), times the receptive field.
double fan_sum(const char* op, const Tensor& t) {
  if (t.dim() < 2)
    throw ShapeError(std::string(op) + ": needs a tensor with at least 2 dimensions, got " + to_string(t.shape()));
  const double receptive = static_cast<double>(t.numel() / (t.size(0) * t.size(1)));
  return (static_cast<double>(t.size(1)) + static_cast<double>(t.size(0))) * receptive;
}
}  // namespace

void xavier_uniform_(Tensor& t, double gain, Generator& gen) {
  const double bound = gain * std::sqrt(6.0 / fan_sum("xavier_uniform_", t));
  uniform_(t, -bound, bound, gen);
}

void xavier_normal_(Tensor& t, double gain, Generator& gen) {
  const double std = gain * std::sqrt(2.0 / fan_sum("xavier_normal_", t));
  const Tensor values = randn(t.shape(), gen);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.data()[i] = std * values.data()[i];
}

}  // namespace litgrad::nn::init
