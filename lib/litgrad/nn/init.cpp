#include "litgrad/nn/init.hpp"

#include <cmath>
#include <string>

#include "litgrad/base/error.hpp"
#include "litgrad/core/grad_mode.hpp"
#include "litgrad/ops/elementwise.hpp"

namespace litgrad::nn::init {

void uniform_(Tensor& t, double low, double high, Generator& gen) {
  NoGradGuard no_grad;  // a parameter's values, written outside the graph
  t.copy_(uniform(t.shape(), low, high, gen));
}

void normal_(Tensor& t, double mean, double std, Generator& gen) {
  if (!(std >= 0)) throw ValueError("normal_: std must be >= 0, got ", std);
  NoGradGuard no_grad;
  t.copy_(std * randn(t.shape(), gen) + mean);
}

void constant_(Tensor& t, double value) {
  NoGradGuard no_grad;
  t.fill_(value);
}

void zeros_(Tensor& t) { constant_(t, 0.0); }

void ones_(Tensor& t) { constant_(t, 1.0); }

namespace {
// fan_in + fan_out as torch counts them: size(1) and size(0), times the receptive field.
double fan_sum(const char* op, const Tensor& t) {
  if (t.dim() < 2) throw ShapeError(op, ": needs a tensor with at least 2 dimensions, got ", t.shape());
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
  NoGradGuard no_grad;
  t.copy_(std * randn(t.shape(), gen));
}

}  // namespace litgrad::nn::init
