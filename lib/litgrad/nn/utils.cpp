#include "litgrad/nn/utils.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/error.hpp"

namespace litgrad::nn::utils {

double clip_grad_norm_(const std::vector<Tensor>& parameters, double max_norm, double norm_type) {
  if (!(max_norm >= 0)) throw ValueError("clip_grad_norm_: max_norm must be at least 0, got " + std::to_string(max_norm));
  if (!(norm_type > 0)) throw ValueError("clip_grad_norm_: norm_type must be positive, got " + std::to_string(norm_type));
  double total = 0;  // the sum of |g|^p, or the largest |g| for p = inf
  for (const Tensor& p : parameters) {
    const Tensor g = p.grad();
    if (!g.defined()) continue;
    const double* gv = g.data();
    for (std::int64_t i = 0, n = g.numel(); i < n; ++i) {
      const double a = std::fabs(gv[i]);
      if (std::isinf(norm_type)) total = std::max(total, a);
      else total += norm_type == 2 ? a * a : std::pow(a, norm_type);
    }
  }
  const double norm = std::isinf(norm_type) ? total : norm_type == 2 ? std::sqrt(total) : std::pow(total, 1 / norm_type);
  const double coefficient = max_norm / (norm + 1e-6);
  if (coefficient < 1)
    for (const Tensor& p : parameters) {
      Tensor g = p.grad();
      if (!g.defined()) continue;
      double* gv = g.data();
      for (std::int64_t i = 0, n = g.numel(); i < n; ++i) gv[i] *= coefficient;
    }
  return norm;
}

}  // namespace litgrad::nn::utils
