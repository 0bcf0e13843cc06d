// Both losses are derived from primitive operations, so their gradients need no code of their own.

#include "litgrad/loss.hpp"

#include "litgrad/elementwise.hpp"
#include "litgrad/error.hpp"
#include "litgrad/indexing.hpp"
#include "litgrad/reduction.hpp"
#include "litgrad/reshaping.hpp"
#include "litgrad/softmax.hpp"

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
    throw ShapeError("mse_loss: input of shape " + to_string(input.shape()) + " and target of shape " +
                     to_string(target.shape()) + " differ");
  return reduce(pow(input - target, 2.0), reduction);
}

// input: [N, C] (or [C]); target: [N] (or []) Int64; result: 0-dimensional, or [N] with Reduction::None.
Tensor cross_entropy(const Tensor& input, const Tensor& target, Reduction reduction) {
  if (target.dtype() != DType::Int64)
    throw ValueError("cross_entropy: target must be an Int64 tensor of class indices, got " +
                     std::string(to_string(target.dtype())));
  const bool single = input.dim() == 1;
  if (!((single && target.dim() == 0) || (input.dim() == 2 && target.dim() == 1 && target.size(0) == input.size(0))))
    throw ShapeError("cross_entropy: input of shape " + to_string(input.shape()) + " and target of shape " +
                     to_string(target.shape()) + " do not fit (expected [N,C] with [N], or [C] with [])");
  const Tensor scores = single ? unsqueeze(input, 0) : input;
  const Tensor classes = reshape(target, {-1, 1});  // [N, 1]: the column gather picks from each row
  for (double c : classes.to_vector())
    if (c < 0 || c >= static_cast<double>(scores.size(1)))
      throw IndexError("cross_entropy: target class " + std::to_string(static_cast<long long>(c)) +
                       " is out of range for " + std::to_string(scores.size(1)) + " classes");
  const Tensor picked = gather(log_softmax(scores, 1), 1, classes);  // [N, 1]
  const Tensor losses = reshape(-picked, target.shape());
  return reduce(losses, reduction);
}

}  // namespace litgrad
