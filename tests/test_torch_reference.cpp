// Values and gradients of composite expressions, compared with PyTorch 1.13.
//
// reference/make_torch_reference.py computed each expression below in torch (double precision)
// and wrote its inputs, output and the gradients of sum(output²) to reference/torch_composites.txt.
// This test builds the same expression from the same inputs in litgrad and compares.
//
// Threshold: both sides compute in double with the same formulas but may add in other orders.
// Each result is a few dozen operations deep with condition numbers of order 10, so both are
// within about 1e-14 of the exact value; we require agreement to 1e-12 relative to
// max(1, |value|), which a wrong formula misses by many orders of magnitude.

#include <doctest/doctest.h>

#include <functional>
#include <map>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"
#include "reference_file.hpp"

using namespace litgrad;

namespace {

// The same expressions as make_torch_reference.py, by name; `in` holds the inputs in file order.
using Expr = std::function<Tensor(const std::vector<Tensor>& in)>;
const std::map<std::string, Expr>& expressions() {
  static const std::map<std::string, Expr> e = {
      {"attention_by_hand",
       [](auto& in) { return matmul(softmax(matmul(in[0], transpose(in[1], 0, 1)) / 2.0, -1), in[2]); }},
      {"mlp_tanh_sigmoid",
       [](auto& in) {
         return sigmoid(matmul(tanh(matmul(in[0], transpose(in[1], 0, 1)) + in[2]), transpose(in[3], 0, 1)));
       }},
      {"cross_entropy_mean", [](auto& in) { return reshape(cross_entropy(in[0], in[1]), {1}); }},
      {"broadcast_exp_log_div", [](auto& in) { return log(exp(in[0]) + in[1] * in[1]) / (1.0 + in[1] * in[1]); }},
      {"causal_masked_softmax_mean",
       [](auto& in) { return mean(softmax(masked_fill(in[0], in[1], -INFINITY), -1), {0}); }},
      {"relu_max_mse", [](auto& in) { return reshape(mse_loss(max(relu(in[0]), 1).values, in[1]), {1}); }},
      {"batched_matmul_broadcast_permute",
       [](auto& in) {
         return sum(permute(matmul(in[0], in[1]), {3, 0, 2, 1}), {0, 3}, true);
       }},
      {"gather_cat_stack_slice",
       [](auto& in) {
         return stack({slice(cat({in[0], in[1]}, 1), 1, 1, 5, 2), gather(in[0], 1, in[2]) * in[1]}, 0);
       }},
      {"sin_cos_pow_where",
       [](auto& in) {
         return where(gt(in[0], scalar_tensor(0)), pow(sin(in[0]), 2.0), cos(in[0]) * in[0]) + pow(in[0], 3.0);
       }},
      {"log_softmax_sum_over_dims", [](auto& in) { return sum(log_softmax(in[0], 1), {-1}) - mean(in[0]); }},
      // The operations the later chapters use.
      {"gelu_exact_and_tanh", [](auto& in) { return gelu(in[0]) + gelu(0.7 * in[0], "tanh"); }},
      {"logsumexp_sqrt_clamp",
       [](auto& in) {
         return logsumexp(in[0], 1) + sum(sqrt(in[0] * in[0] + 1.0), {1}) + sum(clamp(in[0], -0.5, 0.7), {1});
       }},
      {"var_and_std",
       [](auto& in) {
         return cat({var(in[0], {1}), litgrad::std(in[0], {0}, false), reshape(var(in[0]), {1})});
       }},
      {"vector_norms",
       [](auto& in) {
         return stack({norm(in[0]), norm(in[0], 1), norm(in[0], INFINITY), norm(in[0], 3)});
       }},
      {"cross_entropy_ignore_and_smoothing",
       [](auto& in) {
         CrossEntropyOptions o;
         o.ignore_index = 1, o.label_smoothing = 0.2, o.reduction = Reduction::None;
         return cross_entropy(in[0], in[1], o);
       }},
      {"cross_entropy_probabilities_mean",
       [](auto& in) {
         CrossEntropyOptions o;
         o.label_smoothing = 0.1;
         return reshape(cross_entropy(in[0], in[1], o), {1});
       }},
      {"nll_loss_sum",
       [](auto& in) { return reshape(nll_loss(log_softmax(in[0], 1), in[1], -100, Reduction::Sum), {1}); }},
      {"binary_cross_entropy_with_logits",
       [](auto& in) { return binary_cross_entropy_with_logits(4.0 * in[0], in[1], Reduction::None); }},
      {"layer_norm_affine", [](auto& in) { return nn::layer_norm(in[0], {4}, in[1], in[2], 1e-5); }},
      {"expand_repeat_flatten_tril",
       [](auto& in) {
         return flatten(tril(sum(expand(in[0], {2, 3, 4}), {0}) + repeat(in[1], {1, 2}), 1));
       }},
      {"topk_index_select_embedding",
       [](auto& in) {
         const Tensor rows = slice(nn::embedding(in[1], in[0]), 1, 0, 2);  // [4, 2]
         return matmul(topk(in[0], 2, 1).values, transpose(rows, 0, 1)) + sum(index_select(in[0], 0, in[1]));
       }},
      // The losses and layers of the language models.
      {"cross_entropy_over_positions_none", [](auto& in) { return cross_entropy(in[0], in[1], Reduction::None); }},
      {"cross_entropy_over_positions_ignore_smoothing",
       [](auto& in) {
         CrossEntropyOptions o;
         o.ignore_index = 1, o.label_smoothing = 0.1;
         return reshape(cross_entropy(in[0], in[1], o), {1});
       }},
      {"cross_entropy_over_positions_probabilities",
       [](auto& in) { return reshape(cross_entropy(in[0], in[1], Reduction::Sum), {1}); }},
      {"hessian_vector_product_tanh",
       [](auto& in) {
         const Tensor g =
             autograd::grad({sum(pow(tanh(matmul(in[0], in[1])), 2.0))}, {in[0]}, {}, std::nullopt, true)[0];
         return autograd::grad({sum(g * in[2])}, {in[0]}, {}, std::nullopt, true)[0];
       }},
  };
  return e;
}

}  // namespace

TEST_CASE("composite expressions agree with PyTorch to 1e-12 in value and in every gradient") {
  const auto cases = test::read_reference_file("torch_composites.txt");
  REQUIRE(cases.size() == expressions().size());
  for (const auto& c : cases) {
    CAPTURE(c.name);
    REQUIRE(expressions().count(c.name) == 1);
    std::vector<Tensor> inputs;
    for (const auto& t : c.tensors)
      if (t.role == "input")
        inputs.push_back(t.value.dtype() == DType::Float64 ? t.value.detach().requires_grad_() : t.value);
    const Tensor y = expressions().at(c.name)(inputs);
    CHECK(test::relative_error(y, c.get("output", "y")) <= 1e-12);
    sum(y * y).backward();
    std::size_t k = 0;
    for (const auto& t : c.tensors) {
      if (t.role != "input") continue;
      const Tensor x = inputs[k++];
      if (x.dtype() != DType::Float64) continue;
      CAPTURE(t.name);
      CHECK(test::relative_error(x.grad(), c.get("grad", t.name)) <= 1e-12);
    }
  }
}
