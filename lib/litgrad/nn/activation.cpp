#include "litgrad/nn/activation.hpp"

#include <sstream>

#include "litgrad/base/error.hpp"
#include "litgrad/ops/dropout.hpp"
#include "litgrad/ops/elementwise.hpp"

namespace litgrad::nn {

Tensor ReLU::forward(const Tensor& x) const { return relu(x); }
Tensor Tanh::forward(const Tensor& x) const { return tanh(x); }
Tensor Sigmoid::forward(const Tensor& x) const { return sigmoid(x); }

GELU::GELU(std::string a) : Module("GELU"), approximate(std::move(a)) {
  if (approximate != "none" && approximate != "tanh")
    throw ValueError("GELU: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
}
Tensor GELU::forward(const Tensor& x) const { return gelu(x, approximate); }
std::string GELU::extra_repr() const { return "approximate='" + approximate + "'"; }

Dropout::Dropout(double probability, Generator& gen) : Module("Dropout"), p(probability), gen_(&gen) {
  if (!(p >= 0 && p <= 1)) throw ValueError("Dropout: p must be in [0, 1], got ", p);
}
Tensor Dropout::forward(const Tensor& x) const { return dropout(x, p, is_training(), *gen_); }
std::string Dropout::extra_repr() const {
  std::ostringstream os;
  os << "p=" << p << ", inplace=False";
  return os.str();
}

}  // namespace litgrad::nn
