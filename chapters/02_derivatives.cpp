// Chapter 2 · Derivatives, by hand and by the graph
// =================================================
//
// Training a model means nudging its numbers downhill, and for that we need the slope
// of the loss with respect to every one of them: its derivative. This chapter computes
// derivatives three ways. First from the definition, by trying a small step and
// measuring the change: easy, slow, and limited by rounding in a way we can predict
// exactly. Then exactly, by an *autograd* written here in a few dozen
// lines: every number remembers how it was made, and one pass backwards through that
// record gives every derivative at once, at a cost we count. Finally with litgrad,
// which is the same idea for tensors: a gradient has the shape of its input, a backward
// pass multiplies a vector by a Jacobian, and broadcasting's backward is a sum.

// %% about: The derivative estimated from small steps, whose error we predict term by
// term; an autograd of a few dozen lines checked against it, with its cost counted;
// and tensor gradients as vector–Jacobian products, broadcasting's backward a sum.
// %% assumes: 1

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::kU;  // u = 2^-53, double's unit roundoff (chapter 1)
using book::out;

namespace {

// %% 1 · The derivative from small steps
//
// The derivative of :math:`f` at :math:`x` is the limit of
// :math:`(f(x + h) - f(x)) / h` as :math:`h` goes to 0. Stopping at a small :math:`h`
// gives the *forward difference*. Taylor's theorem says how far off it is: :math:`f(x +
// h) = f(x) + h f'(x) + \tfrac{h^2}{2} f''(x) + \dots`, so the forward difference errs
// by about :math:`\tfrac{h}{2} f''`, an error proportional to :math:`h`. The *central
// difference* :math:`(f(x + h) - f(x - h)) / (2h)` cancels the :math:`h^2` terms and
// errs by :math:`\tfrac{h^2}{6} f'''` plus terms in :math:`h^4`: its *truncation
// error*, proportional to :math:`h^2`.
//
// Smaller :math:`h` is not always better. :math:`f(x + h)` and :math:`f(x - h)` are
// each rounded, and their difference, a small number made from two nearly equal ones,
// keeps those roundings whole; dividing by :math:`2h` magnifies them. With
// :math:`\varepsilon = 2u = 2^{-52}` and each :math:`f` rounded by about
// :math:`\varepsilon |f|`, the rounding error is about :math:`\varepsilon |f| / h`,
// growing as :math:`h` shrinks. The sum :math:`\tfrac{h^2}{6} |f'''| + \varepsilon |f|
// / h` is smallest near :math:`h^* = (3 \varepsilon |f| / |f'''|)^{1/3}`, a little
// above :math:`\varepsilon^{1/3} \approx 6 \cdot 10^{-6}`: plotted against :math:`h` on
// log-log axes the error is a V, its right arm the truncation's slope 2, its left arm
// rounding's slope :math:`-1`. (For the forward difference the same balance puts the
// best step near :math:`\sqrt{\varepsilon}` and the best error near
// :math:`\sqrt{\varepsilon}`, about eight digits.)
//
// One more rounding is easy to miss. :math:`x + h` is itself rounded, so the step
// actually taken is not :math:`h`: at :math:`x = 1` and :math:`h = 10^{-5}` it differs
// by up to a unit in the last place of 1, a relative error of about :math:`10^{-11}`
// in the step, and so in the estimate. The remedy is to divide by the step actually
// taken, ``up - down``, which is computed exactly (two doubles within a factor of two
// of each other subtract without rounding: Sterbenz's lemma).

// We take f = sin at x = 1, whose derivative cos 1 we know.
double f(double x) { return std::sin(x); }
const double kX = 1.0;

double forward_difference(double h) {
  const double up = kX + h;  // rounded: the step taken is up - kX, exactly
  return (f(up) - f(kX)) / (up - kX);
}

double central_difference(double h) {
  const double up = kX + h, down = kX - h;
  return (f(up) - f(down)) / (up - down);
}

// %%
// So we can predict the central difference's error, not only bound it. With :math:`h_+
// = \text{up} - x` and :math:`h_- = x - \text{down}` the steps taken, Taylor's theorem
// gives the estimate as :math:`f'(x) + \tfrac{f''}{2}(h_+ - h_-) +
// \tfrac{f'''}{6}(h_+^2 - h_+ h_- + h_-^2)` plus a remainder: for :math:`\sin`, whose
// derivatives are all at most 1 in size, at most :math:`h^4 / 120 + |h_+ - h_-| h^2 /
// 12`. Rounding adds the error of each :math:`\sin`, which glibc documents as at most
// one unit in the last place beyond the correctly rounded result, so at most
// :math:`1.5` units, :math:`3u |\sin|` (the glibc manual, *Known Maximum Errors in Math
// Functions*); the subtraction of the two sines is exact (Sterbenz again); the division
// rounds once, by :math:`u` relatively; and ``std::cos(1.0)``, our reference, is off by
// at most :math:`3u \cos 1`. The claim: at every step :math:`h = 10^{-k}` from :math:`k
// = 1/2` to 14, in quarter decades, the estimate minus :math:`\cos 1` minus the
// predicted truncation lies within that remainder and rounding. (From :math:`h =
// 10^{-1/2}` down, up and down, their difference and the two sines are each within a
// factor of two of each other, so Sterbenz's lemma keeps every subtraction exact; we
// start there.) On the right arm of the V that leaves only the :math:`h^4` term; on the
// left arm, only rounding.
//
// .. figure:: difference_errors
//
//    The error of each estimate of cos 1 against the step h, both axes logarithmic,
//    with the central difference's predicted truncation: each falls along its slope
//    until rounding takes over and the error turns up again, the V.

// %% fold: the central difference's predicted truncation and its allowance
struct Prediction {
  double truncation = 0;  // (f''/2)(h+ - h-) + (f'''/6)(h+² - h+ h- + h-²)
  double allowance = 0;   // the Taylor remainder and every rounding, at most
};

Prediction predict_central(double h) {
  const double up = kX + h, down = kX - h, hp = up - kX, hm = kX - down;
  const double f2 = -std::sin(kX), f3 = -std::cos(kX), step = up - down;
  const double widest = std::max(hp, hm);
  Prediction p;
  p.truncation = f2 / 2 * (hp - hm) + f3 / 6 * (hp * hp - hp * hm + hm * hm);
  const double remainder = std::pow(widest, 4) / 120 +
                           std::fabs(hp - hm) * widest * widest / 12;  // |f^(4,5)| <= 1
  const double sines = 3 * kU * (std::fabs(f(up)) + std::fabs(f(down))) / step;
  const double division = kU * std::fabs(central_difference(h));
  const double reference = 3 * kU * std::cos(kX);
  const double own = 10 * kU * std::fabs(p.truncation);  // the prediction's roundings
  p.allowance = remainder + sines + division + reference + own;
  return p;
}

// %% fold: drawing the two errors against h
void draw_errors() {
  std::vector<double> hs, forward, central, truncation, large;
  for (double k = 0; k <= 14; k += 0.25) {
    const double h = std::pow(10.0, -k);
    hs.push_back(h);
    if (k <= 7) large.push_back(h);
    forward.push_back(std::max(std::fabs(forward_difference(h) - std::cos(kX)), 1e-17));
    central.push_back(std::max(std::fabs(central_difference(h) - std::cos(kX)), 1e-17));
    if (k <= 7) truncation.push_back(h * h * std::cos(kX) / 6);
  }
  book::figure("difference_errors",
               book::line_plot("step h", "|estimate - cos 1|",
                               {book::series("forward difference", hs, forward),
                                book::series("central difference", hs, central),
                                book::series("h² cos(1) / 6", large, truncation)},
                               true)
                   .set("log_x", book::Json::boolean(true))
                   .set("log_x_base", 10));
}

// %%
// The test walks the grid and holds each step's estimate to its prediction.

TEST_CASE(
    "the central difference's error is the V its Taylor terms and roundings predict: "
    "at every step from 0.3 to 1e-14 it is the predicted truncation within the "
    "remainder and rounding allowed") {
  double worst = 0, best_h = 1, best_error = INFINITY;
  for (double k = 0.5; k <= 14; k += 0.25) {
    const double h = std::pow(10.0, -k);
    const double error = central_difference(h) - std::cos(kX);
    const Prediction p = predict_central(h);
    worst = std::max(worst, std::fabs(error - p.truncation) / p.allowance);
    if (std::fabs(error) < best_error) best_error = std::fabs(error), best_h = h;
  }
  book::measured(
      "h*", std::cbrt(3 * 2 * kU * std::sin(kX) / std::cos(kX)),
      "(3ε|f|/|f'''|)^(1/3), the step the balance of the two errors favours");
  book::measured("best h on the grid", best_h, "the step whose estimate erred least");
  book::measured("its error", best_error, "how far from cos 1 that estimate is");
  book::check("largest |error - truncation| / allowance", worst,
              "over the 55 steps, the worst gap from the prediction as a fraction of "
              "the remainder and rounding allowed",
              book::at_most(1.0));
  draw_errors();
}

// %% 2 · An autograd in forty lines
//
// Finite differences cost two evaluations per input, and even at their best step they
// keep only about two thirds of the digits (the balance of truncation and rounding
// predicts an error of order :math:`\varepsilon^{2/3}` near the best step; a single
// step can land luckier). There is a better way. Every number a computation makes
// comes from an operation on earlier numbers, and each operation knows its own
// derivatives: :math:`c = a b` has :math:`\partial c / \partial a = b`. If every number
// remembers the numbers it was made from and how to pass a gradient back to them, one
// walk from the result back to the inputs applies the chain rule everywhere at once. It
// gives every derivative with no truncation error at all, only the rounding of the
// arithmetic itself, in one pass however many inputs there are.
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
// exists only to show, in section 3, what goes wrong without it; the counters are for
// section 4, which counts the work.)

bool overwrite_gradients = false;  // false: +=, as the chain rule wants
long operations_made = 0, pushes_made = 0;

void push(Value& parent, double amount) {
  ++pushes_made;
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
  ++operations_made;
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
// 1. (The second switch, again for section 3, walks the wrong way.)

bool walk_forwards = false;  // false: from the result back, as the chain rule wants

void topological(const V& v, std::set<Value*>& seen, std::vector<V>& order) {
  if (!seen.insert(v.get()).second) return;
  for (const V& p : v->parents) topological(p, seen, order);
  order.push_back(v);  // after everything it was made from
}

void backward(const V& result) {
  std::set<Value*> seen;
  std::vector<V> order;
  topological(result, seen, order);
  if (walk_forwards) std::reverse(order.begin(), order.end());  // section 3's bug
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
// Its gradients must agree with central differences, and section 1 says how closely:
// the estimate is the derivative plus the truncation :math:`\tfrac{g'''}{6}(h_+^2 - h_+
// h_- + h_-^2)`, plus a remainder, plus rounding. The third derivatives we take from
// our autograd itself, a second difference of its gradient, :math:`(g_a(a + \delta) - 2
// g_a(a) + g_a(a - \delta)) / \delta^2` with :math:`\delta = 10^{-3}`. The rounding is
// now that of :math:`g` itself: four roundings in each evaluation (:math:`a b`,
// :math:`+ c`, :math:`\tanh`, documented within 2.5 units in the last place, and
// :math:`\cdot a`), each carried through the rest of :math:`g` by its derivative, twice
// over and divided by the step taken; then the division's, and the autograd's own few
// roundings. The fold below derives each term and bounds what the prediction leaves out
// (the :math:`g''` term, the error of the third derivative, the Taylor remainder), all
// below :math:`10^{-15}`. There is no safety factor: the claim holds the gap to the sum
// of what is derived.
//
// .. figure:: value_graph
//
//    The graph of tanh(a b + c) · a as the values recorded it, found by the same walk
//    from the result that backward() makes: each value with its data and, after the
//    backward walk, its gradient. The arrows are the forward computation; gradients
//    travel against them. a feeds two operations, and its gradient is the sum of the
//    two shares they send back: b times the product's gradient, and the tanh's value.

// %% fold: the allowance for autograd against central differences, term by term
// At a point (a, b, c) write s = ab + c, T = tanh(s), S = 1 - T², g = aT. To first
// order in u, and with glibc's tanh within 2.5 units in the last place (5u relatively):
//  * an evaluation of g rounds ab and s (changing s by at most u(|ab| + |s|), which
//    moves g by a S times that), tanh (5u|g|) and the final product (u|g|):
//    E = u (|a| S (|ab| + |s|) + 6 |g|);
//  * autograd's T has error eT = S u (|ab| + |s|) + 5u|T|; its q = a(1 - T²), pushed
//    to c, and to a and b through the product, is off by at most
//    |a| (2|T| eT + u(T² + 2S)); a's gradient T + qb adds eT, |b| times q's error and
//    two roundings, b's qa one.
// What the prediction leaves out, with |∂⁴g| <= 30 and |∂⁵g| <= 100 near the point for
// every input (tanh's fourth and fifth derivatives are at most 4.1 and 16 in size):
//  * the g'' term, |g''| |h+ - h-| / 2, g'' from a first difference of the gradient;
//  * the third derivative's error, δ²/12 · 100 from truncation and 4A/δ² from rounding,
//    times (h+² - h+h- + h-²)/6;
//  * the Taylor remainder, 100 h⁴/120 + 30 |h+ - h-| h² / 12.
struct Terms {
  double evaluations, division, autograd, left_out;
};

double evaluation_rounding(double a, double b, double c) {
  const double ab = a * b, s = ab + c, T = std::tanh(s), S = 1 - T * T;
  return kU *
         (std::fabs(a) * S * (std::fabs(ab) + std::fabs(s)) + 6 * std::fabs(a * T));
}

double autograd_rounding(int i, double a, double b, double c) {
  const double ab = a * b, s = ab + c, T = std::tanh(s), S = 1 - T * T;
  const double eT = S * kU * (std::fabs(ab) + std::fabs(s)) + 5 * kU * std::fabs(T);
  const double eq = std::fabs(a) * (2 * std::fabs(T) * eT + kU * (T * T + 2 * S));
  if (i == 0)
    return eT + std::fabs(b) * eq + kU * std::fabs(a * b * S) +
           kU * std::fabs(T + a * b * S);
  if (i == 1) return std::fabs(a) * eq + kU * a * a * S;
  return eq;
}

// %% fold: drawing the graph the values recorded, walked as backward() walks it
void draw_graph(const Graph& g) {
  std::set<Value*> seen;
  std::vector<V> order;
  topological(g.result, seen, order);
  const std::map<Value*, std::string> names = {
      {g.a.get(), "a"}, {g.b.get(), "b"}, {g.c.get(), "c"}};
  std::map<Value*, std::size_t> box;
  std::vector<book::DiagramNode> nodes;
  std::vector<book::DiagramEdge> edges;
  for (const V& v : order) {  // every value after the values it was made from
    char numbers[64];
    std::snprintf(numbers, sizeof numbers, "\ndata %.4f\ngrad %.4f", v->data, v->grad);
    const bool leaf = v->parents.empty();
    box[v.get()] = nodes.size();
    nodes.push_back({(leaf ? names.at(v.get()) : v->op) + numbers, leaf ? "input"
                                                                   : v == g.result
                                                                       ? "output"
                                                                       : "operation"});
    for (const V& p : v->parents)
      edges.push_back({box.at(p.get()), nodes.size() - 1, ""});
  }
  book::figure("value_graph", book::diagram(nodes, edges, /*wide_left_to_right=*/true));
}

// %%
// The test runs the backward walk and compares each gradient with its estimate.

// Our autograd's dg/d(input i) at a point.
double gradient(const double* at, int i) {
  const Graph graph = build(at[0], at[1], at[2]);
  backward(graph.result);
  return (i == 0 ? graph.a : i == 1 ? graph.b : graph.c)->grad;
}

TEST_CASE(
    "the hand-written autograd's gradients agree with central differences to within "
    "the truncation predicted from its own third derivatives and the derived "
    "rounding, with no safety factor") {
  const Graph g = build(kA, kB, kC);
  backward(g.result);
  const double h = 1e-5, delta = 1e-3;
  const double x[3] = {kA, kB, kC};
  double worst = 0;     // the largest |gap - truncation| as a fraction of its allowance
  double left_out = 0;  // the largest of the three t.left_out
  for (int i = 0; i < 3; ++i) {
    double up[3] = {x[0], x[1], x[2]}, down[3] = {x[0], x[1], x[2]};
    up[i] += h, down[i] -= h;  // rounded; the steps taken are exact differences
    const double hp = up[i] - x[i], hm = x[i] - down[i], step = up[i] - down[i];
    const double estimate =
        (g_of(up[0], up[1], up[2]) - g_of(down[0], down[1], down[2])) / step;
    double right[3] = {x[0], x[1], x[2]}, left[3] = {x[0], x[1], x[2]};
    right[i] += delta, left[i] -= delta;
    const double third =
        (gradient(right, i) - 2 * gradient(x, i) + gradient(left, i)) / (delta * delta);
    const double second =
        (gradient(right, i) - gradient(left, i)) / (right[i] - left[i]);
    const double spread = hp * hp - hp * hm + hm * hm;
    const double truncation = third / 6 * spread;
    const double A = autograd_rounding(i, kA, kB, kC);
    const Terms t{
        (evaluation_rounding(up[0], up[1], up[2]) +
         evaluation_rounding(down[0], down[1], down[2])) /
            step,
        kU * std::fabs(estimate), A,
        std::fabs(second) * std::fabs(hp - hm) / 2 +
            (delta * delta / 12 * 100 + 4 * A / (delta * delta)) * spread / 6 +
            100 * std::pow(h, 4) / 120 + 30 * std::fabs(hp - hm) * h * h / 12};
    const double allowance = t.evaluations + t.division + t.autograd + t.left_out;
    left_out = std::max(left_out, t.left_out);
    const double gap = estimate - gradient(x, i);
    worst = std::max(worst, std::fabs(gap - truncation) / allowance);
    out() << "input " << i << ": gap " << gap << " = truncation " << truncation << " + "
          << gap - truncation << "; rounding allowed " << allowance << "\n";
  }
  out() << "gradients: a " << g.a->grad << ", b " << g.b->grad << ", c " << g.c->grad
        << "\n";
  book::check("largest |gap - truncation| / allowance", worst,
              "the worst of the three gradients, its gap from the central difference "
              "less the predicted truncation, over the derived rounding",
              book::at_most(1.0));
  book::check("largest term left out", left_out,
              "the g'' term, the third derivative's error and the remainder, together",
              book::below(1e-15));
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
  const int same = (result.item() == g.result->data) + (a.grad().item() == g.a->grad) +
                   (b.grad().item() == g.b->grad) + (c.grad().item() == g.c->grad);
  book::check("numbers identical", same,
              "of the value and the three gradients, how many match in every bit",
              book::exactly(4));
}

// %% 3 · Why the gradient is added, and why the walk goes backwards
//
// ``a`` receives two shares of gradient, one through the product :math:`a b` and one
// through the final multiplication by :math:`a`. Replace ``+=`` by ``=`` in ``push``
// and the second share to arrive overwrites the first: the gradient of ``a`` comes out
// as one share alone, wrong by the other. The shares are :math:`\tanh(ab + c)`, pushed
// first, and :math:`(1 - \tanh^2) \cdot a \cdot b`, pushed last, computed the same way
// by hand here, so with ``=`` the gradient is the second share, bit for bit, and with
// ``+=`` it is the sum of the two.

TEST_CASE(
    "with = in place of +=, a value used twice gets a wrong gradient: exactly the last "
    "of its two shares") {
  const Graph right = build(kA, kB, kC);
  backward(right.result);
  overwrite_gradients = true;
  const Graph wrong = build(kA, kB, kC);
  backward(wrong.result);
  overwrite_gradients = false;
  const double t = std::tanh(kA * kB + kC);
  const double direct = t, through_product = kA * (1 - t * t) * kB;
  out() << "a's gradient: " << right.a->grad << " with +=, " << wrong.a->grad
        << " with =\n";
  book::check("gradient with =", wrong.a->grad,
              "a's gradient when shares overwrite: the share through a b alone",
              book::exactly(through_product));
  book::check("gradient with +=", right.a->grad, "a's gradient when shares add",
              book::exactly(direct + through_product));
}

// %%
// The order of the walk matters for the same reason. A value may push its gradient on
// only once every value made from it has pushed into it. Walk the values in the order
// they were made instead, and each pushes what it holds at that moment: the leaves
// first, with nothing; then ``a * b`` and ``+ c``, still at 0; then ``tanh``, still at
// 0; and last the result, whose pushes arrive after everyone has moved on. Only those
// pushes land: ``a`` gets :math:`\tanh(ab + c)`, its direct share, and ``b`` and ``c``
// get exactly 0.

TEST_CASE(
    "walked in the order the values were made, only the result's own pushes land: b "
    "and c get exactly 0 and a only its direct share") {
  walk_forwards = true;
  const Graph g = build(kA, kB, kC);
  backward(g.result);
  walk_forwards = false;
  book::check("b's gradient", g.b->grad, "b's gradient from the forward walk",
              book::exactly(0));
  book::check("c's gradient", g.c->grad, "c's gradient from the forward walk",
              book::exactly(0));
  book::check("a's gradient", g.a->grad, "a's gradient from the forward walk",
              book::exactly(std::tanh(kA * kB + kC)));
}

// %% 4 · What one backward pass costs
//
// Take a function of :math:`N` inputs, a neuron :math:`f(x) = \tanh(\sum_i w_i x_i)`
// with fixed weights. Its forward computation makes :math:`N` products, :math:`N - 1`
// sums and one tanh: :math:`2N` operations. The backward walk calls each operation's
// closure once, and each closure pushes at most twice, each push a multiplication and
// an addition (tanh's a few more): so the backward pass costs a bounded multiple of the
// forward, here :math:`4N - 1` pushes, *whatever* :math:`N` is, and gives all
// :math:`N` partial derivatives, :math:`\partial f / \partial x_i = (1 - \tanh^2) w_i`,
// at once. Central differences need two evaluations of :math:`f` per input, :math:`2N`
// evaluations of :math:`2N` operations each: :math:`4N^2`. For a model with a million
// parameters that is the difference between about three times the work of one
// evaluation (its :math:`2N` operations, then :math:`4N - 1` pushes) and two million
// evaluations. The test counts operations and pushes for :math:`N` of 10, 100
// and 1,000, and checks every partial derivative against the formula, bit for bit (the
// walk computes :math:`(1 - t \cdot t) \cdot w_i`, exactly as the formula is written).
//
// .. figure:: backward_cost
//
//    Arithmetic counted for all N partial derivatives: one forward and one backward
//    pass grow like N, central differences like N², both axes logarithmic.

// %% fold: drawing the two costs against N
void draw_cost(const std::vector<double>& ns, const std::vector<double>& reverse,
               const std::vector<double>& differences) {
  book::figure(
      "backward_cost",
      book::line_plot("number of inputs N", "operations for all N partial derivatives",
                      {book::series("forward + backward pass", ns, reverse),
                       book::series("central differences", ns, differences)},
                      true)
          .set("log_x", book::Json::boolean(true))
          .set("log_x_base", 10));
}

// %%
// The test builds the neuron for each :math:`N`.

TEST_CASE(
    "one backward pass gives all N partial derivatives with 4N - 1 pushes for 2N "
    "operations, while central differences need 2N evaluations: 4N² operations") {
  std::vector<double> ns, reverse, differences;
  long wrong_partials = 0, worst_extra = 0;
  for (int n : {10, 100, 1000}) {
    Generator gen(static_cast<std::uint64_t>(n));
    std::vector<V> x, w;
    for (int i = 0; i < n; ++i) x.push_back(leaf(gen.normal())), w.push_back(leaf(0.1));
    operations_made = 0, pushes_made = 0;
    V total = x[0] * w[0];
    for (int i = 1; i < n; ++i) total = total + x[i] * w[i];
    const V neuron = tanh(total);
    const long forward = operations_made;
    backward(neuron);
    const double t = neuron->data;
    for (int i = 0; i < n; ++i)
      wrong_partials += x[i]->grad != (1 - t * t) * w[i]->data;
    worst_extra = std::max(
        worst_extra, std::labs(forward - 2 * n) + std::labs(pushes_made - (4 * n - 1)));
    ns.push_back(n);
    reverse.push_back(static_cast<double>(forward + pushes_made));
    differences.push_back(2.0 * n * static_cast<double>(forward));
  }
  book::check("partial derivatives off the formula", wrong_partials,
              "of the 10 + 100 + 1,000 gradients from one pass each, how many differ "
              "from (1 - t²) w_i in any bit",
              book::exactly(0));
  book::check("counts off 2N and 4N - 1", worst_extra,
              "the most the operations and pushes counted differ from 2N and 4N - 1",
              book::exactly(0));
  book::measured("ratio at N = 1,000", differences.back() / reverse.back(),
                 "central differences' operations over one forward and one backward "
                 "pass's");
  draw_cost(ns, reverse, differences);
}

// %% 5 · Gradients of tensors
//
// litgrad's tensors follow the same scheme with whole tensors as the values. The
// gradient of a scalar loss :math:`L` with respect to a tensor has that tensor's shape:
// one partial derivative per element. An operation :math:`y = F(x)` from :math:`n`
// numbers to :math:`m` has an :math:`m \times n` *Jacobian* :math:`J`,
// :math:`J_{ki} = \partial y_k / \partial x_i`, and the chain rule says
// :math:`\partial L / \partial x_i = \sum_k (\partial L / \partial y_k) J_{ki}`: the
// backward pass multiplies the incoming gradient :math:`v`, shaped like :math:`y`, by
// the Jacobian from the left, :math:`v^T J`, a *vector–Jacobian product*. It never
// builds :math:`J` (for an elementwise operation it is diagonal, and for a matrix
// product it is a product again).
//
// ``backward()`` on a one-number tensor starts from :math:`v = 1`. On a tensor of many
// numbers you pass :math:`v` yourself, as its ``gradient`` argument, and get
// :math:`v^T J`; with :math:`v` the :math:`k`-th unit vector that is row :math:`k` of
// :math:`J`. For :math:`y = A x` the Jacobian is :math:`A` itself, so each unit vector
// gives back a row of :math:`A`, and any :math:`v` gives :math:`A^T v`. On small whole
// numbers all of this is exact. Without a ``gradient`` a tensor of several numbers is
// refused, as in torch.

TEST_CASE(
    "backward(v) on y = A x gives x the gradient v^T A: each unit vector a row of A, "
    "v = (1, 2, 3) exactly A^T v, and no v for three numbers is refused") {
  const Tensor A = tensor({{1, 2, 0, -1}, {3, -2, 1, 0}, {0, 1, 4, 2}});  // [3, 4]
  Tensor x = tensor({1, -1, 2, 3}).requires_grad_();                      // [4]
  const Tensor y = matmul(A, x);                                          // [3]
  CHECK_THROWS_AS(y.backward(), AutogradError);
  int matched = 0;
  for (std::int64_t k = 0; k < 3; ++k) {
    x.zero_grad();
    Tensor unit = zeros({3});
    unit.data()[k] = 1;
    y.backward(unit, /*retain_graph=*/true);
    for (std::int64_t i = 0; i < 4; ++i) matched += x.grad().at({i}) == A.at({k, i});
  }
  x.zero_grad();
  const Tensor v = tensor({1, 2, 3});
  y.backward(v);
  CHECK(x.grad().shape() == x.shape());
  for (std::int64_t i = 0; i < 4; ++i)
    matched +=
        x.grad().at({i}) == 1 * A.at({0, i}) + 2 * A.at({1, i}) + 3 * A.at({2, i});
  out() << "v^T A = " << x.grad() << "\n";
  book::check("elements as predicted", matched,
              "of the three rows' 12 elements and A^T v's 4, how many are exactly "
              "right",
              book::exactly(16));
}

// %%
// Broadcasting uses one element many times, and section 3's rule applies: its gradient
// is the sum of the gradients of every use. So the backward of a broadcast is a sum
// over the stretched dimensions. For ``y = col + row + bias``, with ``col [3, 1]``,
// ``row [1, 4]`` and ``bias [4]`` making ``y [3, 4]``, and an incoming gradient
// :math:`G`: ``col`` gets the sums of :math:`G`'s rows, ``row`` and ``bias`` the sums
// of its columns, each kept in the shape of its own tensor.

TEST_CASE(
    "the backward of a broadcast sums over the stretched dimensions: [3,1] gets G's "
    "row sums, [1,4] and [4] its column sums, each in its own shape, exactly") {
  Tensor col = tensor({1, 2, 3}, {3, 1}).requires_grad_();
  Tensor row = tensor({{10, 20, 30, 40}}).requires_grad_();
  Tensor bias = tensor({-1, 0, 1, 2}).requires_grad_();
  const Tensor G = tensor({{1, 2, 3, 4}, {0, -1, 5, 2}, {7, 1, -3, 6}});
  (col + row + bias).backward(G);
  CHECK(col.grad().shape() == Shape{3, 1});
  CHECK(row.grad().shape() == Shape{1, 4});
  CHECK(bias.grad().shape() == Shape{4});
  int matched = 0;
  for (std::int64_t i = 0; i < 3; ++i) {
    double row_sum = 0;
    for (std::int64_t j = 0; j < 4; ++j) row_sum += G.at({i, j});
    matched += col.grad().at({i, 0}) == row_sum;
  }
  for (std::int64_t j = 0; j < 4; ++j) {
    double column_sum = 0;
    for (std::int64_t i = 0; i < 3; ++i) column_sum += G.at({i, j});
    matched += row.grad().at({0, j}) == column_sum;
    matched += bias.grad().at({j}) == column_sum;
  }
  out() << "col.grad =\n" << col.grad() << "\nbias.grad = " << bias.grad() << "\n";
  book::check("gradients equal to the sums", matched,
              "of 3 + 4 + 4 elements, how many are exactly the sums over the "
              "stretched dimension",
              book::exactly(11));
}

// %%
// And the other way round: a sum over a dimension uses every element once, with
// derivative 1, so its backward hands each element the gradient of the sum it went
// into. Summing ``x [3, 4]`` over its rows gives ``[3]``; backward with :math:`v`
// gives every element of row :math:`i` exactly :math:`v_i`: the gradient is broadcast
// back. Broadcasting and summing are each other's backward.

TEST_CASE(
    "the backward of a sum broadcasts: summing x [3,4] over dimension 1, backward(v) "
    "gives element (i, j) exactly v_i") {
  Tensor x = reshape(arange(12.0), {3, 4}).requires_grad_();
  const Tensor v = tensor({2, -1, 5});
  sum(x, {1}).backward(v);
  int matched = 0;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j) matched += x.grad().at({i, j}) == v.at({i});
  book::check("elements equal to v_i", matched,
              "of the 12, how many received exactly their row's v_i",
              book::exactly(12));
}

// %% 6 · litgrad's graph
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
  book::check("nodes left", static_cast<double>(live_graph_nodes() - before),
              "recorded operations still alive once the tensors are gone",
              book::exactly(0));
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
  book::check("x_1's gradient after two passes", x.grad().at({1}),
              "2x = -4, twice over", book::exactly(-8));
  x.zero_grad();
  sum(x * x).backward();
  book::check("x_1's gradient after zeroing", x.grad().at({1}),
              "2x once, after zero_grad", book::exactly(-4));
}

// %%
// Section 2's check, gradients against central differences, is what
// :cpp:func:`litgrad::gradcheck` does for any litgrad function of tensors, element by
// element: with a step of :math:`10^{-6}` it passes when every gradient is within
// :math:`10^{-5} + 10^{-3}` times the estimate (torch's defaults, loose enough for the
// estimate's own error, which section 1's balance of truncation and rounding puts near
// :math:`u |f| / h \approx 10^{-10}` at this step for smooth functions whose values
// and derivatives are about 1, as here; the test holds the largest error below ten
// times that, :math:`10^{-9}`). It also catches a wrong gradient: ``x * x.detach()``
// has the value :math:`x^2`, but ``detach()`` hides the second factor from the graph,
// so only half the gradient comes through, :math:`x` instead of :math:`2x`, and
// gradcheck says so.

TEST_CASE(
    "gradcheck passes for the test expression, erring by less than 1e-9, and fails for "
    "a function whose gradient is wrong") {
  const auto g_tensor = [](const std::vector<Tensor>& in) {
    return tanh(in[0] * in[1] + in[2]) * in[0];
  };
  const std::vector<Tensor> inputs = {tensor({kA}).requires_grad_(),
                                      tensor({kB}).requires_grad_(),
                                      tensor({kC}).requires_grad_()};
  const GradcheckResult right = gradcheck(g_tensor, inputs);
  CHECK(right.ok);
  const auto half = [](const std::vector<Tensor>& in) {
    return in[0] * in[0].detach();
  };
  const Tensor x = tensor({1.5}).requires_grad_();
  half({x}).backward(ones({1}));
  book::check("gradient through detach", x.grad().item(), "x, not 2x = 3",
              book::exactly(1.5));
  const GradcheckResult wrong = gradcheck(half, {tensor({1.5}).requires_grad_()});
  out() << wrong.message << "\n";
  book::check("gradcheck's largest error, right gradient", right.max_abs_error,
              "the largest |analytical - numerical| for tanh(ab + c) a",
              book::below(1e-9));
  book::check("gradcheck's largest error, wrong gradient", wrong.max_abs_error,
              "the same for x · x.detach(): |1.5 - 3|, to the estimate's rounding",
              book::within(1e-9, 1.5));
  CHECK_FALSE(wrong.ok);
}

// %% fold: the end of the file's namespace
}  // namespace
