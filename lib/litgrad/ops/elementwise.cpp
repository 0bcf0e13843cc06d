// Elementwise operations. Each one is its forward formula next to its derivative: the helpers
// `unary` and `binary` do the recording, and the kernels (kernels/elementwise.hpp) the looping
// and the broadcasting. A derivative is written once, as a rule generic in its arguments: the
// kernels call it with doubles, element by element, and a backward that records itself
// (create_graph) calls the same rule with tensors, each with its history.

#include "litgrad/ops/elementwise.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/elementwise.hpp"
#include "litgrad/ops/detail/sum_to.hpp"
#include "litgrad/ops/registry.hpp"

namespace litgrad {

namespace {

using detail::empty_tensor;
using detail::Saved;
using detail::uninitialized_tensor;

// y = f(x) elementwise; dx = df(x, y, dy), the rule called with doubles by the kernel and, for
// an operation whose table entry says Twice::yes, with tensors by a backward that records itself.
// x: any shape; y, dy: x's shape. `saved`: what df reads (the input, the output, or neither).
template <const Op& O, class F, class DF>
Tensor unary(const Tensor& x, F f, DF df, Saved saved) {
  Tensor y = uninitialized_tensor(x.shape());
  kernels::map(x.numel(), x.data(), y.data(), f);
  auto backward = [x, y, df](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = uninitialized_tensor(x.shape());
    kernels::map_backward(x.numel(), x.data(), y.data(), g.data(), gx.data(), df);
    return {gx};
  };
  if constexpr (O.twice == Twice::yes)
    return detail::record(
        O, y, {x}, std::move(backward),
        [df](const Tensor& g, const Tensor& y, const std::vector<Tensor>& in) -> std::vector<Tensor> {
          return {df(in[0], y, g)};
        },
        saved);
  else
    return detail::record(O, y, {x}, std::move(backward), nullptr, saved);
}

// y = f(a, b) elementwise over broadcast(a, b), with no history.
template <class F>
Tensor broadcast_apply(const char* op, const Tensor& a, const Tensor& b, F f, DType dtype = DType::Float64) {
  const Shape out = broadcast_shapes(op, a.shape(), b.shape());
  Tensor y = uninitialized_tensor(out, dtype);
  kernels::zip(out, a.data(), a.shape(), b.data(), b.shape(), y.data(), f);
  return y;
}

// y = f(a, b) over broadcast(a, b); da = dfa(a, b, dy), db = dfb(a, b, dy) per element of y,
// added into the element of a (of b) that produced it: that sum is the un-broadcasting. With
// tensors (create_graph), the same rules over the broadcast shape, then summed back
// (detail::sum_to).
template <const Op& O, class F, class DFA, class DFB>
Tensor binary(const Tensor& a, const Tensor& b, F f, DFA dfa, DFB dfb, Saved saved) {
  static_assert(O.twice == Twice::yes, "every binary operation's backward is recorded");
  Tensor y = broadcast_apply(O.name, a, b, f);
  return detail::record(
      O, y, {a, b},
      [a, b, dfa, dfb](const Tensor& g) -> std::vector<Tensor> {
        // Only for the operands that need one (an attention mask, say, needs none).
        Tensor ga = a.requires_grad() ? uninitialized_tensor(a.shape()) : Tensor();
        Tensor gb = b.requires_grad() ? uninitialized_tensor(b.shape()) : Tensor();
        if (ga.defined())
          kernels::zip_backward<0>(g.shape(), a.data(), a.shape(), b.data(), b.shape(), g.data(), ga.data(), dfa);
        if (gb.defined())
          kernels::zip_backward<1>(g.shape(), a.data(), a.shape(), b.data(), b.shape(), g.data(), gb.data(), dfb);
        return {ga, gb};
      },
      [dfa, dfb](const Tensor& g, const Tensor&, const std::vector<Tensor>& in) -> std::vector<Tensor> {
        const Tensor &a = in[0], &b = in[1];
        return {a.requires_grad() ? detail::sum_to(dfa(a, b, g), a.shape()) : Tensor(),
                b.requires_grad() ? detail::sum_to(dfb(a, b, g), b.shape()) : Tensor()};
      },
      saved);
}

void require_bool(const char* op, const char* what, const Tensor& t) {
  if (t.dtype() != DType::Bool)
    throw ValueError(op, ": ", what, " must be a Bool tensor, got ", t.dtype(), " of shape ", t.shape(),
                     " (compare with eq/lt/gt, or use to(x, DType::Bool))");
}

// What the rules below use, for numbers as for tensors: each name here has its tensor form
// among the library's operations (a comparison on tensors gives a Bool tensor, on doubles a
// bool). A tensor condition carries no gradient.
double sin(double v) { return std::sin(v); }
double cos(double v) { return std::cos(v); }
double pow(double v, double p) { return std::pow(v, p); }
double log(double v) { return std::log(v); }
double where(bool c, double a, double b) { return c ? a : b; }
Tensor where(const Tensor& c, double a, const Tensor& b) { return litgrad::where(c, scalar_tensor(a), b); }
Tensor where(const Tensor& c, const Tensor& a, double b) { return litgrad::where(c, a, scalar_tensor(b)); }
bool logical_and(bool a, bool b) { return a && b; }
double sign(double v) { return v > 0 ? 1.0 : v < 0 ? -1.0 : 0.0; }  // 0 at 0, and at NaN
Tensor sign(const Tensor& x) { return where(x > 0.0, 1.0, where(x < 0.0, -1.0, zeros({}))); }
double zeros_like(double) { return 0.0; }

}  // namespace

// The operations below are laid out by hand, as a table: a forward on the line of its name,
// its derivative under it with its formula beside it; clang-format would undo that. A
// derivative's arguments are (x, y, g): the input, the output and the output's gradient (a, b, g
// for two inputs); the table of operations (ops/registry.hpp) says which ones a backward can
// record again.
// clang-format off

// ---------------------------------------------------------------------------------------------
// Arithmetic. a, b: shapes that broadcast; result: broadcast(a, b).

Tensor add(const Tensor& a, const Tensor& b) {
  return binary<op::add>(a, b, [](double x, double y) { return x + y; },
                [](auto, auto, auto g) { return g; },    // d(a+b)/da = 1
                [](auto, auto, auto g) { return g; },    // d(a+b)/db = 1
                Saved::nothing());
}

Tensor sub(const Tensor& a, const Tensor& b) {
  return binary<op::sub>(a, b, [](double x, double y) { return x - y; },
                [](auto, auto, auto g) { return g; },    // d(a-b)/da = 1
                [](auto, auto, auto g) { return -g; },   // d(a-b)/db = -1
                Saved::nothing());
}

Tensor mul(const Tensor& a, const Tensor& b) {
  return binary<op::mul>(a, b, [](double x, double y) { return x * y; },
                [](auto, auto b, auto g) { return g * b; },   // d(ab)/da = b
                [](auto a, auto, auto g) { return g * a; },   // d(ab)/db = a
                Saved::only_inputs());
}

Tensor div(const Tensor& a, const Tensor& b) {
  return binary<op::div>(a, b, [](double x, double y) { return x / y; },
                [](auto, auto b, auto g) { return g / b; },                // d(a/b)/da = 1/b
                [](auto a, auto b, auto g) { return -g * a / (b * b); },   // d(a/b)/db = -a/b²
                Saved::only_inputs());
}

Tensor pow(const Tensor& a, const Tensor& b) {
  return binary<op::pow_tensor>(a, b, [](double x, double y) { return std::pow(x, y); },
                [](auto a, auto b, auto g) { return where(b == 0.0, zeros_like(g), g * b * pow(a, b - 1.0)); },  // b a^(b-1), 0 at b = 0
                [](auto a, auto b, auto g) {                                                                      // a^b ln a, 0 at a = 0 <= b
                  return where(logical_and(a == 0.0, b >= 0.0), zeros_like(g), g * pow(a, b) * log(a));
                },
                Saved::only_inputs());
}

Tensor pow(double base, const Tensor& exponent) { return pow(scalar_tensor(base), exponent); }

// ---------------------------------------------------------------------------------------------
// Functions. x: any shape; result: x's shape.

Tensor neg(const Tensor& x) {
  return unary<op::neg>(x, [](double v) { return -v; },
               [](auto, auto, auto g) { return -g; },  // d(-x)/dx = -1
               Saved::nothing());
}

Tensor pow(const Tensor& x, double p) {
  if (p == 2.0)  // the common square as one multiplication, as torch computes it
    return unary<op::pow>(x, [](double v) { return v * v; },
                 [](auto x, auto, auto g) { return g * 2.0 * x; },  // d x²/dx = 2x
                 Saved::only_inputs());
  return unary<op::pow>(x, [p](double v) { return std::pow(v, p); },
               [p](auto x, auto, auto g) { return p == 0.0 ? zeros_like(x) : g * p * pow(x, p - 1); },  // p x^(p-1)
               Saved::only_inputs());
}

Tensor exp(const Tensor& x) {
  return unary<op::exp>(x, [](double v) { return std::exp(v); },
               [](auto, auto y, auto g) { return g * y; },  // d e^x/dx = e^x = y
               Saved::only_output());
}

Tensor log(const Tensor& x) {
  return unary<op::log>(x, [](double v) { return std::log(v); },
               [](auto x, auto, auto g) { return g / x; },  // d ln x/dx = 1/x
               Saved::only_inputs());
}

Tensor tanh(const Tensor& x) {
  return unary<op::tanh>(x, [](double v) { return std::tanh(v); },
               [](auto, auto y, auto g) { return g * (1.0 - y * y); },  // 1 - tanh²
               Saved::only_output());
}

Tensor sigmoid(const Tensor& x) {
  return unary<op::sigmoid>(x, [](double v) { return 1 / (1 + std::exp(-v)); },
               [](auto, auto y, auto g) { return g * y * (1.0 - y); },  // σ(1-σ)
               Saved::only_output());
}

Tensor abs(const Tensor& x) {
  return unary<op::abs>(x, [](double v) { return std::fabs(v); },
               [](auto x, auto, auto g) { return g * sign(x); },  // sign(x), 0 at 0
               Saved::only_inputs());
}

Tensor relu(const Tensor& x) {
  // Written as "v <= 0 ? 0 : v" so that a NaN passes through, as torch (NaN <= 0 is false).
  return unary<op::relu>(x, [](double v) { return v <= 0 ? 0.0 : v; },
               [](auto x, auto, auto g) { return where(x <= 0.0, 0.0, g); },  // 0 or 1
               Saved::only_inputs());
}

Tensor sin(const Tensor& x) {
  return unary<op::sin>(x, [](double v) { return std::sin(v); },
               [](auto x, auto, auto g) { return g * cos(x); },
               Saved::only_inputs());
}

Tensor cos(const Tensor& x) {
  return unary<op::cos>(x, [](double v) { return std::cos(v); },
               [](auto x, auto, auto g) { return -g * sin(x); },
               Saved::only_inputs());
}

Tensor sqrt(const Tensor& x) {
  return unary<op::sqrt>(x, [](double v) { return std::sqrt(v); },
               [](auto, auto y, auto g) { return g / (2.0 * y); },  // d sqrt(x)/dx = 1/(2 sqrt x)
               Saved::only_output());
}

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  if (!min && !max) throw ValueError("clamp: give at least one of min and max");
  const double lo = min.value_or(-INFINITY), hi = max.value_or(INFINITY);
  // torch's rule: min(max(x, lo), hi), so hi wins when lo > hi; a NaN stays NaN.
  return unary<op::clamp>(x, [lo, hi](double v) { return std::isnan(v) ? v : v < lo ? std::min(lo, hi) : v > hi ? hi : v; },
               [lo, hi](auto x, auto, auto g) { return where(logical_and(x >= lo, x <= hi), g, 0.0); },
               Saved::only_inputs());
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  constexpr double kSqrtHalf = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;
  constexpr double kSqrt2OverPi = 0.79788456080286535588, kCubic = 0.044715;
  if (approximate == "none") {  // y = x Φ(x), Φ(x) = (1 + erf(x/√2))/2;  dy/dx = Φ(x) + x φ(x)
    // erf is most of the cost, forward and backward alike, so e = erf(x/√2) is computed once
    // and kept for the backward, which would compute the same bits again (torch computes it
    // again); no bit changes.
    // e: x's shape.
    Tensor e = uninitialized_tensor(x.shape());
    kernels::map(x.numel(), x.data(), e.data(), [](double v) { return std::erf(v * kSqrtHalf); });
    Tensor y = uninitialized_tensor(x.shape());
    kernels::zip(x.shape(), x.data(), x.shape(), e.data(), e.shape(), y.data(),
                 [](double v, double erf_v) { return 0.5 * v * (1 + erf_v); });
    return detail::record(
        op::gelu, y, {x},
        [x, e](const Tensor& g) -> std::vector<Tensor> {
          Tensor gx = uninitialized_tensor(x.shape());
          kernels::map_backward(x.numel(), x.data(), e.data(), g.data(), gx.data(), [](double v, double erf_v, double gv) {
            return gv * (0.5 * (1 + erf_v) + v * kInvSqrt2Pi * std::exp(-0.5 * v * v));
          });
          return {gx};
        },
        nullptr, Saved::only_inputs());
  }
  if (approximate == "tanh")  // y = x (1 + t) / 2, t = tanh(k (x + c x³));  dy/dx = (1 + t)/2 + x (1 - t²) k (1 + 3c x²) / 2
    return unary<op::gelu>(x,
                 [](double v) { return 0.5 * v * (1 + std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v))); },
                 [](double v, double, double g) {
                   const double t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
                   return g * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * kSqrt2OverPi * (1 + 3 * kCubic * v * v));
                 },
                 Saved::only_inputs());
  throw ValueError("gelu: approximate must be \"none\" or \"tanh\", got \"", approximate, "\"");
}

// ---------------------------------------------------------------------------------------------
// Comparisons and logic. Results are Bool and carry no gradient.

Tensor eq(const Tensor& a, const Tensor& b) { return broadcast_apply("eq", a, b, [](double x, double y) { return double(x == y); }, DType::Bool); }
Tensor ne(const Tensor& a, const Tensor& b) { return broadcast_apply("ne", a, b, [](double x, double y) { return double(x != y); }, DType::Bool); }
Tensor lt(const Tensor& a, const Tensor& b) { return broadcast_apply("lt", a, b, [](double x, double y) { return double(x < y); }, DType::Bool); }
Tensor le(const Tensor& a, const Tensor& b) { return broadcast_apply("le", a, b, [](double x, double y) { return double(x <= y); }, DType::Bool); }
Tensor gt(const Tensor& a, const Tensor& b) { return broadcast_apply("gt", a, b, [](double x, double y) { return double(x > y); }, DType::Bool); }
Tensor ge(const Tensor& a, const Tensor& b) { return broadcast_apply("ge", a, b, [](double x, double y) { return double(x >= y); }, DType::Bool); }

Tensor logical_not(const Tensor& mask) {
  require_bool("logical_not", "the input", mask);
  Tensor y = uninitialized_tensor(mask.shape(), DType::Bool);
  kernels::map(mask.numel(), mask.data(), y.data(), [](double v) { return 1.0 - v; });
  return y;
}

Tensor logical_and(const Tensor& a, const Tensor& b) {
  require_bool("logical_and", "a", a);
  require_bool("logical_and", "b", b);
  return broadcast_apply("logical_and", a, b, [](double x, double y) { return x * y; }, DType::Bool);
}

Tensor logical_or(const Tensor& a, const Tensor& b) {
  require_bool("logical_or", "a", a);
  require_bool("logical_or", "b", b);
  return broadcast_apply("logical_or", a, b, [](double x, double y) { return double(x + y > 0); }, DType::Bool);
}

// clang-format on

// ---------------------------------------------------------------------------------------------
// where(condition, a, b): all three broadcast together.

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) {
  require_bool("where", "the condition", c);
  const Shape out = broadcast_shapes("where", c.shape(), broadcast_shapes("where", a.shape(), b.shape()));
  Tensor y = uninitialized_tensor(out);
  kernels::select(out, c.data(), c.shape(), a.data(), a.shape(), b.data(), b.shape(), y.data());
  return detail::record(
      op::where, y, {a, b},
      [c, a, b](const Tensor& g) -> std::vector<Tensor> {
        Tensor ga = a.requires_grad() ? empty_tensor(a.shape()) : Tensor();  // zeros: select_backward adds
        Tensor gb = b.requires_grad() ? empty_tensor(b.shape()) : Tensor();
        kernels::select_backward(g.shape(), c.data(), c.shape(), a.shape(), b.shape(), g.data(),
                                 ga.defined() ? ga.data() : nullptr, gb.defined() ? gb.data() : nullptr);
        return {ga, gb};
      },
      [c](const Tensor& g, const Tensor&, const std::vector<Tensor>& in) -> std::vector<Tensor> {
        const Tensor &a = in[0], &b = in[1];
        return {a.requires_grad() ? detail::sum_to(where(c, g, zeros({})), a.shape()) : Tensor(),
                b.requires_grad() ? detail::sum_to(where(c, zeros({}), g), b.shape()) : Tensor()};
      },
      Saved::nothing(), {{"the condition", c}});
}

// masked_fill is where() with the fill value as a 0-dimensional tensor, once the mask is known
// to broadcast to x without growing it.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  require_bool("masked_fill", "the mask", mask);
  if (broadcast_shapes("masked_fill", x.shape(), mask.shape()) != x.shape())
    throw ShapeError("masked_fill: mask of shape ", mask.shape(), " does not broadcast to the input's shape ",
                     x.shape());
  return where(mask, scalar_tensor(value), x);
}

// ---------------------------------------------------------------------------------------------

Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
Tensor operator-(const Tensor& x) { return neg(x); }
Tensor operator<(const Tensor& a, double b) { return lt(a, scalar_tensor(b)); }
Tensor operator<=(const Tensor& a, double b) { return le(a, scalar_tensor(b)); }
Tensor operator>(const Tensor& a, double b) { return gt(a, scalar_tensor(b)); }
Tensor operator>=(const Tensor& a, double b) { return ge(a, scalar_tensor(b)); }
Tensor operator==(const Tensor& a, double b) { return eq(a, scalar_tensor(b)); }
Tensor operator!=(const Tensor& a, double b) { return ne(a, scalar_tensor(b)); }
Tensor operator<(const Tensor& a, const Tensor& b) { return lt(a, b); }
Tensor operator<=(const Tensor& a, const Tensor& b) { return le(a, b); }
Tensor operator>(const Tensor& a, const Tensor& b) { return gt(a, b); }
Tensor operator>=(const Tensor& a, const Tensor& b) { return ge(a, b); }
Tensor operator==(const Tensor& a, const Tensor& b) { return eq(a, b); }
Tensor operator!=(const Tensor& a, const Tensor& b) { return ne(a, b); }
Tensor operator+(const Tensor& a, double b) { return add(a, scalar_tensor(b)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, scalar_tensor(b)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, scalar_tensor(b)); }
Tensor operator/(const Tensor& a, double b) { return div(a, scalar_tensor(b)); }
Tensor operator+(double a, const Tensor& b) { return add(scalar_tensor(a), b); }
Tensor operator-(double a, const Tensor& b) { return sub(scalar_tensor(a), b); }
Tensor operator*(double a, const Tensor& b) { return mul(scalar_tensor(a), b); }
Tensor operator/(double a, const Tensor& b) { return div(scalar_tensor(a), b); }

}  // namespace litgrad
