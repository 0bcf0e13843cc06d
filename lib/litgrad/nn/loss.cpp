#include "litgrad/nn/loss.hpp"

#include "litgrad/base/error.hpp"

namespace litgrad::nn {

MSELoss::MSELoss(Reduction r) : Module("MSELoss"), reduction(r) {}
Tensor MSELoss::forward(const Tensor& input, const Tensor& target) const { return mse_loss(input, target, reduction); }

CrossEntropyLoss::CrossEntropyLoss(CrossEntropyOptions o) : Module("CrossEntropyLoss"), options(o) {
  if (!(options.label_smoothing >= 0 && options.label_smoothing <= 1))
    throw ValueError("CrossEntropyLoss: label_smoothing must be in [0, 1], got ", options.label_smoothing);
}
Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) const {
  return cross_entropy(input, target, options);
}

NLLLoss::NLLLoss(std::int64_t ignore, Reduction r) : Module("NLLLoss"), ignore_index(ignore), reduction(r) {}
Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) const {
  return nll_loss(input, target, ignore_index, reduction);
}

BCEWithLogitsLoss::BCEWithLogitsLoss(Reduction r) : Module("BCEWithLogitsLoss"), reduction(r) {}
Tensor BCEWithLogitsLoss::forward(const Tensor& input, const Tensor& target) const {
  return binary_cross_entropy_with_logits(input, target, reduction);
}

}  // namespace litgrad::nn
