// Every differentiable operation of the library, checked against central differences.
//
// Each GRADCHECK line below is one CTest test. The table covers each op plainly and, where it
// applies, with broadcasting, with batching, and with an input used twice in one graph. The
// last tests read the library's table of operations (ops/registry.hpp) and fail naming any
// operation these tables do not reach: no op without a check, no op whose backward is said to
// record itself without a check of its second derivative, and none said not to whose refusal
// is not seen.

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>

#include <litgrad/litgrad.hpp>
#include <litgrad/ops/detail/scatter.hpp>

#include "helpers.hpp"

using namespace litgrad;
using Inputs = std::vector<Tensor>;

namespace {

struct OpCheck {
  std::function<Tensor(const Inputs&)> fn;
  std::function<Inputs()> make_inputs;  // fresh inputs requiring grad, from a fixed seed
  std::function<Tensor(const Inputs&)> differentiated_twice = nullptr;  // a second-order check's f
};

std::map<std::string, OpCheck>& table() {
  static std::map<std::string, OpCheck> t;
  return t;
}

bool register_check(const std::string& name, OpCheck check) {
  table().emplace(name, std::move(check));
  return true;
}

// Inputs drawn from a seeded generator; positive=true keeps them in [0.5, 2) for log, pow, div.
Inputs normals(const std::vector<Shape>& shapes, std::uint64_t seed = 1) {
  Generator gen(seed);
  Inputs in;
  for (const auto& s : shapes) in.push_back(randn(s, gen).requires_grad_());
  return in;
}
Inputs positives(const std::vector<Shape>& shapes, std::uint64_t seed = 2) {
  Generator gen(seed);
  Inputs in;
  for (const auto& s : shapes) in.push_back(uniform(s, 0.5, 2.0, gen).requires_grad_());
  return in;
}

}  // namespace

// One table entry and its own TEST_CASE, named "gradcheck: <what>".
#define GRADCHECK_CAT(a, b) a##b
#define GRADCHECK_NAME(line) GRADCHECK_CAT(gradcheck_registered_, line)
#define GRADCHECK(name, inputs, ...)                                                                              \
  static const bool GRADCHECK_NAME(__LINE__) = register_check(name, OpCheck{__VA_ARGS__, [] { return inputs; }}); \
  TEST_CASE("gradcheck: " name) {                                                                                 \
    const OpCheck& c = table().at(name);                                                                          \
    const auto result = gradcheck(c.fn, c.make_inputs());                                                         \
    INFO(result.message);                                                                                         \
    CHECK(result.ok);                                                                                             \
  }

using I = const Inputs&;

// Arithmetic, with broadcasting in both directions and a reused input.
GRADCHECK("add", normals({{2, 3}, {2, 3}}), [](I x) { return x[0] + x[1]; })
GRADCHECK("add broadcasting 2x1x3 + 4x1", normals({{2, 1, 3}, {4, 1}}), [](I x) { return x[0] + x[1]; })
GRADCHECK("sub broadcasting 3 - 2x3", normals({{3}, {2, 3}}), [](I x) { return x[0] - x[1]; })
GRADCHECK("mul broadcasting 2x3 * 3", normals({{2, 3}, {3}}), [](I x) { return x[0] * x[1]; })
GRADCHECK("mul of a tensor with itself", normals({{4}}), [](I x) { return x[0] * x[0]; })
GRADCHECK("div broadcasting 2x3 / 2x1", positives({{2, 3}, {2, 1}}), [](I x) { return x[0] / x[1]; })
GRADCHECK("neg", normals({{5}}), [](I x) { return -x[0]; })
GRADCHECK("clone", normals({{5}}), [](I x) { return x[0].clone() * arange(5); })
GRADCHECK("pow 3", normals({{5}}), [](I x) { return pow(x[0], 3.0); })
GRADCHECK("pow -1.5", positives({{5}}), [](I x) { return pow(x[0], -1.5); })
GRADCHECK("pow with a tensor exponent, broadcasting 2x3 ^ 3", positives({{2, 3}, {3}}),
          [](I x) { return pow(x[0], x[1] * 3.0 - 1.5); })

// Functions.
GRADCHECK("exp", normals({{2, 3}}), [](I x) { return exp(x[0]); })
GRADCHECK("log", positives({{2, 3}}), [](I x) { return log(x[0]); })
GRADCHECK("tanh", normals({{2, 3}}), [](I x) { return tanh(x[0]); })
GRADCHECK("sigmoid", normals({{2, 3}}), [](I x) { return sigmoid(x[0]); })
GRADCHECK("abs away from its kink", normals({{2, 3}}), [](I x) { return abs(x[0]); })
GRADCHECK("relu away from its kink", normals({{2, 3}}), [](I x) { return relu(x[0]); })
GRADCHECK("sin", normals({{2, 3}}), [](I x) { return sin(x[0]); })
GRADCHECK("cos", normals({{2, 3}}), [](I x) { return cos(x[0]); })

// Selecting.
GRADCHECK("where broadcasting the condition", normals({{2, 3}, {3}}),
          [](I x) { return where(gt(x[0], scalar_tensor(0.0)), x[0] * 2.0, x[1]); })
GRADCHECK("masked_fill with a broadcast mask", normals({{2, 3}}), [](I x) {
  return masked_fill(x[0], tensor({1, 0, 1}, {3}, DType::Bool), -5.0);
})

// Matrix products: plain, batched with broadcasting, vectors, and one operand used twice.
GRADCHECK("matmul 3x4 @ 4x2", normals({{3, 4}, {4, 2}}), [](I x) { return matmul(x[0], x[1]); })
GRADCHECK("matmul batched 2x1x3x4 @ 3x4x2", normals({{2, 1, 3, 4}, {3, 4, 2}}), [](I x) { return matmul(x[0], x[1]); })
GRADCHECK("matmul vector @ matrix @ vector", normals({{3}, {3, 4}, {4}}),
          [](I x) { return matmul(matmul(x[0], x[1]), x[2]); })
GRADCHECK("matmul x @ xT", normals({{3, 4}}), [](I x) { return matmul(x[0], transpose(x[0], 0, 1)); })
// A Linear layer, x Wᵀ + b as one operation ("linear"), batched and with the input as a row.
GRADCHECK("linear batched 2x3x4 with a 5x4 weight and bias", normals({{2, 3, 4}, {5, 4}, {5}}),
          [](I x) { return nn::linear(x[0], x[1], x[2]); })
GRADCHECK("linear of a vector, no bias", normals({{4}, {5, 4}}), [](I x) { return nn::linear(x[0], x[1], Tensor()); })

// Rearranging.
GRADCHECK("reshape with -1", normals({{2, 3, 2}}), [](I x) { return reshape(x[0], {3, -1}) * arange(4); })
GRADCHECK("permute", normals({{2, 3, 4}}), [](I x) { return permute(x[0], {2, 0, 1}) * arange(3); })
GRADCHECK("transpose", normals({{2, 3}}), [](I x) { return transpose(x[0], 0, 1) * arange(2); })
GRADCHECK("unsqueeze and squeeze", normals({{3}}), [](I x) { return squeeze(unsqueeze(x[0], 0) * x[0], 0); })

// Picking and joining.
GRADCHECK("select a row", normals({{3, 4}}), [](I x) { return select(x[0], 0, -1) * arange(4); })
GRADCHECK("slice with a step", normals({{3, 7}}), [](I x) { return slice(x[0], 1, 1, -1, 2); })
GRADCHECK("gather along dim 1 with repeats", normals({{3, 4}}), [](I x) {
  return gather(x[0], 1, tensor({0, 3, 3, 1, 2, 2}, {3, 2}, DType::Int64));
})
GRADCHECK("cat along dim 1", normals({{2, 3}, {2, 1}}), [](I x) { return cat({x[0], x[1], x[0]}, 1); })
GRADCHECK("stack along a new last dim", normals({{2, 3}, {2, 3}}), [](I x) { return stack({x[0], x[1]}, -1); })

// Reductions.
GRADCHECK("sum over everything", normals({{2, 3}}), [](I x) { return sum(x[0] * x[0]); })
GRADCHECK("sum over dims 0 and 2 keepdim", normals({{2, 3, 4}}), [](I x) {
  return sum(x[0], {0, 2}, true) * reshape(arange(3), {1, 3, 1});
})
GRADCHECK("mean over dim 1", normals({{2, 3, 4}}), [](I x) { return mean(x[0], {1}); })
GRADCHECK("max over dim 1", normals({{3, 5}}), [](I x) { return max(x[0], 1).values; })
GRADCHECK("max over everything", normals({{3, 5}}), [](I x) { return max(x[0]); })

// Softmax and losses.
GRADCHECK("softmax along the last dim", normals({{3, 5}}), [](I x) { return softmax(x[0], -1) * arange(5); })
GRADCHECK("softmax along dim 0", normals({{3, 5}}), [](I x) { return softmax(x[0], 0) * arange(5); })
GRADCHECK("log_softmax along dim 1", normals({{2, 4, 3}}), [](I x) { return log_softmax(x[0], 1) * arange(3); })
GRADCHECK("mse_loss", normals({{4, 2}, {4, 2}}), [](I x) { return mse_loss(x[0], x[1]); })
GRADCHECK("cross_entropy", normals({{4, 3}}), [](I x) {
  return cross_entropy(x[0], tensor({0, 2, 1, 2}, {4}, DType::Int64));
})

// A composite: one attention step written out, with the query reused as a key.
GRADCHECK("attention by hand, softmax(q kT / 2) v", normals({{3, 4}, {3, 4}}),
          [](I x) { return matmul(softmax(matmul(x[0], transpose(x[0], 0, 1)) / 2.0, -1), x[1]); })

// Scaled dot-product attention, whose weights are one fused operation ("attention_weights"):
// batched and causal, with a mask broadcast over rows, and with the query reused as the key.
GRADCHECK("scaled_dot_product_attention batched and causal", normals({{2, 3, 4}, {2, 5, 4}, {2, 5, 2}}),
          [](I x) { return scaled_dot_product_attention(x[0], x[1], x[2], {}, 0.0, true).output; })
GRADCHECK("scaled_dot_product_attention with a [2,1,5] mask", normals({{2, 3, 4}, {2, 5, 4}, {2, 5, 2}}), [](I x) {
  const Tensor mask = tensor({0, -1, 0.5, 0, -INFINITY, 0.25, 0, 0, -2, 0}, {2, 1, 5});
  return scaled_dot_product_attention(x[0], x[1], x[2], mask).output;
})
GRADCHECK("scaled_dot_product_attention, query as key, weights used", normals({{2, 3, 4}, {2, 3, 2}}), [](I x) {
  const AttentionOutput a = scaled_dot_product_attention(x[0], x[0], x[1]);
  return sum(a.output) + sum(a.weights * arange(3));
})

// More operations: elementwise, reductions, picking, rearranging, losses, layers.
GRADCHECK("sqrt", positives({{2, 3}}), [](I x) { return sqrt(x[0]); })
GRADCHECK("clamp to [-0.5, 0.5] away from the bounds", normals({{3, 4}}), [](I x) { return clamp(x[0], -0.5, 0.5); })
GRADCHECK("clamp below only", normals({{3, 4}}), [](I x) { return clamp(x[0], 0.1); })
GRADCHECK("gelu, exact", normals({{3, 4}}), [](I x) { return gelu(x[0]); })
GRADCHECK("gelu, tanh approximation", normals({{3, 4}}), [](I x) { return gelu(x[0], "tanh"); })
GRADCHECK("logsumexp along dim 1", normals({{3, 4}}), [](I x) { return logsumexp(x[0], 1); })
GRADCHECK("logsumexp along dim 0 keepdim", normals({{3, 4}}), [](I x) { return logsumexp(x[0], 0, true) * arange(4); })
GRADCHECK("norm 2 over everything", normals({{3, 4}}), [](I x) { return norm(x[0]); })
GRADCHECK("norm 1 over dim 1", normals({{3, 4}}), [](I x) { return norm(x[0], 1, {1}); })
GRADCHECK("norm 3 over dim 0 keepdim", normals({{3, 4}}), [](I x) { return norm(x[0], 3, {0}, true) * arange(4); })
GRADCHECK("norm inf over dim 1", normals({{3, 4}}), [](I x) { return norm(x[0], INFINITY, {1}); })
GRADCHECK("min over dim 0", normals({{3, 4}}), [](I x) { return min(x[0], 0).values; })
GRADCHECK("var over dim 1, unbiased", normals({{3, 4}}), [](I x) { return var(x[0], {1}); })
GRADCHECK("std over everything, biased", normals({{3, 4}}), [](I x) { return litgrad::std(x[0], {}, 0); })
GRADCHECK("topk 2 of each row", normals({{3, 5}}), [](I x) { return topk(x[0], 2, 1).values * arange(2); })
GRADCHECK("index_select with repeats", normals({{4, 3}}), [](I x) {
  return index_select(x[0], 0, tensor({3, 0, 3, 1}, {4}, DType::Int64)) * arange(3);
})
GRADCHECK("index_select along dim 1", normals({{2, 4, 3}}), [](I x) {
  return index_select(x[0], 1, tensor({2, 2, 0}, {3}, DType::Int64));
})
GRADCHECK("expand a column and a new leading dim", normals({{3, 1}}), [](I x) {
  return expand(x[0], {2, 3, 4}) * arange(4);
})
GRADCHECK("repeat rows and a new leading dim", normals({{2, 3}}), [](I x) {
  return repeat(x[0], {2, 2, 1}) * arange(3);
})
GRADCHECK("flatten dims 1 to 2", normals({{2, 3, 4}}), [](I x) { return flatten(x[0], 1) * arange(12); })
GRADCHECK("tril and triu", normals({{3, 4}, {3, 4}}), [](I x) { return tril(x[0], 1) + triu(x[1], -1); })
GRADCHECK("split into unequal pieces", normals({{5, 2}}), [](I x) {
  const auto p = split(x[0], std::vector<std::int64_t>{2, 3});
  return sum(p[0]) * 2.0 + sum(p[1] * p[1]);
})
GRADCHECK("chunk into three", normals({{7}}), [](I x) {
  const auto p = chunk(x[0], 3);
  return p[0] * 1.0 + p[1] * 2.0;
})
// (With a padding_idx the padding row gets no gradient on purpose, which finite differences
// would see; test_nn.cpp checks that row's gradient is exactly 0.)
GRADCHECK("embedding with repeats", normals({{5, 3}}), [](I x) {
  return nn::embedding(tensor({4, 1, 4, 0, 2}, {5}, DType::Int64), x[0]) * arange(3);
})
GRADCHECK("layer_norm over the last dim with weight and bias", normals({{4, 5}, {5}, {5}}),
          [](I x) { return nn::layer_norm(x[0], {5}, x[1], x[2]) * arange(5); })
GRADCHECK("layer_norm over the last two dims", normals({{2, 3, 4}}), [](I x) {
  return nn::layer_norm(x[0], {3, 4}) * arange(4);
})
GRADCHECK("cross_entropy with ignore_index and label smoothing", normals({{4, 3}}), [](I x) {
  CrossEntropyOptions o;
  o.ignore_index = 1, o.label_smoothing = 0.2;
  return cross_entropy(x[0], tensor({0, 1, 2, 2}, {4}, DType::Int64), o);
})
GRADCHECK("cross_entropy with class probabilities", normals({{3, 4}, {3, 4}}),
          [](I x) { return cross_entropy(x[0], softmax(x[1], 1)); })
GRADCHECK("nll_loss of log_softmax", normals({{4, 3}}), [](I x) {
  return nll_loss(log_softmax(x[0], 1), tensor({2, 0, 1, 1}, {4}, DType::Int64));
})
GRADCHECK("binary_cross_entropy_with_logits, input and target", normals({{3, 4}, {3, 4}}),
          [](I x) { return binary_cross_entropy_with_logits(x[0] * 3.0, sigmoid(x[1])); })

// ---------------------------------------------------------------------------------------------
// Second derivatives: for every operation whose backward can be recorded (autograd::grad with
// create_graph), the gradient of L = sum(r · f(x)²), computed with create_graph, is itself
// checked against central differences. Squaring makes the gradient depend on x for every f
// (a linear f included), so the recorded backward of f is differentiated in every check.

namespace {
std::function<Tensor(const Inputs&)> second_order(std::function<Tensor(const Inputs&)> f) {
  return [f](const Inputs& x) {
    EnableGradGuard recording;  // gradcheck's finite differences evaluate without recording
    const Tensor y = f(x);
    Generator gen(99);
    const Tensor r = randn(y.shape(), gen);
    std::vector<Tensor> wanted;
    for (const Tensor& t : x)
      if (t.requires_grad()) wanted.push_back(t);
    const auto grads = autograd::grad({sum(r * y * y)}, wanted, {}, std::nullopt, /*create_graph=*/true);
    std::vector<Tensor> flat;
    for (const Tensor& g : grads) flat.push_back(reshape(g, {-1}));
    return cat(flat, 0);
  };
}
}  // namespace

#define GRADGRADCHECK(name, inputs, ...)                                                                   \
  static const bool GRADCHECK_NAME(__LINE__) = register_check(                                             \
      "second derivative: " name, OpCheck{second_order(__VA_ARGS__), [] { return inputs; }, __VA_ARGS__}); \
  TEST_CASE("gradcheck of the gradient: " name) {                                                          \
    const OpCheck& c = table().at("second derivative: " name);                                             \
    const auto result = gradcheck(c.fn, c.make_inputs());                                                  \
    INFO(result.message);                                                                                  \
    CHECK(result.ok);                                                                                      \
  }

GRADGRADCHECK("add and sub broadcasting", normals({{2, 3}, {3}}), [](I x) { return x[0] + x[1] - x[1] * 2.0; })
GRADGRADCHECK("mul and div broadcasting", positives({{2, 3}, {2, 1}}), [](I x) { return x[0] * x[1] / (x[1] + x[0]); })
GRADGRADCHECK("neg and pow", positives({{4}}), [](I x) { return -pow(x[0], 2.0) + pow(x[0], -1.5) + pow(x[0], 0.0); })
GRADGRADCHECK("pow with a tensor exponent", positives({{2, 3}, {2, 1}}), [](I x) { return pow(x[0], x[1] - 1.0); })
GRADGRADCHECK("exp, log, sqrt", positives({{2, 3}}), [](I x) { return exp(x[0]) + log(x[0]) + sqrt(x[0]); })
GRADGRADCHECK("tanh and sigmoid", normals({{2, 3}}), [](I x) { return tanh(x[0]) * sigmoid(x[0]); })
GRADGRADCHECK("sin and cos", normals({{5}}), [](I x) { return sin(x[0]) * cos(x[0] * 2.0); })
GRADGRADCHECK("abs, relu and clamp away from their kinks", normals({{3, 4}}),
              [](I x) { return abs(x[0]) * relu(x[0]) + clamp(x[0], -0.5, 0.5); })
GRADGRADCHECK("where and masked_fill", normals({{2, 3}, {3}}), [](I x) {
  return where(gt(x[0], scalar_tensor(0.0)), x[0] * x[1], x[1]) +
         masked_fill(x[0], tensor({1, 0, 1}, {3}, DType::Bool), 2.0);
})
GRADGRADCHECK("matmul batched and broadcast", normals({{2, 1, 3, 4}, {3, 4, 2}}),
              [](I x) { return matmul(x[0], x[1]); })
GRADGRADCHECK("linear with bias", normals({{2, 3, 4}, {5, 4}, {5}}), [](I x) { return nn::linear(x[0], x[1], x[2]); })
GRADGRADCHECK("sum, mean, reshape, permute, expand", normals({{2, 3, 4}}), [](I x) {
  return expand(sum(permute(reshape(x[0], {4, 6}), {1, 0}), {0}, true), {3, 4}) + mean(x[0], {0, 1});
})
GRADGRADCHECK("slice, select, cat and stack", normals({{3, 5}}), [](I x) {
  const Tensor pieces = stack({slice(x[0], 1, 0, 5, 2), slice(x[0], 1, 1, 4)}, 0);  // [2, 3, 3]
  return cat({reshape(pieces, {-1}), select(x[0], 0, 1)}, 0);
})
GRADGRADCHECK("gather and index_select with repeats", normals({{3, 4}}), [](I x) {
  return cat({gather(x[0], 1, tensor({0, 3, 3, 1, 2, 2}, {3, 2}, DType::Int64)).reshape({-1}),
              index_select(x[0], 0, tensor({2, 0, 2}, {3}, DType::Int64)).sum({1})},
             0);
})
GRADGRADCHECK("embedding with repeats and a padding row", normals({{5, 3}}), [](I x) {
  return nn::embedding(tensor({4, 1, 4, 0, 2}, {5}, DType::Int64), x[0], 1);
})
GRADGRADCHECK("softmax, log_softmax, logsumexp", normals({{3, 4}}),
              [](I x) { return softmax(x[0], 1) * 2.0 + log_softmax(x[0], 0) + logsumexp(x[0], 1, true); })
GRADGRADCHECK("cross_entropy and mse_loss", normals({{4, 3}, {4, 3}}), [](I x) {
  return cross_entropy(x[0], tensor({0, 2, 1, 2}, {4}, DType::Int64)) + mse_loss(x[0], x[1]);
})
GRADGRADCHECK("scaled_dot_product_attention, causal", normals({{2, 3, 4}, {2, 3, 4}, {2, 3, 2}}),
              [](I x) { return scaled_dot_product_attention(x[0], x[1], x[2], {}, 0.0, true).output; })
GRADGRADCHECK("clone", normals({{3}}), [](I x) { return x[0].clone() * x[0]; })
// The selections undone: the library's own operations, which gradients written with operations
// use (ops/detail/scatter.hpp); each is differentiable in its turn.
GRADGRADCHECK("unslice, scatter_add and index_add", normals({{2, 3}}), [](I x) {
  const Tensor index = tensor({0, 3, 3, 1, 0, 2}, {2, 3}, DType::Int64);
  return cat({reshape(detail::unslice(x[0], {2, 7}, 1, 1, 2), {-1}),
              reshape(detail::scatter_add(x[0], {2, 4}, 1, index), {-1}),
              reshape(detail::index_add(x[0], {2, 5}, 1, {4, 0, 4}), {-1})},
             0);
})

namespace {
// The operations in the graphs a table's entries make: of each entry's function (first), or of
// the functions whose gradients the second-order entries differentiate (second).
std::set<std::string> reached(bool second) {
  std::set<std::string> ops;
  for (auto& [name, check] : table()) {
    const auto& fn = second ? check.differentiated_twice : check.fn;
    if (fn)
      for (const auto& op : test::graph_ops(fn(check.make_inputs()))) ops.insert(op);
  }
  return ops;
}
}  // namespace

TEST_CASE("every operation of the library's table is in the gradcheck table") {
  const std::set<std::string> covered = reached(false);
  for (const Op& op : operations) {
    INFO("operation without a gradcheck: " << std::string(op.name));
    CHECK(covered.count(op.name) == 1);
  }
}

TEST_CASE("every operation whose backward records itself has its second derivative checked") {
  const std::set<std::string> covered = reached(true);
  for (const Op& op : operations)
    if (op.twice == Twice::yes) {
      INFO("operation said to differentiate twice, with no check of its second derivative: " << std::string(op.name));
      CHECK(covered.count(op.name) == 1);
    }
}

TEST_CASE("every operation whose backward does not record itself refuses create_graph, naming itself") {
  for (const Op& op : operations) {
    if (op.twice == Twice::yes) continue;
    INFO("operation said not to differentiate twice: " << std::string(op.name));
    // The first entry of the table whose graph reaches the operation, differentiated with
    // create_graph: the pass must stop at it, with an error that names it.
    bool tried = false;
    for (auto& [name, check] : table()) {
      if (check.differentiated_twice) continue;
      const Inputs x = check.make_inputs();
      const Tensor y = check.fn(x);
      if (test::graph_ops(y).count(op.name) == 0) continue;
      std::vector<Tensor> wanted;
      for (const Tensor& t : x)
        if (t.requires_grad()) wanted.push_back(t);
      CHECK_THROWS_WITH_AS(autograd::grad({sum(y)}, wanted, {}, std::nullopt, /*create_graph=*/true),
                           doctest::Contains(op.name), AutogradError);
      tried = true;
      break;
    }
    CHECK(tried);
  }
}
