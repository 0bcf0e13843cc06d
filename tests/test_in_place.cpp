// Changing a tensor in place between an operation's forward and its backward never changes a
// gradient silently: backward refuses, naming the operation, or gives the very bits it gave
// without the change. For every operation of the library's table (ops/registry.hpp) a recipe
// below calls it with every kind of tensor it takes (inputs, conditions, masks, indices,
// targets), and the test changes each of those tensors in place, in turn, after the forward:
// a mask buffer reused for the next batch, an index tensor overwritten, a target refilled. An
// operation without a recipe fails the test, naming it.

#include <doctest/doctest.h>

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>
#include <litgrad/ops/detail/scatter.hpp>

#include "helpers.hpp"

using namespace litgrad;
using Args = std::vector<Tensor>;

namespace {

struct Recipe {
  std::function<Args()> args;                                  // fresh arguments, from a fixed seed
  std::function<Tensor(const Args&)> call;                     // the operation on them, recorded
  std::function<void(std::size_t, Tensor&)> change = nullptr;  // a change in place of argument k
};

Tensor normal(const Shape& s, std::uint64_t seed, bool grad = true) {
  Generator gen(seed);
  Tensor t = randn(s, gen);
  return grad ? t.requires_grad_() : t;
}
Tensor positive(const Shape& s, std::uint64_t seed) {
  Generator gen(seed);
  return uniform(s, 0.5, 2.0, gen).requires_grad_();
}
Tensor ids(std::vector<double> v) { return tensor(v, {static_cast<std::int64_t>(v.size())}, DType::Int64); }

// The default change: a Float64 tensor moves by 1, a Bool one flips, an Int64 one (an index,
// an id) takes its neighbour's values, rolled by one, which stay in range.
void change(Tensor& t) {
  if (t.dtype() == DType::Bool) {
    t.copy_(logical_not(t));
  } else if (t.dtype() == DType::Int64) {
    const Tensor rolled = cat({slice(reshape(t, {-1}), 0, 1, t.numel()), slice(reshape(t, {-1}), 0, 0, 1)}, 0);
    t.copy_(reshape(rolled, t.shape()));
  } else {
    t.add_(1.0);
  }
}

Recipe unary(std::function<Tensor(const Tensor&)> f, bool positive_only = false) {
  return {[positive_only] {
            return Args{positive_only ? positive({2, 3}, 1) : normal({2, 3}, 1)};
          },
          [f](const Args& a) { return f(a[0]); }};
}

// The gradient of f with create_graph, so that the operations of f's backward are recorded:
// what reaches the library's own operations that undo a selection.
Tensor gradient_of(const Tensor& y, const Tensor& x) {
  return autograd::grad({sum(y * y)}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
}

const std::map<std::string, Recipe>& recipes() {
  static const std::map<std::string, Recipe> table = {
      {"abs", unary([](const Tensor& x) { return abs(x); })},
      {"add",
       {[] {
          return Args{normal({2, 3}, 1), normal({3}, 2)};
        },
        [](const Args& a) { return a[0] + a[1]; }}},
      {"attention_weights",
       {[] {
          return Args{normal({2, 3, 4}, 1), normal({2, 3, 4}, 2), normal({2, 3, 4}, 3), normal({3, 3}, 4, false)};
        },
        [](const Args& a) { return scaled_dot_product_attention(a[0], a[1], a[2], a[3]).output; }}},
      {"binary_cross_entropy_with_logits",
       {[] {
          return Args{normal({4}, 1), tensor({1.0, 0.0, 1.0, 0.0}).requires_grad_()};
        },
        [](const Args& a) { return binary_cross_entropy_with_logits(a[0], a[1]); }}},
      {"cat",
       {[] {
          return Args{normal({2, 3}, 1), normal({1, 3}, 2)};
        },
        [](const Args& a) { return cat(a, 0); }}},
      {"clamp", unary([](const Tensor& x) { return clamp(x, -0.5, 0.5); })},
      {"clone", unary([](const Tensor& x) { return x.clone(); })},
      {"cos", unary([](const Tensor& x) { return cos(x); })},
      {"div",
       {[] {
          return Args{normal({2, 3}, 1), positive({2, 1}, 2)};
        },
        [](const Args& a) { return a[0] / a[1]; }}},
      {"embedding",
       {[] {
          return Args{ids({3, 1, 3, 0}), normal({4, 2}, 1)};
        },
        [](const Args& a) { return gradient_of(nn::embedding(a[0], a[1], 0) * a[1].sum(), a[1]); }}},
      {"exp", unary([](const Tensor& x) { return exp(x); })},
      {"expand", unary([](const Tensor& x) {
         return expand(reshape(x, {2, 1, 3}), {2, 4, 3});
       })},
      {"gather",
       {[] {
          return Args{normal({2, 3}, 1), tensor({2, 0, 1, 1}, {2, 2}, DType::Int64)};
        },
        [](const Args& a) { return gather(a[0], 1, a[1]); }}},
      {"gelu", unary([](const Tensor& x) { return gelu(x); })},
      {"index_add",
       {[] {
          return Args{normal({4, 3}, 1), ids({3, 0, 3})};
        },
        [](const Args& a) { return gradient_of(index_select(a[0], 0, a[1]), a[0]); }}},
      {"index_select",
       {[] {
          return Args{normal({4, 3}, 1), ids({3, 0, 3})};
        },
        [](const Args& a) { return index_select(a[0], 0, a[1]); }}},
      {"linear",
       {[] {
          return Args{normal({2, 3}, 1), normal({4, 3}, 2), normal({4}, 3)};
        },
        [](const Args& a) { return nn::linear(a[0], a[1], a[2]); }}},
      {"log", unary([](const Tensor& x) { return log(x); }, true)},
      {"log_softmax", unary([](const Tensor& x) { return log_softmax(x, 1); })},
      {"logsumexp", unary([](const Tensor& x) { return logsumexp(x, 1); })},
      {"matmul",
       {[] {
          return Args{normal({2, 3}, 1), normal({3, 4}, 2)};
        },
        [](const Args& a) { return matmul(a[0], a[1]); }}},
      {"max", unary([](const Tensor& x) {
         const MaxResult m = max(x, 1);
         return m.values * to(m.indices, DType::Float64);
       })},
      {"mul",
       {[] {
          return Args{normal({2, 3}, 1), normal({2, 3}, 2)};
        },
        [](const Args& a) { return a[0] * a[1]; }}},
      {"neg", unary([](const Tensor& x) { return -x; })},
      {"norm", unary([](const Tensor& x) { return norm(x); })},
      {"permute", unary([](const Tensor& x) {
         return permute(x, {1, 0});
       })},
      {"pow", unary([](const Tensor& x) { return pow(x, 3.0); })},
      {"pow_tensor",
       {[] {
          return Args{positive({2, 3}, 1), normal({3}, 2)};
        },
        [](const Args& a) { return pow(a[0], a[1]); }}},
      {"relu", unary([](const Tensor& x) { return relu(x); })},
      {"repeat", unary([](const Tensor& x) {
         return repeat(x, {2, 1});
       })},
      {"reshape", unary([](const Tensor& x) {
         return reshape(x, {3, 2});
       })},
      // x's gradient through gather, sum(gather(x, 1, index) * w), is scatter_add(w, index): a
      // graph from w to the result that holds no gather, so that only scatter_add's own check
      // guards the index its backward reads.
      {"scatter_add",
       {[] {
          return Args{normal({2, 3}, 1), tensor({2, 0, 1, 1}, {2, 2}, DType::Int64), normal({2, 2}, 2)};
        },
        [](const Args& a) {
          return autograd::grad({sum(gather(a[0], 1, a[1]) * a[2])}, {a[0]}, {}, std::nullopt, true)[0];
        }}},
      {"sigmoid", unary([](const Tensor& x) { return sigmoid(x); })},
      {"sin", unary([](const Tensor& x) { return sin(x); })},
      {"slice", unary([](const Tensor& x) { return slice(x, 1, 0, 3, 2); })},
      {"softmax", unary([](const Tensor& x) { return softmax(x, 1); })},
      {"sqrt", unary([](const Tensor& x) { return sqrt(x); }, true)},
      {"sub",
       {[] {
          return Args{normal({2, 3}, 1), normal({2, 3}, 2)};
        },
        [](const Args& a) { return a[0] - a[1]; }}},
      {"sum", unary([](const Tensor& x) { return sum(x, {1}); })},
      {"tanh", unary([](const Tensor& x) { return tanh(x); })},
      {"unslice", unary([](const Tensor& x) { return gradient_of(slice(x, 1, 0, 3, 2), x); })},
      {"where",
       {[] {
          return Args{tensor({1.0, 0.0, 0.0, 1.0, 1.0, 0.0}, {2, 3}, DType::Bool), normal({2, 3}, 1),
                      normal({2, 3}, 2)};
        },
        [](const Args& a) { return where(a[0], a[1], a[2]); }}},
  };
  return table;
}

// The gradients of loss with respect to every argument that requires grad; with create_graph,
// each operation's backward written with operations runs instead of its plain one, and reads
// what it captured then.
std::vector<Tensor> gradients(const Tensor& loss, const Args& a, bool create_graph) {
  std::vector<Tensor> wanted;
  for (const Tensor& t : a)
    if (t.requires_grad()) wanted.push_back(t);
  return autograd::grad({loss}, wanted, {}, true, create_graph, /*allow_unused=*/true);
}

bool same_bits(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].defined() != b[i].defined()) return false;
    if (a[i].defined() && !test::identical(a[i], b[i])) return false;
  }
  return true;
}

// Whether create_graph goes through every operation of y's graph (ops/registry.hpp).
bool twice_through(const Tensor& y) {
  for (const std::string& name : test::graph_ops(y))
    for (const Op& op : operations)
      if (name == op.name && op.twice == Twice::no) return false;
  return true;
}

}  // namespace

TEST_CASE("every operation of the library's table has a recipe here, and the recipe's graph holds it") {
  for (const Op& op : operations) {
    INFO("operation without a recipe: " << std::string(op.name));
    REQUIRE(recipes().count(op.name) == 1);
    const Recipe& r = recipes().at(op.name);
    CHECK(test::graph_ops(r.call(r.args())).count(op.name) == 1);
  }
}

TEST_CASE(
    "changing any tensor an operation was given, in place, before backward never changes a gradient silently: "
    "backward refuses, or gives the same bits, with and without create_graph") {
  for (const auto& [name, r] : recipes()) {
    for (const bool create_graph : {false, true}) {
      const Args fresh = r.args();
      const Tensor y = r.call(fresh);
      if (create_graph && !twice_through(y)) continue;
      const std::vector<Tensor> before = gradients(sum(y * y), fresh, create_graph);
      for (std::size_t k = 0; k < fresh.size(); ++k) {
        CAPTURE(name);
        CAPTURE(create_graph);
        CAPTURE(k);
        Args a = r.args();
        const Tensor y_changed = r.call(a);
        const Tensor loss = sum(y_changed * y_changed);  // recorded before the change
        {
          NoGradGuard no_grad;
          if (r.change)
            r.change(k, a[k]);
          else
            change(a[k]);
        }
        try {
          const std::vector<Tensor> after = gradients(loss, a, create_graph);
          INFO("argument " << k << " of " << name << ", changed in place, changed a gradient silently");
          CHECK(same_bits(after, before));
        } catch (const AutogradError& e) {
          CHECK(std::string(e.what()).find("was changed in place") != std::string::npos);
        }
      }
    }
  }
}

TEST_CASE(
    "a padding mask reused for the next batch before backward is refused, naming the condition, as torch refuses "
    "it") {
  const Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, {2, 2}).requires_grad_();
  Tensor mask = tensor({1.0, 1.0, 0.0, 1.0}, {2, 2}, DType::Bool);
  const Tensor loss = sum(masked_fill(x, mask, 0.0) * x);
  {
    NoGradGuard no_grad;
    mask.fill_(1.0);
  }
  CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("the condition of where (shape [2,2])"), AutogradError);
}

TEST_CASE(
    "index_put_, index_fill_ and scatter_ are changes in place like any other: a graph that read the tensor refuses") {
  const std::vector<std::function<void(Tensor&)>> writes = {
      [](Tensor& t) {
        t.index_put_({0, indexing::Slice()}, 5.0);
      },
      [](Tensor& t) { t.index_fill_(1, tensor({1}, {1}, DType::Int64), 5.0); },
      [](Tensor& t) {
        t.scatter_(0, tensor({1, 0}, {1, 2}, DType::Int64), 5.0);
      },
  };
  for (std::size_t k = 0; k < writes.size(); ++k) {
    CAPTURE(k);
    const Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, {2, 2}).requires_grad_();
    Tensor w = tensor({0.5, -1.0, 2.0, 0.25}, {2, 2});
    const Tensor loss = sum(x * w);  // mul reads w for x's gradient
    const std::uint64_t before = w.version();
    {
      NoGradGuard no_grad;
      writes[k](w);
    }
    CHECK(w.version() == before + 1);
    CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("was changed in place after mul used it"), AutogradError);
  }
}

TEST_CASE("the indices max returned are read by its backward: changed in place before backward, they are refused") {
  // The indices are the caller's to keep, and a caller may reuse them as a buffer; the
  // gradient must not then go to the positions they hold by then.
  const Tensor x = tensor({1.0, 5.0, 3.0, 4.0, 2.0, 0.0}, {2, 3}).requires_grad_();
  for (const bool smallest : {false, true}) {
    CAPTURE(smallest);
    MaxResult m = smallest ? min(x, 1) : max(x, 1);
    const Tensor loss = sum(m.values);
    {
      NoGradGuard no_grad;
      m.indices.fill_(2.0);
    }
    CHECK_THROWS_WITH_AS(loss.backward(), doctest::Contains("the indices it returned"), AutogradError);
  }
}
