// Elementwise operations. Each one is its forward formula next to its derivative: the helpers
// `unary` and `binary` do the recording, and the kernels (kernels/elementwise.hpp) the looping
// and the broadcasting.

#include "litgrad/elementwise.hpp"

#include <algorithm>
#include <cmath>

#include "litgrad/detail/node.hpp"
#include "litgrad/detail/tensor_impl.hpp"
#include "litgrad/error.hpp"
#include "litgrad/kernels/elementwise.hpp"

namespace litgrad {

namespace {

using detail::empty_tensor;
using detail::uninitialized_tensor;

// y = f(x) elementwise; dx = df(x, y, dy) elementwise.  x: any shape; y, dy: x's shape.
template <class F, class DF>
Tensor unary(const char* op, const Tensor& x, F f, DF df) {
  Tensor y = uninitialized_tensor(x.shape());
  kernels::map(x.numel(), x.data(), y.data(), f);
  return detail::record(op, y, {x}, [x, y, df](const Tensor& g) -> std::vector<Tensor> {
    Tensor gx = uninitialized_tensor(x.shape());
    kernels::map_backward(x.numel(), x.data(), y.data(), g.data(), gx.data(), df);
    return {gx};
  });
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
// added into the element of a (of b) that produced it: that sum is the un-broadcasting.
template <class F, class DFA, class DFB>
Tensor binary(const char* op, const Tensor& a, const Tensor& b, F f, DFA dfa, DFB dfb) {
  Tensor y = broadcast_apply(op, a, b, f);
  return detail::record(op, y, {a, b}, [a, b, dfa, dfb](const Tensor& g) -> std::vector<Tensor> {
    // Only for the operands that need one (an attention mask, say, needs none).
    Tensor ga = a.requires_grad() ? empty_tensor(a.shape()) : Tensor();
    Tensor gb = b.requires_grad() ? empty_tensor(b.shape()) : Tensor();
    if (ga.defined()) kernels::zip_backward<0>(g.shape(), a.data(), a.shape(), b.data(), b.shape(), g.data(), ga.data(), dfa);
    if (gb.defined()) kernels::zip_backward<1>(g.shape(), a.data(), a.shape(), b.data(), b.shape(), g.data(), gb.data(), dfb);
    return {ga, gb};
  });
}

void require_bool(const char* op, const char* what, const Tensor& t) {
  if (t.dtype() != DType::Bool)
    throw ValueError(std::string(op) + ": " + what + " must be a Bool tensor, got " + to_string(t.dtype()) +
                     " of shape " + to_string(t.shape()) + " (compare with eq/lt/gt, or use to(x, DType::Bool))");
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Arithmetic. a, b: shapes that broadcast; result: broadcast(a, b).

Tensor add(const Tensor& a, const Tensor& b) {
  return binary("add", a, b, [](double x, double y) { return x + y; },
                [](double, double, double g) { return g; },    // d(a+b)/da = 1
                [](double, double, double g) { return g; });   // d(a+b)/db = 1
}

Tensor sub(const Tensor& a, const Tensor& b) {
  return binary("sub", a, b, [](double x, double y) { return x - y; },
                [](double, double, double g) { return g; },    // d(a-b)/da = 1
                [](double, double, double g) { return -g; });  // d(a-b)/db = -1
}

Tensor mul(const Tensor& a, const Tensor& b) {
  return binary("mul", a, b, [](double x, double y) { return x * y; },
                [](double, double y, double g) { return g * y; },   // d(ab)/da = b
                [](double x, double, double g) { return g * x; });  // d(ab)/db = a
}

Tensor div(const Tensor& a, const Tensor& b) {
  return binary("div", a, b, [](double x, double y) { return x / y; },
                [](double, double y, double g) { return g / y; },              // d(a/b)/da = 1/b
                [](double x, double y, double g) { return -g * x / (y * y); });  // d(a/b)/db = -a/b²
}

// ---------------------------------------------------------------------------------------------
// Functions. x: any shape; result: x's shape.

Tensor neg(const Tensor& x) {
  return unary("neg", x, [](double v) { return -v; },
               [](double, double, double g) { return -g; });  // d(-x)/dx = -1
}

Tensor pow(const Tensor& x, double p) {
  if (p == 2.0)  // the common square as one multiplication, as torch computes it
    return unary("pow", x, [](double v) { return v * v; }, [](double v, double, double g) { return g * 2.0 * v; });
  return unary("pow", x, [p](double v) { return std::pow(v, p); },
               [p](double v, double, double g) { return p == 0.0 ? 0.0 : g * p * std::pow(v, p - 1); });
}

Tensor exp(const Tensor& x) {
  return unary("exp", x, [](double v) { return std::exp(v); },
               [](double, double y, double g) { return g * y; });  // d e^x/dx = e^x = y
}

Tensor log(const Tensor& x) {
  return unary("log", x, [](double v) { return std::log(v); },
               [](double v, double, double g) { return g / v; });  // d ln x/dx = 1/x
}

Tensor tanh(const Tensor& x) {
  return unary("tanh", x, [](double v) { return std::tanh(v); },
               [](double, double y, double g) { return g * (1 - y * y); });  // 1 - tanh²
}

Tensor sigmoid(const Tensor& x) {
  return unary("sigmoid", x, [](double v) { return 1 / (1 + std::exp(-v)); },
               [](double, double y, double g) { return g * y * (1 - y); });  // σ(1-σ)
}

Tensor abs(const Tensor& x) {
  return unary("abs", x, [](double v) { return std::fabs(v); },
               [](double v, double, double g) { return v > 0 ? g : v < 0 ? -g : 0.0; });  // sign(x)
}

Tensor relu(const Tensor& x) {
  // Written as "v <= 0 ? 0 : v" so that a NaN passes through, as torch (NaN <= 0 is false).
  return unary("relu", x, [](double v) { return v <= 0 ? 0.0 : v; },
               [](double v, double, double g) { return v <= 0 ? 0.0 : g; });
}

Tensor sin(const Tensor& x) {
  return unary("sin", x, [](double v) { return std::sin(v); },
               [](double v, double, double g) { return g * std::cos(v); });
}

Tensor cos(const Tensor& x) {
  return unary("cos", x, [](double v) { return std::cos(v); },
               [](double v, double, double g) { return -g * std::sin(v); });
}

Tensor sqrt(const Tensor& x) {
  return unary("sqrt", x, [](double v) { return std::sqrt(v); },
               [](double, double y, double g) { return g / (2 * y); });  // d sqrt(x)/dx = 1/(2 sqrt x)
}

Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max) {
  if (!min && !max) throw ValueError("clamp: give at least one of min and max");
  const double lo = min.value_or(-INFINITY), hi = max.value_or(INFINITY);
  // torch's rule: min(max(x, lo), hi), so hi wins when lo > hi; a NaN stays NaN.
  return unary("clamp", x, [lo, hi](double v) { return std::isnan(v) ? v : v < lo ? std::min(lo, hi) : v > hi ? hi : v; },
               [lo, hi](double v, double, double g) { return v >= lo && v <= hi ? g : 0.0; });
}

Tensor gelu(const Tensor& x, const std::string& approximate) {
  constexpr double kSqrtHalf = 0.70710678118654752440, kInvSqrt2Pi = 0.39894228040143267794;
  constexpr double kSqrt2OverPi = 0.79788456080286535588, kCubic = 0.044715;
  if (approximate == "none")  // y = x Φ(x);  dy/dx = Φ(x) + x φ(x)
    return unary("gelu", x, [](double v) { return 0.5 * v * (1 + std::erf(v * kSqrtHalf)); },
                 [](double v, double, double g) {
                   return g * (0.5 * (1 + std::erf(v * kSqrtHalf)) + v * kInvSqrt2Pi * std::exp(-0.5 * v * v));
                 });
  if (approximate == "tanh")  // y = x (1 + t) / 2, t = tanh(k (x + c x³));  dy/dx = (1 + t)/2 + x (1 - t²) k (1 + 3c x²) / 2
    return unary("gelu", x,
                 [](double v) { return 0.5 * v * (1 + std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v))); },
                 [](double v, double, double g) {
                   const double t = std::tanh(kSqrt2OverPi * (v + kCubic * v * v * v));
                   return g * (0.5 * (1 + t) + 0.5 * v * (1 - t * t) * kSqrt2OverPi * (1 + 3 * kCubic * v * v));
                 });
  throw ValueError("gelu: approximate must be \"none\" or \"tanh\", got \"" + approximate + "\"");
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

// ---------------------------------------------------------------------------------------------
// where(condition, a, b): all three broadcast together.

Tensor where(const Tensor& c, const Tensor& a, const Tensor& b) {
  require_bool("where", "the condition", c);
  const Shape out = broadcast_shapes("where", c.shape(), broadcast_shapes("where", a.shape(), b.shape()));
  Tensor y = uninitialized_tensor(out);
  kernels::select(out, c.data(), c.shape(), a.data(), a.shape(), b.data(), b.shape(), y.data());
  return detail::record("where", y, {a, b}, [c, a, b](const Tensor& g) -> std::vector<Tensor> {
    Tensor ga = a.requires_grad() ? empty_tensor(a.shape()) : Tensor();
    Tensor gb = b.requires_grad() ? empty_tensor(b.shape()) : Tensor();
    kernels::select_backward(g.shape(), c.data(), c.shape(), a.shape(), b.shape(), g.data(),
                             ga.defined() ? ga.data() : nullptr, gb.defined() ? gb.data() : nullptr);
    return {ga, gb};
  });
}

// masked_fill is where() with the fill value as a 0-dimensional tensor, once the mask is known
// to broadcast to x without growing it.
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value) {
  require_bool("masked_fill", "the mask", mask);
  if (broadcast_shapes("masked_fill", x.shape(), mask.shape()) != x.shape())
    throw ShapeError("masked_fill: mask of shape " + to_string(mask.shape()) +
                     " does not broadcast to the input's shape " + to_string(x.shape()));
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
Tensor operator+(const Tensor& a, double b) { return add(a, scalar_tensor(b)); }
Tensor operator-(const Tensor& a, double b) { return sub(a, scalar_tensor(b)); }
Tensor operator*(const Tensor& a, double b) { return mul(a, scalar_tensor(b)); }
Tensor operator/(const Tensor& a, double b) { return div(a, scalar_tensor(b)); }
Tensor operator+(double a, const Tensor& b) { return add(scalar_tensor(a), b); }
Tensor operator-(double a, const Tensor& b) { return sub(scalar_tensor(a), b); }
Tensor operator*(double a, const Tensor& b) { return mul(scalar_tensor(a), b); }
Tensor operator/(double a, const Tensor& b) { return div(scalar_tensor(a), b); }

}  // namespace litgrad
