#include "litgrad/text/sampling.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/core/grad_mode.hpp"
#include "litgrad/kernels/scan.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/reshaping.hpp"
#include "litgrad/ops/softmax.hpp"

namespace litgrad {

namespace {

constexpr double minus_infinity = -std::numeric_limits<double>::infinity();

// Scores must be Float64 [..., V] with V > 0; returns V.
std::int64_t vocabulary_size(const char* op, const Tensor& logits) {
  if (logits.dtype() != DType::Float64)
    throw ValueError(op, ": logits must be Float64 scores, got ", logits.dtype(), " of shape ", logits.shape());
  if (logits.dim() == 0)
    throw ShapeError(op, ": logits must have a last dimension of tokens [..., V], got a 0-d tensor");
  const std::int64_t V = logits.size(-1);
  if (V == 0) throw ValueError(op, ": logits of shape ", logits.shape(), " have no tokens (V = 0)");
  return V;
}

void check_k(const char* op, std::int64_t k) {
  if (k < 0) throw ValueError(op, ": top_k must be >= 0 (0 keeps every token), got ", k);
}

void check_p(const char* op, double p) {
  if (!(p > 0 && p <= 1))  // NaN fails both comparisons
    throw ValueError(op, ": top_p must be in (0, 1], got ", p);
}

}  // namespace

// logits: [..., V] -> [..., V]. kth: [..., 1], the k-th highest score of each row.
Tensor top_k_filter(const Tensor& logits, std::int64_t k) {
  const std::int64_t V = vocabulary_size("top_k_filter", logits);
  check_k("top_k_filter", k);
  if (k == 0 || k >= V) return logits;  // every token kept: not a bit changes
  Tensor drop;
  {
    NoGradGuard no_grad;  // the mask is found outside the graph
    const Tensor kth = slice(topk(logits.detach(), k, -1).values, -1, k - 1, k);
    drop = logits.detach() < kth;  // below the k-th; ties with it stay, as Hugging Face's
  }
  return masked_fill(logits, drop, minus_infinity);
}

// logits: [..., V] -> [..., V]. probs, sorted, mass: [..., V]; keep: [..., 1]; rank: [..., V].
Tensor top_p_filter(const Tensor& logits, double p) {
  const std::int64_t V = vocabulary_size("top_p_filter", logits);
  check_p("top_p_filter", p);
  if (p == 1) return logits;  // every token kept: not a bit changes
  Tensor drop;
  {
    NoGradGuard no_grad;  // the mask is found outside the graph
    const Tensor probs = softmax(logits.detach(), -1);
    // Most likely first; equal probabilities keep their order (topk sorts stably).
    const MaxResult sorted = topk(probs, V, -1);
    // mass[..., j]: the probability of the j+1 most likely tokens, summed left to right.
    Tensor mass = detail::uninitialized_tensor(sorted.values.shape());
    kernels::running_sum(sorted.values.data(), probs.numel() / V, V, mass.data());
    // The nucleus holds the j+1 most likely tokens for the first j whose mass reaches p: one
    // token, plus one for every j < V-1 whose mass is still below p (mass never decreases).
    const Tensor keep = 1.0 + sum(slice(mass, -1, 0, V - 1) < p, {-1}, true);
    // Each token's rank: where it sits in sorted.indices. Sorting a permutation's values
    // gives the positions that hold 0, 1, ..., V-1, which is the inverse permutation.
    const Tensor rank = topk(sorted.indices, V, -1, /*largest=*/false).indices;
    drop = rank >= keep;
  }
  return masked_fill(logits, drop, minus_infinity);
}

// logits: [..., V] -> ids [...]. rows: [N, V], N the product of the leading sizes.
Tensor sample(const Tensor& logits, const SamplingOptions& options, Generator& gen) {
  const double T = options.temperature;
  if (!(T >= 0) || !std::isfinite(T))
    throw ValueError("sample: temperature must be finite and >= 0 (0 is greedy), got ", T);
  check_k("sample", options.top_k);
  check_p("sample", options.top_p);
  const std::int64_t V = vocabulary_size("sample", logits);
  NoGradGuard no_grad;  // ids: nothing to differentiate
  if (T == 0) return argmax(logits.detach(), -1);
  const Tensor scores = top_p_filter(top_k_filter(logits.detach() / T, options.top_k), options.top_p);
  const Tensor rows = reshape(softmax(scores, -1), {logits.numel() / V, V});
  Shape ids_shape = logits.shape();
  ids_shape.pop_back();
  try {
    return reshape(multinomial(rows, 1, false, gen), ids_shape);
  } catch (const ValueError& e) {
    throw ValueError("sample: the scores give no distribution to draw from (", e.what(), ")");
  }
}

}  // namespace litgrad
