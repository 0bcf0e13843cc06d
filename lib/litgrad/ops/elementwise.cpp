// Elementwise operations. Each one is its forward formula next to its derivative: the helpers
// `unary` and `binary` do the recording, and the kernels (kernels/elementwise.hpp) the looping
// and the broadcasting.

#include "litgrad/ops/elementwise.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/base/error.hpp"
#include "litgrad/core/detail/node.hpp"
#include "litgrad/core/detail/tensor_impl.hpp"
#include "litgrad/kernels/elementwise.hpp"
#include "litgrad/ops/detail/sum_to.hpp"

namespace litgrad {

namespace {

using detail::empty_tensor;
using detail::uninitialized_tensor;

// The backward of an elementwise operation written with operations (core/detail/node.hpp), from
// the gradient g of the output, the output y and the input(s), each with its history.
using UnaryGraph = std::function<Tensor(const Tensor& g, const Tensor& y, const Tensor& x)>;
using BinaryGraph = std::function<Tensor(const Tensor& g, const Tensor& y, const Tensor& a, const Tensor& b)>;

// y = f(x) elementwise; dx = df(x, y, dy) elementwise, and the same as operations, gdf.
// x: any shape; y, dy: x's shape. `saved`: what df reads (the input, the output, or neither).
template <class F, class DF>
Tensor unary(const char* op, const Tensor& x, F f, DF df, UnaryGraph gdf, detail::Saved saved) {
  Tensor y = uninitialized_tensor(x.shape());
  kernels::map(x.numel(), x.data(), y.data(), f);
  return detail::record(
      op, y, {x},
      [x, y, df](const Tensor& g) -> std::vector<Tensor> {
        Tensor gx = uninitialized_tensor(x.shape());
        kernels::map_backward(x.numel(), x.data(), y.data(), g.data(), gx.data(), df);
        return {gx};
      },
      gdf ? detail::GraphBackwardFn([gdf](const Tensor& g, const Tensor& y, const std::vector<Tensor>& in)
                                        -> std::vector<Tensor> { return {gdf(g, y, in[0])}; })
          : nullptr,
      saved);
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
// added into the element of a (of b) that produced it: that sum is the un-broadcasting. gdfa
// and gdfb are the same as operations, before the sum (detail::sum_to does it).
template <class F, class DFA, class DFB>
Tensor binary(const char* op, const Tensor& a, const Tensor& b, F f, DFA dfa, DFB dfb, BinaryGraph gdfa,
              BinaryGraph gdfb, detail::Saved saved) {
  Tensor y = broadcast_apply(op, a, b, f);
  return detail::record(
      op, y, {a, b},
      [a, b, dfa, dfb](const Tensor& g) -> std::vector<Tensor> {
        // Only for the operands that need one (an attention mask, say, needs none).
        Tensor ga = a.requires_grad() ? empty_tensor(a.shape()) : Tensor();
        Tensor gb = b.requires_grad() ? empty_tensor(b.shape()) : Tensor();
        if (ga.defined())
          kernels::zip_backward<0>(g.shape(), a.data(), a.shape(), b.data(), b.shape(), g.data(), ga.data(), dfa);
        if (gb.defined())
          kernels::zip_backward<1>(g.shape(), a.data(), a.shape(), b.data(), b.shape(), g.data(), gb.data(), dfb);
        return {ga, gb};
      },
      [gdfa, gdfb](const Tensor& g, const Tensor& y, const std::vector<Tensor>& in) -> std::vector<Tensor> {
        const Tensor &a = in[0], &b = in[1];
        return {a.requires_grad() ? detail::sum_to(gdfa(g, y, a, b), a.shape()) : Tensor(),
                b.requires_grad() ? detail::sum_to(gdfb(g, y, a, b), b.shape()) : Tensor()};
      },
      saved);
}

using detail::Saved;

void require_bool(const char* op, const char* what, const Tensor& t) {
  if (t.dtype() != DType::Bool)
    throw ValueError(op, ": ", what, " must be a Bool tensor, got ", t.dtype(), " of shape ", t.shape(),
                     " (compare with eq/lt/gt, or use to(x, DType::Bool))");
}

}  // namespace

// The operations below are laid out by hand, as a table: a forward on the line of its name,
// each derivative under it with its formula beside it; clang-format would undo that.
// clang-format off

// ---------------------------------------------------------------------------------------------
// Arithmetic. a, b: shapes that broadcast; result: broadcast(a, b).

Tensor add(const Tensor& a, const Tensor& b) {
  return binary("add", a, b, [](double x, double y) { return x + y; },
                [](double, double, double g) { return g; },    // d(a+b)/da = 1
                [](double, double, double g) { return g; },    // d(a+b)/db = 1
                [](const Tensor& g, const Tensor&, const Tensor&, const Tensor&) { return g; },
                [](const Tensor& g, const Tensor&, const Tensor&, const Tensor&) { return g; }, Saved::nothing());
}

Tensor sub(const Tensor& a, const Tensor& b) {
  return binary("sub", a, b, [](double x, double y) { return x - y; },
                [](double, double, double g) { return g; },    // d(a-b)/da = 1
                [](double, double, double g) { return -g; },   // d(a-b)/db = -1
                [](const Tensor& g, const Tensor&, const Tensor&, const Tensor&) { return g; },
                [](const Tensor& g, const Tensor&, const Tensor&, const Tensor&) { return -g; }, Saved::nothing());
}

Tensor mul(const Tensor& a, const Tensor& b) {
  return binary("mul", a, b, [](double x, double y) { return x * y; },
                [](double, double y, double g) { return g * y; },   // d(ab)/da = b
                [](double x, double, double g) { return g * x; },   // d(ab)/db = a
                [](const Tensor& g, const Tensor&, const Tensor&, const Tensor& b) { return g * b; },
                [](const Tensor& g, const Tensor&, const Tensor& a, const Tensor&) { return g * a; },
                Saved::only_inputs());
}

Tensor div(const Tensor& a, const Tensor& b) {
  return binary("div", a, b, [](double x, double y) { return x / y; },
                [](double, double y, double g) { return g / y; },                // d(a/b)/da = 1/b
                [](double x, double y, double g) { return -g * x / (y * y); },  // d(a/b)/db = -a/b²
                [](const Tensor& g, const Tensor&, const Tensor&, const Tensor& b) { return g / b; },
                [](const Tensor& g, const Tensor&, const Tensor& a, const Tensor& b) { return -g * a / (b * b); },
                Saved::only_inputs());
}

// ---------------------------------------------------------------------------------------------
// Functions. x: any shape; result: x's shape.

Tensor neg(const Tensor& x) {
  return unary("neg", x, [](double v) { return -v; },
               [](double, double, double g) { return -g; },  // d(-x)/dx = -1
               [](const Tensor& g, const Tensor&, const Tensor&) { return -g; }, Saved::nothing());
}

Tensor pow(const Tensor& x, double p) {
  if (p == 2.0)  // the common square as one multiplication, as torch computes it
    return unary("pow", x, [](double v) { return v * v; }, [](double v, double, double g) { return g * 2.0 * v; },
                 [](const Tensor& g, const Tensor&, const Tensor& x) { return g * 2.0 * x; }, Saved::only_inputs());
  return unary("pow", x, [p](double v) { return std::pow(v, p); },
               [p](double v, double, double g) { return p == 0.0 ? 0.0 : g * p * std::pow(v, p - 1); },
               [p](const Tensor& g, const Tensor&, const Tensor& x) {
                 return p == 0.0 ? zeros_like(x) : g * p * pow(x, p - 1);
               },
               Saved::only_inputs());
}

Tensor exp(const Tensor& x) {
  return unary("exp", x, [](double v) { return std::exp(v); },
               [](double, double y, double g) { return g * y; },  // d e^x/dx = e^x = y
               [](const Tensor& g, const Tensor& y, const Tensor&) { return g * y; }, Saved::only_output());
}

Tensor log(const Tensor& x) {
  return unary("log", x, [](double v) { return std::log(v); },
               [](double v, double, double g) { return g / v; },  // d ln x/dx = 1/x
               [](const Tensor& g, const Tensor&, const Tensor& x) { return g / x; }, Saved::only_inputs());
}

Tensor tanh(const Tensor& x) {
  return unary("tanh", x, [](double v) { return std::tanh(v); },
               [](double, double y, double g) { return g * (1 - y * y); },  // 1 - tanh²
               [](const Tensor& g, const Tensor& y, const Tensor&) { return g * (1.0 - y * y); }, Saved::only_output());
}

Tensor sigmoid(const Tensor& x) {
  return unary("sigmoid", x, [](double v) { return 1 / (1 + std::exp(-v)); },
               [](double, double y, double g) { return g * y * (1 - y); },  // σ(1-σ)
               [](const Tensor& g, const Tensor& y, const Tensor&) { return g * y * (1.0 - y); }, Saved::only_output());
}

namespace {
// sign(x): 1, -1, or 0 at 0, as a tensor that carries no gradient.
Tensor sign_of(const Tensor& x) {
  return where(gt(x, scalar_tensor(0)), ones({}), where(lt(x, scalar_tensor(0)), full({}, -1.0), zeros({})));
}
}  // namespace

Tensor abs(const Tensor& x) {
  return unary("abs", x, [](double v) { return std::fabs(v); },
               [](double v, double, double g) { return v > 0 ? g : v < 0 ? -g : 0.0; },  // sign(x)
               [](const Tensor& g, const Tensor&, const Tensor& x) { return g * sign_of(x.detach()); },
               Saved::only_inputs());
}

Tensor relu(const Tensor& x) {
  // Written as "v <= 0 ? 0 : v" so that a NaN passes through, as torch (NaN <= 0 is false).
  return unary("relu", x, [](double v) { return v <= 0 ? 0.0 : v; },
               [](double v, double, double g) { return v <= 0 ? 0.0 : g; },
               [](const Tensor& g, const Tensor&, const Tensor& x) { return where(x.detach() <= 0.0, zeros({}), g); },
               Saved::only_inputs());
}

Tensor sin(const Tensor& x) {
  return unary("sin", x, [](double v) { return std::sin(v); },
               [](double v, double, double g) { return g * std::cos(v); },
               [](const Tensor& g, const Tensor&, const Tensor& x) { return g * cos(x); }, Saved::only_inputs());
}

Tensor cos(const Tensor& x) {
  return unary("cos", x, [](double v) { return std::cos(v); },
               [](double v, double, double g) { return -g * std::sin(v); },
               [](const Tensor& g, const Tensor&, const Tensor& x) { return -g * sin(x); }, Saved::only_inputs());
}

Tensor sqrt(const Tensor& x) {
  return unary("sqrt", x, [](double v) { return std::sqrt(v); },
               [](double, double y, double g) { return g / (2 * y); },  // d sqrt(x)/dx = 1/(2 sqrt x)
               [](const Tensor& g, const Tensor& y, const Tensor&) { return g / (2.0 * y); }, Saved::only_output());
}

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  if (!min && !max) throw ValueError("clamp: give at least one of min and max");
  const double lo = min.value_or(-INFINITY), hi = max.value_or(INFINITY);
  // torch's rule: min(max(x, lo), hi), so hi wins when lo > hi; a NaN stays NaN.
  return unary("clamp", x, [lo, hi](double v) { return std::isnan(v) ? v : v < lo ? std::min(lo, hi) : v > hi ? hi : v; },
               [lo, hi](double v, double, double g) { return v >= lo && v <= hi ? g : 0.0; },
               [lo, hi](const Tensor& g, const Tensor&, const Tensor& x) {
                 const Tensor inside = logical_and(x.detach() >= lo, x.detach() <= hi);
                 return where(inside, g, zeros({}));
               },
               Saved::only_inputs());
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  constexpr double kSqrtHalf = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;
  constexpr double kSqrt2OverPi = 0.79788456080286535588, kCubic = 0.044715;
  if (approximate == "none") {  // y = x Φ(x), Φ(x) = (1 + erf(x/√2))/2;  dy/dx = Φ(x) + x φ(x)
    // erf is most of the cost, forward and backward alike, so e = erf(x/√2) is computed once
    // and kept for the backward, which would compute the same bits again. (torch computes it
    // again.) Chapter 12's training steps are about 5% quicker so, and no bit changes.
    // e: x's shape.
    Tensor e = uninitialized_tensor(x.shape());
    kernels::map(x.numel(), x.data(), e.data(), [](double v) { return std::erf(v * kSqrtHalf); });
    Tensor y = uninitialized_tensor(x.shape());
    kernels::zip(x.shape(), x.data(), x.shape(), e.data(), e.shape(), y.data(),
                 [](double v, double erf_v) { return 0.5 * v * (1 + erf_v); });
    return detail::record(
        "gelu", y, {x},
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
    return unary("gelu", x,
                 [](double v) { return 0.5 * v * (1 + std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v))); },
                 [](double v, double, double g) {
                   const double t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
                   return g * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * kSqrt2OverPi * (1 + 3 * kCubic * v * v));
                 },
                 nullptr, Saved::only_inputs());
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
      "where", y, {a, b},
      [c, a, b](const Tensor& g) -> std::vector<Tensor> {
        Tensor ga = a.requires_grad() ? empty_tensor(a.shape()) : Tensor();
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
      Saved::nothing());
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
