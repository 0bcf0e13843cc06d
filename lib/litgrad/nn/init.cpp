#include "litgrad/nn/init.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/error.hpp"

namespace litgrad::nn::init {

void uniform_(Tensor& t, double low, double high, Generator& gen) {
  const Tensor values = uniform(t.shape(), low, high, gen);
  std::copy_n(values.data(), values.numel(), t.data());
}

void xavier_uniform_(Tensor& t, double gain, Generator& gen) {
  if (t.dim() < 2)
    throw ShapeError("xavier_uniform_: needs a tensor with at least 2 dimensions, got " + to_string(t.shape()));
  // As torch: fan_in = size(1) * receptive field, fan_out = size(0) * receptive field.
  const double receptive = static_cast<double>(t.numel() / (t.size(0) * t.size(1)));
  const double fan_in = static_cast<double>(t.size(1)) * receptive, fan_out = static_cast<double>(t.size(0)) * receptive;
  const double bound = gain * std::sqrt(6.0 / (fan_in + fan_out));
  uniform_(t, -bound, bound, gen);
}

}  // namespace litgrad::nn::init
