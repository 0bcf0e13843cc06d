#pragma once
/// \file nn/functional.hpp
/// \brief `nn::functional`, and its alias `F`: the functions behind the modules under the one
/// name torch gives them, so that `F::cross_entropy(logits, targets)` reads as Python's
/// `F.cross_entropy(logits, targets)` and libtorch's `F::cross_entropy(...)`.
///
/// litgrad defines each function once, where it belongs (the activations and losses among the
/// operations in `litgrad`, `linear`, `layer_norm` and `embedding` beside their modules in
/// `litgrad::nn`); this namespace only names them again, so `F::gelu` and `litgrad::gelu` are
/// the same function. The arguments are litgrad's (`softmax(x, dim)`, `dropout(x, p, training,
/// gen)`); `scaled_dot_product_attention` returns the output and the weights, `.output` being
/// torch's result.
///
/// \code
/// Tensor loss = F::cross_entropy(F::linear(F::gelu(h), W, b), targets);
/// \endcode

#include "litgrad/nn/embedding.hpp"
#include "litgrad/nn/layer_norm.hpp"
#include "litgrad/nn/linear.hpp"
#include "litgrad/ops/attention.hpp"
#include "litgrad/ops/dropout.hpp"
#include "litgrad/ops/elementwise.hpp"
#include "litgrad/ops/indexing.hpp"
#include "litgrad/ops/loss.hpp"
#include "litgrad/ops/softmax.hpp"

namespace litgrad::nn::functional {
using litgrad::binary_cross_entropy_with_logits;
using litgrad::cross_entropy;
using litgrad::dropout;
using litgrad::gelu;
using litgrad::log_softmax;
using litgrad::mse_loss;
using litgrad::nll_loss;
using litgrad::one_hot;
using litgrad::relu;
using litgrad::scaled_dot_product_attention;
using litgrad::sigmoid;
using litgrad::softmax;
using litgrad::tanh;
using litgrad::nn::embedding;
using litgrad::nn::layer_norm;
using litgrad::nn::linear;
}  // namespace litgrad::nn::functional

namespace litgrad {
/// \brief `F::gelu(x)`, as `import torch.nn.functional as F` and libtorch's
/// `namespace F = torch::nn::functional`.
namespace F = nn::functional;
}  // namespace litgrad
