#pragma once
// What several test files need: reading the library's sources, walking a recorded graph,
// reading reference files, and comparing tensors.

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <litgrad/core/detail/node.hpp>
#include <litgrad/core/detail/tensor_impl.hpp>
#include <litgrad/core/tensor.hpp>

namespace test {

// The names of every operation recorded in the graph that made y.
inline std::set<std::string> graph_ops(const litgrad::Tensor& y) {
  std::set<std::string> ops;
  std::vector<litgrad::Tensor> todo{y};
  std::set<const void*> seen;
  while (!todo.empty()) {
    litgrad::Tensor t = todo.back();
    todo.pop_back();
    if (!t.defined() || !seen.insert(&t.impl()).second || !t.impl().grad_fn) continue;
    ops.insert(t.impl().grad_fn->op);
    for (const auto& in : t.impl().grad_fn->inputs) todo.push_back(in);
  }
  return ops;
}

// The largest |a - b| over all elements; the shapes must match.
inline double max_abs_diff(const litgrad::Tensor& a, const litgrad::Tensor& b) {
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) worst = std::max(worst, std::fabs(a.data()[i] - b.data()[i]));
  return worst;
}

// The largest |a - b| / max(1, |b|) over all elements; NaN in the same places counts as equal,
// NaN in one only as infinitely wrong. The shapes must match.
inline double relative_error(const litgrad::Tensor& a, const litgrad::Tensor& b) {
  REQUIRE(a.defined());
  REQUIRE(a.shape() == b.shape());
  double worst = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) {
    const double x = a.data()[i], y = b.data()[i];
    if (std::isnan(x) || std::isnan(y)) {
      if (!(std::isnan(x) && std::isnan(y))) return INFINITY;
      continue;
    }
    worst = std::max(worst, std::fabs(x - y) / std::max(1.0, std::fabs(y)));
  }
  return worst;
}

// Same shape, same dtype, and every element the same bit pattern (so 0.0 and -0.0 differ).
inline bool identical(const litgrad::Tensor& a, const litgrad::Tensor& b) {
  return a.shape() == b.shape() && a.dtype() == b.dtype() &&
         (a.numel() == 0 ||  // an empty tensor may have no data pointer, which memcmp may not get
          std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<std::size_t>(a.numel())) == 0);
}

}  // namespace test
