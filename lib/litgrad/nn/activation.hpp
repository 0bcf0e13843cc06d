#pragma once
/// \file nn/activation.hpp
/// \brief Activations and dropout as modules, for nn::Sequential: `nn::ReLU`, `nn::Tanh`,
/// `nn::Sigmoid`, `nn::GELU`, `nn::Dropout`, each the function of the same name.

#include <string>

#include "litgrad/core/random.hpp"
#include "litgrad/nn/module.hpp"

namespace litgrad::nn {

/// \brief `relu(x)`, as `torch.nn.ReLU`. Any shape in and out.
class ReLU : public Module {
 public:
  ReLU() : Module("ReLU") {}
  /// \brief relu().
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }
};

/// \brief `tanh(x)`, as `torch.nn.Tanh`. Any shape in and out.
class Tanh : public Module {
 public:
  Tanh() : Module("Tanh") {}
  /// \brief tanh().
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }
};

/// \brief `sigmoid(x)`, as `torch.nn.Sigmoid`. Any shape in and out.
class Sigmoid : public Module {
 public:
  Sigmoid() : Module("Sigmoid") {}
  /// \brief sigmoid().
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }
};

/// \brief `gelu(x, approximate)`, as `torch.nn.GELU`. Any shape in and out.
class GELU : public Module {
 public:
  /// \brief \p approximate is `"none"` (exact) or `"tanh"`. \throws ValueError otherwise.
  explicit GELU(std::string approximate = "none");
  /// \brief gelu().
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }
  std::string extra_repr() const override;
  std::string approximate;  ///< `"none"` or `"tanh"`
};

/// \brief `dropout(x, p)` while training, the identity in evaluation, as `torch.nn.Dropout`.
///
/// Each element is zeroed with probability \p p and the rest scaled by `1 / (1 - p)`, drawn
/// from \p gen (which must outlive the module). Any shape in and out.
class Dropout : public Module {
 public:
  /// \throws ValueError unless 0 <= p <= 1.
  explicit Dropout(double p = 0.5, Generator& gen = default_generator());
  /// \brief dropout() in training mode, x itself in evaluation mode.
  Tensor forward(const Tensor& x) const;
  /// \brief forward().
  Tensor operator()(const Tensor& x) const {
    const auto in_scope = scope();
    return forward(x);
  }
  std::string extra_repr() const override;
  double p;  ///< the probability of zeroing an element

 private:
  Generator* gen_;
};

}  // namespace litgrad::nn
