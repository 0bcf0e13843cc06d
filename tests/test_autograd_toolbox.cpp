// Autograd's toolbox, as torch users reach for it: gradients as values (autograd::grad),
// higher-order gradients (create_graph), hooks, retain_grad, custom Functions, and the version
// counter that refuses a gradient computed from a tensor changed in place since it was used.

#include <doctest/doctest.h>

#include <cmath>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "litgrad/core/detail/node.hpp"  // to record an operation with a broken backward

using namespace litgrad;

namespace {

double largest_gap(const Tensor& a, const Tensor& b) { return max(abs(a - b)).item(); }

}  // namespace

// ---------------------------------------------------------------------------------------------
// In place, and the version counter

TEST_CASE("a tensor saved for backward and changed in place since is an error naming the operation and the versions") {
  // The program that gave a wrong gradient and no error before the version counter: w is
  // saved by mul, then overwritten under NoGradGuard; its old value is the one y used.
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor w = tensor({3.0, 4.0}).requires_grad_();
  const Tensor y = sum(x * w);
  {
    NoGradGuard no_grad;
    w.copy_(tensor({30.0, 40.0}));
  }
  CHECK(w.version() == 1);
  CHECK_THROWS_WITH_AS(y.backward(),
                       doctest::Contains("backward: input 1 of mul (shape [2]), which its gradient needs, "
                                         "was changed in place after mul used it: it is at version 1, "
                                         "it was at version 0"),
                       AutogradError);
  CHECK_FALSE(x.grad().defined());  // nothing was added anywhere
}

TEST_CASE("an operation that saves nothing, as add, lets its input change in place afterwards, as torch does") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor b = tensor({5.0, 6.0});
  const Tensor y = sum(x + b);
  b.add_(1.0);  // b needs no grad: its change is allowed, and add's gradient does not read it
  y.backward();
  CHECK(x.grad().to_vector() == std::vector<double>{1.0, 1.0});
}

TEST_CASE("an output that its backward reads, changed in place, is refused too") {
  Tensor x = tensor({0.5, -1.0}).requires_grad_();
  Tensor e = exp(x);  // exp's gradient is g * e^x, read from its output
  const Tensor y = sum(e);
  {
    NoGradGuard no_grad;
    e.mul_(2.0);
  }
  CHECK_THROWS_WITH_AS(y.backward(), doctest::Contains("the output of exp"), AutogradError);
}

TEST_CASE("in-place operations write the values torch's do, broadcast, and advance the version of every view") {
  Tensor a = tensor({{1, 2}, {3, 4}});
  const Tensor view = reshape(a, {4});  // shares a's storage
  a.add_(tensor({10, 20}), 0.5);        // a += 0.5 * row
  CHECK(a.to_vector() == std::vector<double>{6, 12, 8, 14});
  a.sub_(tensor({1, 2}, {2, 1}));  // a column broadcast
  CHECK(a.to_vector() == std::vector<double>{5, 11, 6, 12});
  a.mul_(2.0).div_(tensor({1, 2}));
  CHECK(a.to_vector() == std::vector<double>{10, 11, 12, 12});
  a.masked_fill_(tensor({0, 1}, {2}, DType::Bool), -1.0);
  CHECK(a.to_vector() == std::vector<double>{10, -1, 12, -1});
  CHECK(view.to_vector() == a.to_vector());
  CHECK(view.version() == 5);
  a.zero_();
  CHECK(a.to_vector() == std::vector<double>{0, 0, 0, 0});
  a.add_(a + 1.0).add_(a);  // the other operand may be the tensor itself
  CHECK(a.to_vector() == std::vector<double>{2, 2, 2, 2});
  Tensor ids = zeros({3}).to(DType::Int64);
  ids.fill_(2.7);  // converted to the dtype, as torch
  CHECK(ids.to_vector() == std::vector<double>{2, 2, 2});
  CHECK_THROWS_WITH_AS(ids.add_(1.0),
                       "add_: arithmetic in place needs a Float64 tensor, this one is Int64 of shape [3]", ValueError);
  CHECK_THROWS_WITH_AS(a.add_(ones({3})), "add_: the other tensor's shape [3] does not broadcast to [2,2]", ShapeError);
}

// litgrad has no views: x.select(0, 1) -= y would change a copy, so on a temporary it does not compile.
template <class T, class = void>
struct compound_assignable : std::false_type {};
template <class T>
struct compound_assignable<T, std::void_t<decltype(std::declval<T>() -= std::declval<const Tensor&>())>>
    : std::true_type {};
static_assert(compound_assignable<Tensor&>::value && !compound_assignable<Tensor>::value);

TEST_CASE(
    "compound assignment is the in-place methods: the same bits, the same refusals, and torch's hand-written step") {
  const Tensor start = tensor({{0.3, -1.7}, {2.9, 0.1}}), other = tensor({1.1, -0.3});
  const auto both = [&](auto with_operator, auto with_method) {
    Tensor a = start.clone(), b = start.clone();
    with_operator(a), with_method(b);
    CHECK(a.to_vector() == b.to_vector());
    CHECK(a.version() == b.version());
  };
  both([&](Tensor& t) { t += other; }, [&](Tensor& t) { t.add_(other); });
  both([&](Tensor& t) { t -= other; }, [&](Tensor& t) { t.sub_(other); });
  both([&](Tensor& t) { t *= other; }, [&](Tensor& t) { t.mul_(other); });
  both([&](Tensor& t) { t /= other; }, [&](Tensor& t) { t.div_(other); });
  both([&](Tensor& t) { t += 0.7; }, [&](Tensor& t) { t.add_(0.7); });
  both([&](Tensor& t) { t -= 0.7; }, [&](Tensor& t) { t.sub_(full({2, 2}, 0.7)); });
  both([&](Tensor& t) { t *= 0.7; }, [&](Tensor& t) { t.mul_(0.7); });
  both([&](Tensor& t) { t /= 0.7; }, [&](Tensor& t) { t.div_(0.7); });
  // A leaf that requires grad refuses it while gradients are recorded, naming sub_.
  Tensor w = tensor({1.0, 2.0}).requires_grad_();
  CHECK_THROWS_WITH_AS(w -= other, doctest::Contains("sub_: this tensor of shape [2] is a leaf that requires grad"),
                       AutogradError);
  // Under NoGradGuard, w -= lr * w.grad() is optim::SGD's step, bit for bit.
  Tensor v = tensor({1.0, 2.0}).requires_grad_(), u = tensor({1.0, 2.0}).requires_grad_();
  optim::SGD sgd({u}, {0.1});
  for (int step = 0; step < 3; ++step) {
    sum(exp(v * other)).backward();
    sum(exp(u * other)).backward();
    {
      NoGradGuard no_grad;
      v -= 0.1 * v.grad();
    }
    sgd.step();
    v.zero_grad(), sgd.zero_grad();
    CHECK(v.to_vector() == u.to_vector());
  }
}

TEST_CASE(
    "in place is refused on a tensor that requires grad while gradients are recorded, and allowed under NoGradGuard") {
  Tensor w = ones({2}).requires_grad_();
  CHECK_THROWS_WITH_AS(w.mul_(2.0), doctest::Contains("mul_: this tensor of shape [2] is a leaf that requires grad"),
                       AutogradError);
  const Tensor h = w * 3.0;
  Tensor hv = h;
  CHECK_THROWS_WITH_AS(hv.add_(1.0), doctest::Contains("add_: this tensor of shape [2] was made by mul"),
                       AutogradError);
  {
    NoGradGuard no_grad;
    w.mul_(2.0);
  }
  CHECK(w.to_vector() == std::vector<double>{2, 2});
}

TEST_CASE(
    "an optimiser's step between a forward and its backward is refused, as torch refuses it: SGD, Adam, AdamW, "
    "RMSprop") {
  for (const std::string kind : {"SGD", "Adam", "AdamW", "RMSprop"}) {
    CAPTURE(kind);
    Tensor w = tensor({1.0, 2.0}).requires_grad_();
    std::unique_ptr<optim::Optimizer> opt;
    if (kind == "SGD") opt = std::make_unique<optim::SGD>(std::vector<Tensor>{w}, optim::SGDOptions{0.1});
    if (kind == "Adam") opt = std::make_unique<optim::Adam>(std::vector<Tensor>{w}, optim::AdamOptions{0.1});
    if (kind == "AdamW") opt = std::make_unique<optim::AdamW>(std::vector<Tensor>{w}, optim::AdamWOptions{0.1});
    if (kind == "RMSprop") opt = std::make_unique<optim::RMSprop>(std::vector<Tensor>{w});
    sum(w * w).backward();
    const Tensor later = sum(w * w * 3.0);  // saves w at its present version
    opt->step();                            // writes w in place
    CHECK(w.version() == 1);
    CHECK_THROWS_WITH_AS(later.backward(),
                         doctest::Contains("of mul (shape [2]), which its gradient needs, was changed in place"),
                         AutogradError);
  }
}

TEST_CASE("clone copies into storage of its own, and the gradient passes through it unchanged") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor c = x.clone();
  CHECK(c.grad_fn() == "clone");
  sum(c * c).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{2.0, 4.0});
  {
    NoGradGuard no_grad;
    Tensor d = x.detach().clone();
    d.fill_(7.0);
  }
  CHECK(x.to_vector() == std::vector<double>{1.0, 2.0});
}

// ---------------------------------------------------------------------------------------------
// autograd::grad and higher-order gradients

TEST_CASE("autograd::grad returns the gradients backward() adds to grad(), bit for bit, and touches no grad()") {
  Generator gen(1);
  Tensor a = randn({3, 4}, gen).requires_grad_(), b = randn({4}, gen).requires_grad_();
  auto loss = [&] { return sum(tanh(matmul(a, b)) * arange(3.0, 6.0)); };
  const auto grads = autograd::grad({loss()}, {a, b});
  CHECK_FALSE(a.grad().defined());
  CHECK_FALSE(b.grad().defined());
  loss().backward();
  CHECK(grads[0].to_vector() == a.grad().to_vector());
  CHECK(grads[1].to_vector() == b.grad().to_vector());
}

TEST_CASE("autograd::grad with respect to a tensor made by an operation gives the gradient that reaches it") {
  Tensor x = tensor({1.0, -2.0}).requires_grad_();
  const Tensor h = x * 3.0;  // dL/dh = 2h for L = sum(h²)
  const Tensor L = sum(h * h);
  const auto g = autograd::grad({L}, {h, x});
  CHECK(g[0].to_vector() == std::vector<double>{6.0, -12.0});
  CHECK(g[1].to_vector() == std::vector<double>{18.0, -36.0});
}

TEST_CASE("autograd::grad with several outputs adds their vector-Jacobian products, v given per output") {
  Tensor x = tensor({1.0, 2.0, 3.0}).requires_grad_();
  const Tensor y1 = x * x, y2 = sum(x);
  const auto g = autograd::grad({y1, y2}, {x}, {tensor({1.0, 0.0, -1.0}), scalar_tensor(10.0)});
  CHECK(g[0].to_vector() == std::vector<double>{12.0, 10.0, 4.0});  // 2x v + 10
}

TEST_CASE("an input the outputs do not use is an error, unless allow_unused, which gives an undefined gradient") {
  Tensor x = tensor({1.0}).requires_grad_(), unused = tensor({2.0}).requires_grad_();
  const Tensor y = sum(x * 2.0);
  CHECK_THROWS_WITH_AS(autograd::grad({y}, {x, unused}, {}, true),
                       "grad: input 1 of shape [1] was not used to compute the outputs (pass allow_unused = true to "
                       "get an undefined gradient for it)",
                       AutogradError);
  const auto g = autograd::grad({y}, {x, unused}, {}, std::nullopt, false, /*allow_unused=*/true);
  CHECK(g[0].item() == 2.0);
  CHECK_FALSE(g[1].defined());
}

TEST_CASE(
    "a Hessian-vector product through create_graph equals its closed form: 6x v for sum(x³), A v for a quadratic") {
  Generator gen(2);
  const Tensor v = randn({5}, gen);
  // f(x) = sum(x³): gradient 3x², Hessian diag(6x).
  Tensor x = randn({5}, gen).requires_grad_();
  const Tensor g = autograd::grad({sum(x * x * x)}, {x}, {}, std::nullopt, /*create_graph=*/true)[0];
  CHECK(g.requires_grad());
  const Tensor hv = autograd::grad({sum(g * v)}, {x})[0];
  CHECK(largest_gap(hv, 6.0 * x.detach() * v) <= 1e-15 * max(abs(6.0 * x.detach() * v)).item() * 4);
  // f(z) = ½ zᵀ A z + bᵀ z with A symmetric: H = A, so H v = A v, whatever z.
  const Tensor m = randn({5, 5}, gen), A = m + transpose(m, 0, 1), b = randn({5}, gen);
  Tensor z = randn({5}, gen).requires_grad_();
  const Tensor f = 0.5 * sum(z * matmul(A, z)) + sum(b * z);
  const Tensor gz = autograd::grad({f}, {z}, {}, std::nullopt, true)[0];
  const Tensor av = autograd::grad({sum(gz * v)}, {z})[0];
  // Each entry is a sum of 5 products, formed twice (A z's gradient and A's transpose): a few
  // units of rounding of the largest term, bounded by 2 · 5 u · max|A| max|v| · 5.
  const double bound = 2 * 5 * 0x1p-53 * max(abs(A)).item() * max(abs(v)).item() * 5;
  CHECK(largest_gap(av, matmul(A, v)) <= bound);
}

TEST_CASE("backward(create_graph) leaves gradients with a history, whose own gradient is the second derivative") {
  Tensor x = tensor({0.3, -0.7}).requires_grad_();
  sum(sin(x)).backward(Tensor(), std::nullopt, /*create_graph=*/true);  // x.grad = cos x, with a history
  const Tensor first = x.grad();
  CHECK(first.grad_fn() != "");
  const Tensor second = autograd::grad({sum(first)}, {x})[0];  // d(cos x)/dx = -sin x
  CHECK(largest_gap(second, -sin(x.detach())) <= 2e-16);
}

TEST_CASE(
    "a Hessian-vector product through a tanh network and cross-entropy agrees with central differences of its "
    "gradient") {
  // H v ≈ (∇f(x + h v) - ∇f(x - h v)) / 2h, whose error is h² times a third derivative
  // (h = 1e-4: about 1e-8 here) plus rounding of the gradient over 2h (1e-16 / 1e-4 = 1e-12).
  Generator gen(3);
  nn::Linear l1(4, 6, true, gen), l2(6, 3, true, gen);
  const Tensor inputs = randn({5, 4}, gen), labels = tensor({0, 2, 1, 1, 0}, {5}, DType::Int64);
  auto loss = [&](const Tensor& w) {
    return cross_entropy(nn::linear(tanh(nn::linear(inputs, w, l1.bias)), l2.weight, l2.bias), labels);
  };
  Tensor w = l1.weight.detach().requires_grad_();
  const Tensor v = randn(w.shape(), gen);
  const Tensor g = autograd::grad({loss(w)}, {w}, {}, std::nullopt, true)[0];
  const Tensor hv = autograd::grad({sum(g * v)}, {w})[0];
  const double h = 1e-4;
  auto gradient_at = [&](const Tensor& at) {
    Tensor p = at.detach().requires_grad_();
    return autograd::grad({loss(p)}, {p})[0];
  };
  const Tensor numerical = (gradient_at(w.detach() + h * v) - gradient_at(w.detach() - h * v)) / (2 * h);
  CHECK(largest_gap(hv, numerical) <= 1e-7 * max(abs(numerical)).item() + 1e-10);
}

TEST_CASE("an operation whose backward cannot be recorded is named when create_graph meets it") {
  Tensor x = tensor({0.5}).requires_grad_();
  CHECK_THROWS_WITH_AS(autograd::grad({sum(gelu(x))}, {x}, {}, std::nullopt, /*create_graph=*/true),
                       doctest::Contains("backward with create_graph: the gradient of gelu is computed by a kernel "
                                         "that records no graph"),
                       AutogradError);
}

// ---------------------------------------------------------------------------------------------
// Hooks and retain_grad

TEST_CASE("a hook sees a tensor's whole gradient once per backward and may replace it, and remove() takes it off") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  const Tensor h = x * 2.0;
  std::vector<std::vector<double>> seen;
  Tensor hh = h;
  RemovableHandle handle = hh.register_hook([&](const Tensor& g) {
    seen.push_back(g.to_vector());
    return g * 10.0;  // the gradient that flows on is replaced
  });
  const Tensor y = sum(h * h) + sum(h);  // two uses of h: the hook sees the sum of both
  y.backward(Tensor(), true);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<double>{5.0, 9.0});                   // 2h + 1
  CHECK(x.grad().to_vector() == std::vector<double>{100.0, 180.0});  // 10 (2h + 1) · 2
  handle.remove();
  x.zero_grad();
  y.backward();
  CHECK(seen.size() == 1);
  CHECK(x.grad().to_vector() == std::vector<double>{10.0, 18.0});
}

TEST_CASE("a hook on a leaf sees its gradient before it is added to grad()") {
  Tensor w = tensor({3.0}).requires_grad_();
  w.register_hook([](const Tensor& g) { return g * 0.0; });  // e.g. freezing a weight
  sum(w * w).backward();
  CHECK(w.grad().item() == 0.0);
}

TEST_CASE("a hook that returns nothing only looks: the gradient flows on unchanged, as a torch hook returning None") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor h = x * 3.0;
  std::vector<double> seen;
  RemovableHandle handle = h.register_hook([&](const Tensor& g) { seen = g.to_vector(); });
  sum(h * h).backward();
  CHECK(seen == std::vector<double>{6.0, 12.0});                   // 2h
  CHECK(x.grad().to_vector() == std::vector<double>{18.0, 36.0});  // 2h · 3, unchanged by the hook
  handle.remove();
}

TEST_CASE("a backward() started inside a running backward pass is refused, and leaves the graph as it was") {
  // A pass marks the tensors it walks and points into the graph; a second pass inside it, here
  // from a hook, sharing a's step with it, would overwrite those marks (the outer pass then
  // skipped a and x: x's gradient silently short of 6x) and free what it points at.
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  const Tensor a = x * x;
  Tensor m = a * 3.0;
  const Tensor z = sum(a * 5.0);
  RemovableHandle handle = m.register_hook([&](const Tensor& g) {
    z.backward();
    return g;
  });
  CHECK_THROWS_WITH_AS(sum(m).backward(), doctest::Contains("backward: called while a backward pass is running"),
                       AutogradError);
  CHECK_FALSE(x.grad().defined());  // nothing reached x
  handle.remove();
  sum(m).backward(Tensor(), true);  // a's step, which z's graph shares, kept for z
  z.backward();
  CHECK(x.grad().to_vector() == std::vector<double>{16.0, 32.0});  // 6x + 10x: both graphs whole
  Tensor w = tensor({1.0}).requires_grad_();
  Tensor v = w * 2.0;
  v.register_hook([&](const Tensor& g) {
    EnableGradGuard record;  // the pass records nothing, so the hook turns recording on
    autograd::grad({sum(w * w)}, {w});
    return g;
  });
  CHECK_THROWS_WITH_AS(sum(v).backward(), doctest::Contains("grad: called while a backward pass is running"),
                       AutogradError);
}

TEST_CASE("retain_grad keeps the gradient of a tensor made by an operation, and without it grad() says how to ask") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor h = x * 3.0;
  h.retain_grad();
  const Tensor other = x * 5.0;
  sum(h * h + other).backward();
  CHECK(h.retains_grad());
  CHECK(h.grad().to_vector() == std::vector<double>{6.0, 12.0});
  CHECK_THROWS_WITH_AS(other.grad(), doctest::Contains("Call retain_grad() on it before backward()"), AutogradError);
}

// ---------------------------------------------------------------------------------------------
// Custom Functions

namespace {

// y = x³ with its gradient by hand, as the Function's documentation shows.
struct Cube {
  static constexpr const char* name = "cube";
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x * x;
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const Tensor& g) {
    const Tensor x = ctx->saved_tensors()[0];
    return {g * 3.0 * x * x};
  }
};

// A scaled sum a x + y with a number among the arguments, and a gradient only where needed.
struct ScaledSum {
  static constexpr const char* name = "scaled_sum";
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x, double a, const Tensor& y) {
    ctx->saved_data["a"] = a;
    return x * a + y;
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const Tensor& g) {
    return {ctx->needs_input_grad(0) ? g * ctx->saved_data["a"] : Tensor(), ctx->needs_input_grad(1) ? g : Tensor()};
  }
};

// A Function whose backward returns a gradient of the wrong shape.
struct WrongShape {
  static constexpr const char* name = "wrong_shape";
  static Tensor forward(autograd::AutogradContext*, const Tensor& x) { return x * 1.0; }
  static std::vector<Tensor> backward(autograd::AutogradContext*, const Tensor&) { return {ones({3})}; }
};

}  // namespace

TEST_CASE("a custom Function is one recorded operation with the backward it wrote, gradient-checked") {
  Generator gen(4);
  Tensor x = randn({3}, gen).requires_grad_();
  const Tensor y = autograd::Function<Cube>::apply(x);
  CHECK(y.grad_fn() == "cube");
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return autograd::Function<Cube>::apply(in[0]); }, {x}));
  Tensor a = randn({2, 2}, gen).requires_grad_(), b = randn({2, 2}, gen).requires_grad_();
  CHECK(gradcheck([](const std::vector<Tensor>& in) { return autograd::Function<ScaledSum>::apply(in[0], 2.5, in[1]); },
                  {a, b}));
}

namespace named_by_type {
// A Function with no name of its own: it is recorded under its type's name, as torch's.
struct Square {
  static Tensor forward(autograd::AutogradContext* ctx, const Tensor& x) {
    ctx->save_for_backward({x});
    return x * x;
  }
  static std::vector<Tensor> backward(autograd::AutogradContext* ctx, const Tensor& g) {
    return {g * 2.0 * ctx->saved_tensors()[0]};
  }
};
template <int N>
struct Times : Square {};
}  // namespace named_by_type

TEST_CASE("a custom Function without a name is recorded under its type's name, without namespaces") {
  Tensor x = tensor({1.0, -2.0}).requires_grad_();
  const Tensor y = autograd::Function<named_by_type::Square>::apply(x);
  CHECK(y.grad_fn() == "Square");
  sum(y).backward();
  CHECK(x.grad().to_vector() == std::vector<double>{2.0, -4.0});
  CHECK(autograd::Function<named_by_type::Times<3>>::apply(x).grad_fn() == "Times<3>");
}

TEST_CASE("a custom Function's backward written with operations can be differentiated again") {
  Tensor x = tensor({2.0}).requires_grad_();
  const Tensor g = autograd::grad({autograd::Function<Cube>::apply(x)}, {x}, {}, std::nullopt, true)[0];  // 3x²
  const Tensor second = autograd::grad({g}, {x})[0];                                                      // 6x
  CHECK(g.item() == 12.0);
  CHECK(second.item() == 12.0);
}

TEST_CASE("a custom Function refuses a saved tensor changed in place, and a gradient of the wrong shape") {
  Tensor x = tensor({1.0, 2.0}).requires_grad_();
  Tensor y = autograd::Function<Cube>::apply(x);
  {
    NoGradGuard no_grad;
    x.add_(1.0);
  }
  CHECK_THROWS_WITH_AS(sum(y).backward(), doctest::Contains("saved tensor 0 of cube (shape [2]) was changed in place"),
                       AutogradError);
  Tensor z = tensor({1.0, 2.0}).requires_grad_();
  CHECK_THROWS_WITH_AS(sum(autograd::Function<WrongShape>::apply(z)).backward(),
                       "wrong_shape: backward returned a gradient of shape [3] for argument 0 of shape [2]",
                       AutogradError);
}

// The library's own operations are not checked as a Function's are, each time they run; the
// backward pass checks every gradient's shape before adding it to an input's, so that a bug in
// an operation is an error naming it, never a sum into the wrong elements or past the end.
TEST_CASE("a library operation whose backward gives a gradient of the wrong shape is an error naming it") {
  static constexpr Op broken{"broken", Twice::no, "a test's own"};  // an operation the table does not list
  Tensor x = tensor({1.0, 2.0, 3.0, 4.0}).requires_grad_();
  for (const Shape& wrong : {Shape{2, 2}, Shape{3}, Shape{8}}) {
    const Tensor y = detail::record(broken, x.detach(), {x},
                                    [wrong](const Tensor&) -> std::vector<Tensor> { return {ones(wrong)}; });
    CHECK_THROWS_WITH_AS(sum(y).backward(),
                         ("backward: the gradient broken gave its input 0 has shape " + to_string(wrong) +
                          ", and the input has shape [4] (a bug in litgrad's broken; please report it)")
                             .c_str(),
                         AutogradError);
    CHECK_FALSE(x.grad().defined());
  }
}
