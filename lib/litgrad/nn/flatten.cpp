#include "litgrad/nn/flatten.hpp"

#include "litgrad/ops/reshaping.hpp"

namespace litgrad::nn {

Flatten::Flatten(std::int64_t start, std::int64_t end) : Module("Flatten"), start_dim(start), end_dim(end) {}
Tensor Flatten::forward(const Tensor& x) const { return flatten(x, start_dim, end_dim); }
std::string Flatten::extra_repr() const {
  return "start_dim=" + std::to_string(start_dim) + ", end_dim=" + std::to_string(end_dim);
}

}  // namespace litgrad::nn
