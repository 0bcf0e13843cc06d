// Exercise 2.2 · The backward of broadcasting: the reference solution.
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// grad: the broadcast result's shape; result: `shape`, which broadcasts to grad's.
Tensor sum_to(const Tensor& grad, const Shape& shape) {
  const std::int64_t extra = grad.dim() - static_cast<std::int64_t>(shape.size());
  Tensor g = grad;
  std::vector<std::int64_t> missing;  // the leading dimensions the operand did not have
  for (std::int64_t d = 0; d < extra; ++d) missing.push_back(d);
  if (!missing.empty()) g = sum(g, missing);
  std::vector<std::int64_t> stretched;  // size 1 in the operand, larger in the gradient
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (shape[d] == 1 && g.size(static_cast<std::int64_t>(d)) != 1)
      stretched.push_back(static_cast<std::int64_t>(d));
  if (!stretched.empty()) g = sum(g, stretched, /*keepdim=*/true);
  return g;
}
