// Chapter 2 · Derivatives, by hand and by the graph
// =================================================
//
// Training a model means nudging its numbers downhill, and for that we need the slope
// of the loss with respect to every one of them: its derivative. This chapter computes
// derivatives three ways. First from the definition, by trying a small step and
// measuring the change, which is easy, slow and, as we will measure, good to about
// eight digits, or eleven with more care. Then exactly, by an *autograd* written here
// in a few dozen lines: every number remembers how it was made, and one pass backwards
// through that record gives every derivative at once. Finally with litgrad, which is
// the same idea for tensors, and whose answers we check against both.

// %% about: The derivative estimated from small steps, whose error falls with the step
// until rounding takes over; then an autograd of a few dozen lines, checked against the
// estimates and against litgrad.
// %% assumes: 1

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

// %% 1 · The derivative from small steps
//
// The derivative of :math:`f` at :math:`x` is the limit of
// :math:`(f(x + h) - f(x)) / h` as :math:`h` goes to 0. Stopping at a small :math:`h`
// gives the *forward difference*. Taylor's theorem says how far off it is: :math:`f(x +
// h) = f(x) + h f'(x) + \tfrac{h^2}{2} f''(\xi)`, so the forward difference errs by
// :math:`\tfrac{h}{2} f''(\xi)`, an error proportional to :math:`h`. The *central
// difference* :math:`(f(x + h) - f(x - h)) / (2h)` cancels the :math:`h^2` terms and
// errs by :math:`\tfrac{h^2}{6} f'''(\xi)`, proportional to :math:`h^2`.
//
// We take :math:`f = \sin` at :math:`x = 1`, whose derivative :math:`\cos 1` we know.
// On log-log axes an error proportional to :math:`h^p` is a line of slope :math:`p`.
// Over :math:`h` from :math:`10^{-5}` to :math:`10^{-1}` the slope of the forward
// difference's error is 1 up to the next Taylor term, whose relative size is :math:`h
// |f'''| / (3 |f''|) \le 0.1 \cdot \cos 1 / (3 \sin 1) \approx 0.02`, and rounding
// (about :math:`\varepsilon |f| / h`, with :math:`\varepsilon` defined below) is some
// :math:`10^5` times smaller than the error even at :math:`h = 10^{-5}`; so the fitted
// slope is within 0.05 of 1.

double f(double x) { return std::sin(x); }
const double kX = 1.0, kTrue = std::cos(1.0);

double forward_difference(double h) { return (f(kX + h) - f(kX)) / h; }
double central_difference(double h) { return (f(kX + h) - f(kX - h)) / (2 * h); }

// The least-squares slope of log10(error) against log10(h), for h = 10^-k, k from low
// to high in quarter decades.
double fitted_slope(const std::function<double(double)>& estimate, double low,
                    double high) {
  std::vector<double> xs, ys;
  for (double k = low; k <= high + 1e-9; k += 0.25) {
    const double h = std::pow(10.0, -k);
    xs.push_back(std::log10(h));
    ys.push_back(std::log10(std::fabs(estimate(h) - kTrue)));
  }
  const double n = static_cast<double>(xs.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) mx += xs[i] / n, my += ys[i] / n;
  double sxy = 0, sxx = 0;
  for (std::size_t i = 0; i < xs.size(); ++i)
    sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  return sxy / sxx;
}

TEST_CASE(
    "the forward difference's error falls like h: its log-log slope is within 0.05 "
    "of 1") {
  const double slope = fitted_slope(forward_difference, 1, 5);
  book::measured("slope", slope,
                 "the fitted slope of log error against log h, for h from 1e-5 to 1e-1",
                 book::within(0.05, 1.0));
  CHECK(std::fabs(slope - 1.0) < 0.05);
}

// %%
// For the central difference the next Taylor term is smaller still, :math:`O(h^2)`
// relative, and rounding is still far below the error down to :math:`h = 10^{-4}`
// (:math:`10^{-12}` against :math:`10^{-9}`): the slope over :math:`h` from
// :math:`10^{-4}` to :math:`10^{-1}` is within 0.05 of 2.

TEST_CASE(
    "the central difference's error falls like h squared: its log-log slope is "
    "within 0.05 of 2") {
  const double slope = fitted_slope(central_difference, 1, 4);
  book::measured("slope", slope,
                 "the fitted slope of log error against log h, for h from 1e-4 to 1e-1",
                 book::within(0.05, 2.0));
  CHECK(std::fabs(slope - 2.0) < 0.05);
}

// %%
// Smaller :math:`h` is not always better. :math:`f(x + h)` and :math:`f(x - h)` are
// each rounded, by up to :math:`\varepsilon |f| / 2` with
// :math:`\varepsilon = 2^{-52} = 2u` the machine epsilon (the gap between 1 and the
// next double), and their difference is then divided by :math:`2h`: a rounding error of
// about :math:`\varepsilon |f| / (2h)`, growing as :math:`h` shrinks. The total
// :math:`\tfrac{h^2}{6} |f'''| + \tfrac{\varepsilon |f|}{2h}` is smallest at :math:`h^*
// = (3 \varepsilon |f| / (2|f'''|))^{1/3}`, here :math:`8 \cdot 10^{-6}`, a little
// above :math:`\varepsilon^{1/3}`, where it is about :math:`2 \cdot 10^{-11}`: eleven
// digits. That total bounds the error; rounding can also be lucky and do better, so
// only one side of the search is predictable. Above :math:`10 h^*` the truncation error
// alone, a hundred times its value at :math:`h^*`, exceeds what the grid point nearest
// :math:`h^*` is sure to reach: at :math:`h = 10^{-5}` the bound, with each
// :math:`\sin` allowed a full unit in the last place, is below
// :math:`3 \cdot 10^{-11}`. So the best :math:`h` on a grid of quarter decades is below
// :math:`10 h^*`, and its error below :math:`3 \cdot 10^{-11}`.
//
// .. figure:: difference_errors
//
//    The error of each estimate of cos 1 against the step h, both axes logarithmic.
//    Each falls along its slope until rounding takes over and the error turns up again:
//    the V.

// %% fold: drawing the two errors against h
void draw_errors() {
  std::vector<double> hs, forward, central;
  for (double k = 0; k <= 14; k += 0.25) {
    const double h = std::pow(10.0, -k);
    hs.push_back(h);
    forward.push_back(std::max(std::fabs(forward_difference(h) - kTrue), 1e-17));
    central.push_back(std::max(std::fabs(central_difference(h) - kTrue), 1e-17));
  }
  book::figure("difference_errors",
               book::line_plot("step h", "|estimate - cos 1|",
                               {book::series("forward difference", hs, forward),
                                book::series("central difference", hs, central)},
                               true)
                   .set("log_x", book::Json::boolean(true))
                   .set("log_x_base", 10));
}

// %%
// The test searches :math:`h = 10^{-k}` for :math:`k` from 0 to 14.

TEST_CASE(
    "below some h rounding takes over: the central difference's best step is below "
    "10 h*, h* = (3ε|f|/(2|f'''|))^(1/3), with an error below 3e-11") {
  const double eps = std::ldexp(1.0, -52);
  const double optimal = std::cbrt(3 * eps * std::sin(kX) / (2 * std::cos(kX)));
  double best_h = 1, best_error = INFINITY;
  for (double k = 0; k <= 14; k += 0.25) {
    const double h = std::pow(10.0, -k),
                 error = std::fabs(central_difference(h) - kTrue);
    if (error < best_error) best_error = error, best_h = h;
  }
  book::measured("h*", optimal, "the step the error bound says is best");
  book::measured("best h / h*", best_h / optimal,
                 "the step with the smallest error on the grid, as a multiple of h*",
                 book::below(10));
  book::measured("its error", best_error, "how far from cos 1 the best estimate is",
                 book::below(3e-11));
  CHECK(best_h / optimal < 10);
  CHECK(best_error < 3e-11);
  draw_errors();
}

// %%
// The forward difference meets rounding sooner. Its error :math:`\tfrac{h}{2} |f''| +
// \varepsilon |f| / h` is smallest at :math:`h^* = \sqrt{2 \varepsilon |f| / |f''|} =
// \sqrt{2\varepsilon}`, here (:math:`f` and :math:`f''` are both :math:`\pm\sin 1`)
// about :math:`2 \cdot 10^{-8}`, where the bound is :math:`\sqrt{2 \varepsilon} |f''|`,
// about :math:`2 \cdot 10^{-8}`: eight digits. By the same argument as above, the best
// step on the grid is below :math:`10 h^*`, and its error is below the bound at the
// grid point nearest :math:`h^*`, :math:`h = 10^{-7.75}`, with each :math:`\sin`
// allowed a full unit in the last place: :math:`3 \cdot 10^{-8}`.

TEST_CASE(
    "the forward difference's best step is below 10 sqrt(2ε), with an error below "
    "3e-8: about eight digits") {
  const double eps = std::ldexp(1.0, -52), optimal = std::sqrt(2 * eps);
  double best_h = 1, best_error = INFINITY;
  for (double k = 0; k <= 14; k += 0.25) {
    const double h = std::pow(10.0, -k),
                 error = std::fabs(forward_difference(h) - kTrue);
    if (error < best_error) best_error = error, best_h = h;
  }
  book::measured("best h / h*", best_h / optimal,
                 "the step with the smallest error on the grid, as a multiple of "
                 "sqrt(2ε)",
                 book::below(10));
  book::measured("its error", best_error, "how far from cos 1 the best estimate is",
                 book::below(3e-8));
  CHECK(best_h / optimal < 10);
  CHECK(best_error < 3e-8);
}

// %% 2 · An autograd in forty lines
//
// Finite differences cost two evaluations per input and give eight to eleven digits.
// There is a better way. Every number a computation makes comes from an operation on
// earlier numbers, and each operation knows its own derivatives: :math:`c = a b` has
// :math:`\partial c / \partial a = b`. If every number remembers the numbers it was
// made from and how to pass a gradient back to them, one walk from the result back to
// the inputs applies the chain rule everywhere at once. It gives every derivative with
// no truncation error at all, only the rounding of the arithmetic itself, in one pass
// however many inputs there are.
//
// Here is such a number, a ``Value``: its data, its gradient (the derivative of the
// final result with respect to it, filled in by the backward walk), the values it was
// made from, and a function that pushes its gradient to them.

struct Value;
using V = std::shared_ptr<Value>;  // values are shared: one value may feed many others

struct Value {
  double data = 0, grad = 0;
  std::vector<V> parents;          // the values this one was made from
  std::function<void()> backward;  // adds this value's share into its parents' grads
  std::string op;                  // how it was made, for the figure
};

V leaf(double x) {
  return std::make_shared<Value>(Value{x, 0, {}, [] {}, ""});
}

// %%
// The one line that matters is how a gradient is pushed: *added* to what the parent
// already has. A value used twice, like ``a`` in ``a * b + a``, gets a gradient from
// each use, and the chain rule says its total gradient is their sum. (The switch below
// exists only to show, in section 3, what goes wrong without it.)

bool overwrite_gradients = false;  // false: +=, as the chain rule wants

void push(Value& parent, double amount) {
  if (overwrite_gradients)
    parent.grad = amount;  // the bug section 3 measures
  else
    parent.grad += amount;
}

// %%
// Each operation computes its result and records, as a closure, how to push the
// result's gradient back: for a sum, unchanged to both parents; for a product, times
// the other factor; for tanh, times :math:`1 - \tanh^2`. (The closure refers to its own
// value by a plain pointer, so that the value does not own itself.)

V make(double data, std::vector<V> parents, std::string op) {
  return std::make_shared<Value>(
      Value{data, 0, std::move(parents), [] {}, std::move(op)});
}

V operator+(const V& a, const V& b) {
  V out = make(a->data + b->data, {a, b}, "+");
  Value* o = out.get();
  out->backward = [a, b, o] { push(*a, o->grad), push(*b, o->grad); };
  return out;
}

V operator*(const V& a, const V& b) {
  V out = make(a->data * b->data, {a, b}, "*");
  Value* o = out.get();
  out->backward = [a, b, o] {
    push(*a, o->grad * b->data), push(*b, o->grad * a->data);
  };
  return out;
}

V tanh(const V& a) {
  V out = make(std::tanh(a->data), {a}, "tanh");
  Value* o = out.get();
  out->backward = [a, o] { push(*a, o->grad * (1 - o->data * o->data)); };
  return out;
}

// %%
// The backward walk visits every value after all the values made from it, so that each
// value's gradient is complete before it is pushed on: that is the reverse of a
// *topological order*, which a depth-first search gives. The result's own gradient is
// 1.

void topological(const V& v, std::set<Value*>& seen, std::vector<V>& order) {
  if (!seen.insert(v.get()).second) return;
  for (const V& p : v->parents) topological(p, seen, order);
  order.push_back(v);  // after everything it was made from
}

void backward(const V& result) {
  std::set<Value*> seen;
  std::vector<V> order;
  topological(result, seen, order);
  result->grad = 1;
  for (auto it = order.rbegin(); it != order.rend(); ++it) (*it)->backward();
}

// %%
// Our test function uses ``a`` twice: :math:`g(a, b, c) = \tanh(a b + c) \cdot a`.

const double kA = 0.7, kB = -1.3, kC = 0.4;

struct Graph {
  V a, b, c, product, shifted, squashed, result;
};

Graph build(double a, double b, double c) {
  Graph g{leaf(a), leaf(b), leaf(c), nullptr, nullptr, nullptr, nullptr};
  g.product = g.a * g.b;
  g.shifted = g.product + g.c;
  g.squashed = tanh(g.shifted);
  g.result = g.squashed * g.a;
  return g;
}

double g_of(double a, double b, double c) { return std::tanh(a * b + c) * a; }

// %%
// Its gradients must agree with central differences to the accuracy section 1 derived
// for them. With :math:`h = 10^{-5}` the estimate of :math:`\partial g / \partial a`
// errs by at most :math:`h^2 |\partial^3 g / \partial a^3| / 6 + \varepsilon |g| / h`
// (each of the two evaluations allowed a unit in the last place), and likewise for
// :math:`b` and :math:`c`. The third derivatives we take from our autograd itself: a
// second difference of its gradient, :math:`(g_a(a + \delta) - 2 g_a(a) + g_a(a -
// \delta)) / \delta^2` with :math:`\delta = 10^{-3}`, is accurate to about
// :math:`\delta^2` relatively, and we allow 10% more. Each gradient must lie within its
// bound.
//
// .. figure:: value_graph
//
//    The graph of tanh(a b + c) · a: each value with its data and, after the backward
//    walk, its gradient. a feeds two operations and its gradient is the sum of both.

// %% fold: drawing the graph with its values and gradients
void draw_graph(const Graph& g) {
  const auto label = [](const std::string& name, const V& v) {
    char text[80];
    std::snprintf(text, sizeof text, "%s\ndata %.4f\ngrad %.4f", name.c_str(), v->data,
                  v->grad);
    return std::string(text);
  };
  const std::vector<book::GraphNode> nodes = {
      {label("a", g.a), 0},         {label("b", g.b), 0},
      {label("c", g.c), 1},         {label("a * b", g.product), 1},
      {label("+ c", g.shifted), 2}, {label("tanh", g.squashed), 3},
      {label("· a", g.result), 4}};
  book::figure(
      "value_graph",
      book::graph(nodes, {{0, 3}, {1, 3}, {3, 4}, {2, 4}, {4, 5}, {5, 6}, {0, 6}}));
}

// %%
// The test runs the backward walk and compares each gradient with its estimate.

TEST_CASE(
    "the hand-written autograd's gradients agree with central differences, each "
    "within its truncation and rounding bound") {
  const Graph g = build(kA, kB, kC);
  backward(g.result);
  const double h = 1e-5, delta = 1e-3, eps = std::ldexp(1.0, -52);
  const double x[3] = {kA, kB, kC};
  const auto gradient = [](const double* at, int i) {  // our autograd's dg/d(input i)
    const Graph graph = build(at[0], at[1], at[2]);
    backward(graph.result);
    return (i == 0 ? graph.a : i == 1 ? graph.b : graph.c)->grad;
  };
  const auto g_at = [](const double* at) { return g_of(at[0], at[1], at[2]); };
  double worst = 0;  // the largest gap as a fraction of its bound
  for (int i = 0; i < 3; ++i) {
    double up[3] = {x[0], x[1], x[2]}, down[3] = {x[0], x[1], x[2]};
    up[i] += h, down[i] -= h;
    const double estimate = (g_at(up) - g_at(down)) / (2 * h);
    up[i] = x[i] + delta, down[i] = x[i] - delta;
    const double third =
        (gradient(up, i) - 2 * gradient(x, i) + gradient(down, i)) / (delta * delta);
    const double bound =
        1.1 * h * h * std::fabs(third) / 6 + eps * std::fabs(g_at(x)) / h;
    worst = std::max(worst, std::fabs(gradient(x, i) - estimate) / bound);
    out() << "input " << i << ": third derivative " << third << ", gap "
          << std::fabs(gradient(x, i) - estimate) << ", bound " << bound << "\n";
  }
  out() << "gradients: a " << g.a->grad << ", b " << g.b->grad << ", c " << g.c->grad
        << "\n";
  book::measured("largest gap / bound", worst,
                 "the worst of the three gradients' gaps from central differences, "
                 "over its bound",
                 book::at_most(1.0));
  CHECK(worst <= 1.0);
  draw_graph(g);
}

// %%
// litgrad computes the same thing for tensors, with the same rule for each operation,
// and on one number per tensor it must give the very same gradients, bit for bit: each
// gradient is the same few multiplications in the same order, and the one sum, ``a``'s
// two shares, is a sum of two numbers, which rounds the same whichever comes first.

TEST_CASE(
    "litgrad's gradients of the same expression are the hand-written autograd's, "
    "bit for bit") {
  const Graph g = build(kA, kB, kC);
  backward(g.result);
  const Tensor a = scalar_tensor(kA).requires_grad_(),
               b = scalar_tensor(kB).requires_grad_(),
               c = scalar_tensor(kC).requires_grad_();
  const Tensor result = tanh(a * b + c) * a;
  result.backward();
  CHECK(result.item() == g.result->data);
  CHECK(a.grad().item() == g.a->grad);
  CHECK(b.grad().item() == g.b->grad);
  CHECK(c.grad().item() == g.c->grad);
}

// %% 3 · Why the gradient is added
//
// ``a`` receives two shares of gradient, one through the product :math:`a b` and one
// through the final multiplication by :math:`a`. Replace ``+=`` by ``=`` in ``push``
// and the second share to arrive overwrites the first: the gradient of ``a`` comes out
// as one share alone, wrong by the other. The test makes that change and measures it,
// and checks the gradient with ``+=`` against the two shares computed by hand, each a
// product of three rounded numbers below 1 (so each side is within a few :math:`u`, and
// we allow :math:`10^{-15}`).

TEST_CASE(
    "with = in place of +=, a value used twice gets a wrong gradient: one of its two "
    "shares") {
  const Graph right = build(kA, kB, kC);
  backward(right.result);
  overwrite_gradients = true;
  const Graph wrong = build(kA, kB, kC);
  backward(wrong.result);
  overwrite_gradients = false;
  const double through_tanh = (1 - std::pow(std::tanh(kA * kB + kC), 2)) * kA * kB;
  const double direct = std::tanh(kA * kB + kC);
  out() << "a's gradient: " << right.a->grad << " with +=, " << wrong.a->grad
        << " with =\n";
  book::measured("error of the overwritten gradient",
                 std::fabs(wrong.a->grad - right.a->grad),
                 "how far a's gradient is from the right one when shares overwrite",
                 book::above(0.1));
  CHECK(std::fabs(wrong.a->grad - right.a->grad) > 0.1);
  const bool one_share = std::fabs(wrong.a->grad - through_tanh) < 1e-15 ||
                         std::fabs(wrong.a->grad - direct) < 1e-15;
  CHECK(one_share);
  CHECK(std::fabs(right.a->grad - (through_tanh + direct)) < 1e-15);
}

// %% 4 · litgrad's graph
//
// litgrad records the same kind of graph, one node per operation on tensors. A backward
// pass frees what each node saved for it (the inputs its derivative needs), since a
// training loop would otherwise keep every step's graph alive: a second ``backward()``
// through the same graph is then an error, as in torch, unless the first was asked to
// keep the graph with ``retain_graph``. The graph itself lives as long as the tensors
// that hold it: we watch the number of live nodes return to where it started once they
// are gone (a graph that held itself in a cycle would never be freed).

TEST_CASE(
    "after backward a second backward is an error unless the graph was kept, and the "
    "graph is gone with its tensors") {
  const long before = live_graph_nodes();
  {
    const Tensor x = tensor({1, 2, 3}).requires_grad_();
    const Tensor loss = sum(tanh(x) * x);
    CHECK(live_graph_nodes() > before);
    loss.backward();
    CHECK_THROWS_AS(loss.backward(), AutogradError);
    const Tensor kept = sum(x * x);
    kept.backward({}, /*retain_graph=*/true);
    CHECK_NOTHROW(kept.backward());
  }
  book::measured("nodes left", static_cast<double>(live_graph_nodes() - before),
                 "recorded operations still alive once the tensors are gone",
                 book::exactly(0));
  CHECK(live_graph_nodes() == before);
}

// %%
// And, as in torch, gradients *accumulate*: ``backward()`` adds to whatever a leaf's
// gradient holds, for exactly the reason section 3 gave. Two backward passes give twice
// the gradient; a training loop therefore sets gradients to zero before each step.

TEST_CASE("gradients accumulate across backward calls until zeroed") {
  Tensor x = tensor({1, -2}).requires_grad_();
  const Tensor loss = sum(x * x);  // gradient 2x
  loss.backward({}, true);
  loss.backward();
  CHECK(x.grad().at({0}) == 4.0);  // 2x twice
  CHECK(x.grad().at({1}) == -8.0);
  x.zero_grad();
  sum(x * x).backward();
  CHECK(x.grad().at({0}) == 2.0);
}

// %%
// Section 2's check, gradients against central differences, is what
// :cpp:func:`litgrad::gradcheck` does for any litgrad function of tensors, element by
// element: with a step of :math:`10^{-6}` it passes when every gradient is within
// :math:`10^{-5} + 10^{-3}` times the estimate (torch's defaults, loose enough for the
// estimate's own error, which section 1 put near :math:`10^{-10}` for smooth
// functions). It also catches a wrong gradient: ``x * x.detach()`` has the value
// :math:`x^2`, but ``detach()`` hides the second factor from the graph, so only half
// the gradient comes through, :math:`x` instead of :math:`2x`, and gradcheck says so.

TEST_CASE(
    "gradcheck passes for the test expression and fails for a function whose gradient "
    "is wrong") {
  const auto g_tensor = [](const std::vector<Tensor>& in) {
    return tanh(in[0] * in[1] + in[2]) * in[0];
  };
  const std::vector<Tensor> inputs = {tensor({kA}).requires_grad_(),
                                      tensor({kB}).requires_grad_(),
                                      tensor({kC}).requires_grad_()};
  CHECK(gradcheck(g_tensor, inputs).ok);
  const auto half = [](const std::vector<Tensor>& in) {
    return in[0] * in[0].detach();
  };
  const Tensor x = tensor({1.5}).requires_grad_();
  half({x}).backward(ones({1}));
  CHECK(x.grad().item() == 1.5);  // x, not 2x = 3
  const GradcheckResult wrong = gradcheck(half, {tensor({1.5}).requires_grad_()});
  out() << wrong.message << "\n";
  CHECK_FALSE(wrong.ok);
}

// %% fold: the end of the file's namespace
}  // namespace
