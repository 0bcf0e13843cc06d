// The losses. mse_loss and cross_entropy are derived from primitive operations, so their
// gradients need no code of their own; binary_cross_entropy_with_logits has its own, stabler one.

#include "litgrad/ops/loss.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/copy.hpp"
#include "litgrad/kernels/elementwise.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/reduction.hpp"
#include "litgrad/ops/registry.hpp"
#include "litgrad/ops/reshaping.hpp"
#include "litgrad/ops/softmax.hpp"

namespace litgrad {

namespace {
Tensor reduce(const Tensor& losses, Reduction reduction) {
  switch (reduction) {
    case Reduction::None: return losses;
    case Reduction::Sum: return sum(losses);
    case Reduction::Mean: break;
  }
  return mean(losses);
}
}  // namespace

// input, target: the same shape; result: 0-dimensional, or that shape with Reduction::None.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (input.shape() != target.shape())
    throw ShapeError("mse_loss: input of shape ", input.shape(), " and target of shape ", target.shape(), " differ");
  return reduce(pow(input - target, 2.0), reduction);
}

// input: [N, C] (or [C]); target: [N] (or []) Int64; result: 0-dimensional, or [N] with Reduction::None.
namespace {

// The rows of a loss over classes: scores [N, C] (a [C] input as one row) and, for class
// indices, target [N] Int64 (a 0-dimensional target as one). Checks shapes, dtypes and ranges.
struct Rows {
  Tensor scores, classes;  // [N, C], and [N, 1] Int64 with ignored rows pointing at class 0
  Tensor counts;           // [N, 1] Bool: whether the row counts
  bool single = false;
};

Rows class_rows(const char* op, const Tensor& input, const Tensor& target, std::int64_t ignore_index) {
  const bool single = input.dim() == 1;
  if (!((single && target.dim() == 0) || (input.dim() == 2 && target.dim() == 1 && target.size(0) == input.size(0))))
    throw ShapeError(op, ": input of shape ", input.shape(), " and target of shape ", target.shape(),
                     " do not fit (expected [N,C] with [N], or [C] with [])");
  Rows r;
  r.single = single;
  r.scores = single ? unsqueeze(input, 0) : input;
  const std::int64_t C = r.scores.size(1), N = r.scores.size(0);
  const Tensor ignored = reshape(eq(target, scalar_tensor(static_cast<double>(ignore_index))), {N, 1});
  const Tensor classes = where(ignored, zeros({}), reshape(target, {N, 1}));  // ignored rows: class 0
  const std::int64_t bad = kernels::first_outside(classes.data(), N, static_cast<double>(C));
  if (bad >= 0)
    throw IndexError(op, ": target class ", static_cast<long long>(classes.data()[bad]), " is out of range for ", C,
                     " classes");
  r.classes = to(classes, DType::Int64);
  r.counts = logical_not(ignored);
  return r;
}

// losses: [N, 1] with ignored rows exactly 0; the mean is over the rows that count.
Tensor reduce_rows(const Rows& r, const Tensor& losses, Reduction reduction) {
  if (reduction == Reduction::None) return r.single ? reshape(losses, {}) : reshape(losses, {-1});
  const Tensor total = sum(losses);
  if (reduction == Reduction::Sum) return total;
  return total / sum(to(r.counts, DType::Float64));
}

}  // namespace

// Class indices: input [N, C] (or [C]), target [N] Int64 (or []). Per row:
// loss = (1 - ε) (-logp[target]) + (ε / C) sum_c (-logp_c), 0 where the target is ignored.
// Probabilities: target [N, C] Float64; loss = -sum_c ((1 - ε) t_c + ε / C) logp_c.
Tensor cross_entropy(const Tensor& input, const Tensor& target, const CrossEntropyOptions& o) {
  const char* op = "cross_entropy";
  if (input.dim() > 2) {  // [N, C, d1, ..., dk]: each position's scores, classes along dim 1
    const std::int64_t C = input.size(1);
    Shape positions = input.shape();  // [N, d1, ..., dk]
    positions.erase(positions.begin() + 1);
    const bool probabilities = target.dtype() == DType::Float64;
    const Shape expected = probabilities ? input.shape() : positions;
    if (target.shape() != expected)
      throw ShapeError("cross_entropy: input of shape ", input.shape(), " and target of shape ", target.shape(),
                       " do not fit (expected ", expected, ")");
    std::vector<std::int64_t> classes_last(static_cast<std::size_t>(input.dim()));  // [N, d1, ..., dk, C]
    classes_last[0] = 0;
    for (std::int64_t d = 2; d < input.dim(); ++d) classes_last[static_cast<std::size_t>(d - 1)] = d;
    classes_last.back() = 1;
    CrossEntropyOptions each = o;
    each.reduction = Reduction::None;
    const Tensor rows = reshape(permute(input, classes_last), {-1, C});
    const Tensor flat_target = probabilities ? reshape(permute(target, classes_last), {-1, C}) : reshape(target, {-1});
    const Tensor losses = reshape(cross_entropy(rows, flat_target, each), positions);
    if (o.reduction == Reduction::None) return losses;
    if (o.reduction == Reduction::Sum) return sum(losses);
    if (probabilities) return mean(losses);
    return sum(losses) / sum(to(ne(target, scalar_tensor(static_cast<double>(o.ignore_index))), DType::Float64));
  }
  if (!(o.label_smoothing >= 0 && o.label_smoothing <= 1))
    throw ValueError("cross_entropy: label_smoothing must be in [0, 1], got ", o.label_smoothing);
  const double eps = o.label_smoothing;
  if (target.dtype() == DType::Float64) {
    if (target.shape() != input.shape() || (input.dim() != 1 && input.dim() != 2))
      throw ShapeError("cross_entropy: input of shape ", input.shape(), " and probability target of shape ",
                       target.shape(), " do not fit (expected equal shapes, [N,C] or [C])");
    const std::int64_t C = input.size(-1);
    const Tensor logp = log_softmax(input, -1);
    const Tensor mixed = eps == 0 ? target : target * (1 - eps) + eps / static_cast<double>(C);
    const Tensor losses = -sum(mixed * logp, {-1});  // [N] or []
    if (o.reduction == Reduction::None) return losses;
    return o.reduction == Reduction::Sum ? sum(losses) : mean(losses);
  }
  if (target.dtype() != DType::Int64)
    throw ValueError(
        "cross_entropy: target must be an Int64 tensor of class indices or a Float64 tensor of class probabilities, "
        "got ",
        target.dtype());
  const Rows r = class_rows(op, input, target, o.ignore_index);
  const Tensor logp = log_softmax(r.scores, 1);  // [N, C]
  Tensor losses = -gather(logp, 1, r.classes);   // [N, 1]
  if (eps > 0) {
    const double C = static_cast<double>(r.scores.size(1));
    losses = losses * (1 - eps) + (-sum(logp, {1}, true)) * (eps / C);
  }
  return reduce_rows(r, where(r.counts, losses, zeros({})), o.reduction);
}

Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction) {
  CrossEntropyOptions o;
  o.reduction = reduction;
  return cross_entropy(input, target, o);
}

Tensor nll_loss(const Tensor& input, const Tensor& target, std::int64_t ignore_index, Reduction reduction) {
  if (target.dtype() != DType::Int64)
    throw ValueError("nll_loss: target must be an Int64 tensor of class indices, got ", target.dtype());
  const Rows r = class_rows("nll_loss", input, target, ignore_index);
  const Tensor losses = -gather(r.scores, 1, r.classes);  // [N, 1]
  return reduce_rows(r, where(r.counts, losses, zeros({})), reduction);
}

// x, t: the same shape. loss = max(x, 0) - x t + log(1 + exp(-|x|));
// dloss/dx = sigmoid(x) - t, dloss/dt = -x.
Tensor binary_cross_entropy_with_logits(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (input.shape() != target.shape())
    throw ShapeError("binary_cross_entropy_with_logits: input of shape ", input.shape(), " and target of shape ",
                     target.shape(), " differ");
  const Shape& shape = input.shape();
  Tensor losses = detail::uninitialized_tensor(shape);
  kernels::zip(shape, input.data(), shape, target.data(), shape, losses.data(),
               [](double x, double t) { return std::max(x, 0.0) - x * t + std::log1p(std::exp(-std::fabs(x))); });
  losses = detail::record(
      op::binary_cross_entropy_with_logits, losses, {input, target},
      [input, target](const Tensor& g) -> std::vector<Tensor> {
        const Shape& shape = input.shape();
        Tensor gx = detail::uninitialized_tensor(shape), gt = detail::uninitialized_tensor(shape);
        // dloss/dx = sigmoid(x) - t, with sigmoid computed without overflow
        kernels::zip_backward<0>(shape, input.data(), shape, target.data(), shape, g.data(), gx.data(),
                                 [](double x, double t, double g) {
                                   const double s = x >= 0 ? 1 / (1 + std::exp(-x)) : std::exp(x) / (1 + std::exp(x));
                                   return g * (s - t);
                                 });
        kernels::zip_backward<1>(shape, input.data(), shape, target.data(), shape, g.data(), gt.data(),
                                 [](double x, double, double g) { return -g * x; });
        return {gx, gt};
      },
      nullptr, detail::Saved::only_inputs());
  return reduce(losses, reduction);
}

}  // namespace litgrad
