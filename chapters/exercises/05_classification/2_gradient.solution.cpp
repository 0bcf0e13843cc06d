// Exercise 5.2 · Cross-entropy's gradient by hand: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor cross_entropy_gradient(const Tensor& scores, const Tensor& targets) {
  const Tensor truth = one_hot(targets, scores.size(1)).to(DType::Float64);  // [N, K]
  return (softmax(scores, 1) - truth) / static_cast<double>(scores.size(0));
}
