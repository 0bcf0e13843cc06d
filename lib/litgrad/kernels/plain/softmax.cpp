// The plain room's softmax and log_softmax (kernels/softmax.hpp), one slice at a time, as the
// formulas read; and logsumexp, whose only implementation this is.

#include "litgrad/kernels/softmax.hpp"

#include <cmath>
#include <limits>

#include "litgrad/kernels/exp.hpp"
#include "litgrad/kernels/plain/lanes.hpp"

namespace litgrad::kernels::plain {

namespace {

// Calls f(x_at) for each slice, where x_at(j) is the offset of the slice's element j.
template <class F>
void for_each_slice(std::int64_t outer, std::int64_t n, std::int64_t inner, F f) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      const std::int64_t first = o * n * inner + c;
      f([=](std::int64_t j) { return first + j * inner; });
    }
}

// The largest element, NaNs left out; -inf when there is none.
template <class At>
double largest(const double* x, std::int64_t n, At at) {
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < n; ++j)
    if (x[at(j)] > m) m = x[at(j)];
  return m;
}

}  // namespace

void softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  for_each_slice(outer, n, inner, [&](auto at) {
    const double m = largest(x, n, at);
    for (std::int64_t j = 0; j < n; ++j) y[at(j)] = vector_exp(x[at(j)] - m);
    const double s = lane_sum(n, [&](std::int64_t j) { return y[at(j)]; });
    for (std::int64_t j = 0; j < n; ++j) y[at(j)] /= s;
  });
}

void softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                      std::int64_t inner) {
  for_each_slice(outer, n, inner, [&](auto at) {
    const double d = lane_sum(n, [&](std::int64_t j) { return g[at(j)] * y[at(j)]; });
    for (std::int64_t j = 0; j < n; ++j) dx[at(j)] = y[at(j)] * (g[at(j)] - d);
  });
}

void log_softmax(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  for_each_slice(outer, n, inner, [&](auto at) {
    const double m = largest(x, n, at);
    const double lse =
        std::log(lane_sum(n, [&](std::int64_t j) { return vector_exp(x[at(j)] - m); }));  // all -inf: NaN
    for (std::int64_t j = 0; j < n; ++j) y[at(j)] = (x[at(j)] - m) - lse;
  });
}

void log_softmax_backward(const double* y, const double* g, double* dx, std::int64_t outer, std::int64_t n,
                          std::int64_t inner) {
  for_each_slice(outer, n, inner, [&](auto at) {
    const double total = lane_sum(n, [&](std::int64_t j) { return g[at(j)]; });
    for (std::int64_t j = 0; j < n; ++j) dx[at(j)] = g[at(j)] - vector_exp(y[at(j)]) * total;
  });
}

void logsumexp(const double* x, double* y, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t c = 0; c < inner; ++c) {
      const auto at = [=](std::int64_t j) { return o * n * inner + c + j * inner; };
      const double m = largest(x, n, at);
      const double s = lane_sum(n, [&](std::int64_t j) { return vector_exp(x[at(j)] - m); });
      y[o * inner + c] = std::isinf(m) && m < 0 ? m : m + std::log(s);  // all -inf, or none: -inf
    }
}

void logsumexp_backward(const double* x, const double* y, const double* g, double* dx, std::int64_t outer,
                        std::int64_t n, std::int64_t inner) {
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t j = 0; j < n; ++j)
      for (std::int64_t c = 0; c < inner; ++c) {
        const std::int64_t i = (o * n + j) * inner + c, r = o * inner + c;
        dx[i] = g[r] * vector_exp(x[i] - y[r]);
      }
}

}  // namespace litgrad::kernels::plain
