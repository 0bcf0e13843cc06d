#include "litgrad/nn/container.hpp"

namespace litgrad::nn {

Tensor Sequential::forward(const Tensor& x) const {
  Tensor y = x;
  for (const Step& step : steps_) y = step.forward(y);
  return y;
}

Module& Sequential::operator[](std::size_t index) const {
  if (index >= steps_.size())
    throw IndexError("Sequential: index ", index, " is out of range for ", steps_.size(), " modules");
  return *steps_[index].module;
}

}  // namespace litgrad::nn
