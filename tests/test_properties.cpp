// Properties against plain reference loops written here: for randomly drawn shapes (seeded),
// broadcasting arithmetic, matmul, softmax, reductions and attention agree with triple loops,
// in value and in gradient (for a random upstream gradient G, the vector-Jacobian product).
//
// Thresholds: a sum of n terms computed in another order differs by at most about
// n·u·Σ|terms|, u = 2^-53; we allow 4·n·u·Σ|terms| per element (and exact agreement where the
// library does the same single operation as the loop).

#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

namespace {

constexpr double u = 0x1p-53;

// A random shape of 0 to `max_dims` dimensions with sizes 1 to `max_size`.
Shape random_shape(Generator& g, int max_dims, int max_size) {
  Shape s(static_cast<std::size_t>(g.randint(0, max_dims + 1)));
  for (auto& d : s) d = g.randint(1, max_size + 1);
  return s;
}

// A shape that broadcasts to `out`: some leading dimensions dropped, some sizes set to 1.
Shape broadcastable_to(Generator& g, const Shape& out) {
  Shape s(out.begin() + g.randint(0, static_cast<std::int64_t>(out.size()) + 1), out.end());
  for (auto& d : s)
    if (g.uniform() < 0.3) d = 1;
  return s;
}

// Row-major offset in `shape` of the element that output index `index` (of shape `out`) reads.
std::int64_t broadcast_offset(const Shape& shape, const Shape& out, const std::vector<std::int64_t>& index) {
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < shape.size(); ++k) {
    const std::int64_t i = index[out.size() - shape.size() + k];
    offset = offset * shape[k] + (shape[k] == 1 ? 0 : i);
  }
  return offset;
}

std::vector<std::int64_t> unravel(std::int64_t flat, const Shape& shape) {
  std::vector<std::int64_t> index(shape.size());
  for (std::size_t k = shape.size(); k-- > 0;) {
    index[k] = flat % shape[k];
    flat /= shape[k];
  }
  return index;
}

// |a - b| <= tolerance[i] for every element.
bool within(const Tensor& a, const std::vector<double>& b, const std::vector<double>& tolerance) {
  if (a.numel() != static_cast<std::int64_t>(b.size())) return false;
  for (std::size_t i = 0; i < b.size(); ++i)
    if (!(std::fabs(a.data()[i] - b[i]) <= tolerance[i])) return false;
  return true;
}

}  // namespace

TEST_CASE(
    "property: broadcasting add, sub, mul and div agree with loops over the broadcast index, in value and gradient, "
    "for 300 random shapes") {
  Generator g(100);
  int cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const Shape out = random_shape(g, 4, 4);
    const Shape sa = broadcastable_to(g, out), sb = broadcastable_to(g, out);
    const Shape result = broadcast_shapes("test", sa, sb);
    const Tensor a = uniform(sa, 0.5, 2, g).requires_grad_(), b = uniform(sb, 0.5, 2, g).requires_grad_();
    const Tensor G = randn(result, g);
    const int op = static_cast<int>(g.randint(0, 4));
    const Tensor y = op == 0 ? a + b : op == 1 ? a - b : op == 2 ? a * b : a / b;
    (sum(y * G)).backward();
    std::vector<double> ref(y.numel()), ga(a.numel(), 0), gb(b.numel(), 0), ta(a.numel(), 0), tb(b.numel(), 0);
    for (std::int64_t i = 0; i < y.numel(); ++i) {
      const auto index = unravel(i, result);
      const std::int64_t ia = broadcast_offset(sa, result, index), ib = broadcast_offset(sb, result, index);
      const double x = a.data()[ia], z = b.data()[ib], gi = G.data()[i];
      ref[i] = op == 0 ? x + z : op == 1 ? x - z : op == 2 ? x * z : x / z;
      const double da = op < 2 ? 1 : op == 2 ? z : 1 / z, db = op == 0 ? 1 : op == 1 ? -1 : op == 2 ? x : -x / (z * z);
      ga[ia] += gi * da, gb[ib] += gi * db;
      ta[ia] += 4 * u * std::fabs(gi * da) * static_cast<double>(y.numel()),
          tb[ib] += 4 * u * std::fabs(gi * db) * static_cast<double>(y.numel());
    }
    CHECK(within(y, ref, std::vector<double>(ref.size(), 0.0)));  // one operation each: exact
    CHECK(within(a.grad(), ga, ta));
    CHECK(within(b.grad(), gb, tb));
    ++cases;
  }
  CHECK(cases == 300);
}

TEST_CASE(
    "property: batched, broadcast matmul agrees with the triple loop, in value and both gradients, for 200 random "
    "shapes") {
  Generator g(101);
  for (int trial = 0; trial < 200; ++trial) {
    const Shape batch = random_shape(g, 2, 3);
    const std::int64_t n = g.randint(1, 7), k = g.randint(1, 7), m = g.randint(1, 7);
    Shape sa = broadcastable_to(g, batch), sb = broadcastable_to(g, batch);
    sa.push_back(n), sa.push_back(k), sb.push_back(k), sb.push_back(m);
    const Tensor a = randn(sa, g).requires_grad_(), b = randn(sb, g).requires_grad_();
    const Tensor c = matmul(a, b);
    const Shape cb(c.shape().begin(), c.shape().end() - 2), ab(sa.begin(), sa.end() - 2), bb(sb.begin(), sb.end() - 2);
    const Tensor G = randn(c.shape(), g);
    sum(c * G).backward();
    std::vector<double> ref(c.numel()), tol(c.numel()), ga(a.numel(), 0), gb(b.numel(), 0), tga(a.numel(), 0),
        tgb(b.numel(), 0);
    for (std::int64_t bi = 0; bi < numel(cb); ++bi) {
      const auto index = unravel(bi, cb);
      const std::int64_t oa = broadcast_offset(ab, cb, index) * n * k, ob = broadcast_offset(bb, cb, index) * k * m;
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < m; ++j) {
          double s = 0, scale = 0;
          const double gij = G.data()[(bi * n + i) * m + j];
          for (std::int64_t p = 0; p < k; ++p) {
            const double x = a.data()[oa + i * k + p], z = b.data()[ob + p * m + j];
            s += x * z, scale += std::fabs(x * z);
            ga[oa + i * k + p] += gij * z, gb[ob + p * m + j] += gij * x;
            tga[oa + i * k + p] += 4 * u * std::fabs(gij * z) * static_cast<double>(m * numel(cb));
            tgb[ob + p * m + j] += 4 * u * std::fabs(gij * x) * static_cast<double>(n * numel(cb));
          }
          ref[(bi * n + i) * m + j] = s, tol[(bi * n + i) * m + j] = 4 * u * static_cast<double>(k) * scale;
        }
    }
    CHECK(within(c, ref, tol));
    CHECK(within(a.grad(), ga, tga));
    CHECK(within(b.grad(), gb, tgb));
  }
}

TEST_CASE(
    "property: softmax and log_softmax along a random dimension agree with loops, in value and gradient, for 200 "
    "random shapes") {
  Generator g(102);
  for (int trial = 0; trial < 200; ++trial) {
    Shape s = random_shape(g, 3, 5);
    s.push_back(g.randint(1, 7));
    const std::int64_t d = g.randint(0, static_cast<std::int64_t>(s.size()));
    const Tensor x = (randn(s, g) * 3.0).detach().requires_grad_();
    const bool log_form = g.uniform() < 0.5;
    const Tensor y = log_form ? log_softmax(x, d) : softmax(x, d);
    const Tensor G = randn(s, g);
    sum(y * G).backward();
    std::int64_t outer = 1, inner = 1, len = s[d];
    for (std::int64_t i = 0; i < d; ++i) outer *= s[i];
    for (std::size_t i = d + 1; i < s.size(); ++i) inner *= s[i];
    std::vector<double> ref(x.numel()), grad(x.numel());
    for (std::int64_t o = 0; o < outer; ++o)
      for (std::int64_t in = 0; in < inner; ++in) {
        auto at = [&](std::int64_t j) { return (o * len + j) * inner + in; };
        double mx = -INFINITY, total = 0, gsum = 0, gy = 0;
        for (std::int64_t j = 0; j < len; ++j) mx = std::max(mx, x.data()[at(j)]);
        for (std::int64_t j = 0; j < len; ++j) total += std::exp(x.data()[at(j)] - mx);
        for (std::int64_t j = 0; j < len; ++j) {
          const double p = std::exp(x.data()[at(j)] - mx) / total;
          ref[at(j)] = log_form ? x.data()[at(j)] - mx - std::log(total) : p;
          gsum += G.data()[at(j)], gy += G.data()[at(j)] * p;
        }
        for (std::int64_t j = 0; j < len; ++j) {
          const double p = std::exp(x.data()[at(j)] - mx) / total;
          grad[at(j)] = log_form ? G.data()[at(j)] - p * gsum : p * (G.data()[at(j)] - gy);
        }
      }
    // Values of size at most ~20 (log form) or 1, from a handful of operations each.
    CHECK(within(y, ref, std::vector<double>(ref.size(), 64 * u * 20)));
    CHECK(within(x.grad(), grad, std::vector<double>(grad.size(), 64 * u * 20 * static_cast<double>(len))));
  }
}

TEST_CASE(
    "property: sum, mean and max over random dimensions agree with loops, in value and gradient, for 300 random "
    "shapes") {
  Generator g(103);
  for (int trial = 0; trial < 300; ++trial) {
    Shape s = random_shape(g, 3, 4);
    s.push_back(g.randint(1, 5));
    const Tensor x = randn(s, g).requires_grad_();
    const int kind = static_cast<int>(g.randint(0, 3));
    std::vector<bool> reduced(s.size(), false);
    std::vector<std::int64_t> dims;
    const std::int64_t max_dim = g.randint(0, static_cast<std::int64_t>(s.size()));
    if (kind == 2)
      reduced[max_dim] = true, dims.push_back(max_dim);
    else
      for (std::size_t i = 0; i < s.size(); ++i)
        if (g.uniform() < 0.5) reduced[i] = true, dims.push_back(static_cast<std::int64_t>(i));
    if (dims.empty()) reduced.assign(s.size(), true);  // an empty list reduces everything, as torch
    const bool keepdim = g.uniform() < 0.5;
    const Tensor y = kind == 0   ? sum(x, dims, keepdim)
                     : kind == 1 ? mean(x, dims, keepdim)
                                 : max(x, max_dim, keepdim).values;
    Shape kept = s;
    for (std::size_t i = 0; i < s.size(); ++i)
      if (reduced[i]) kept[i] = 1;
    REQUIRE(y.numel() == numel(kept));
    const Tensor G = randn(y.shape(), g);
    sum(y * G).backward();
    std::vector<double> ref(y.numel(), kind == 2 ? -INFINITY : 0.0), count(y.numel(), 0), grad(x.numel(), 0);
    std::vector<std::int64_t> best(y.numel(), -1);
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      const std::int64_t o = broadcast_offset(kept, s, unravel(i, s));
      count[o] += 1;
      if (kind == 2) {
        if (x.data()[i] > ref[o]) ref[o] = x.data()[i], best[o] = i;
      } else {
        ref[o] += x.data()[i];
      }
    }
    for (std::int64_t o = 0; o < y.numel(); ++o)
      if (kind == 1) ref[o] /= count[o];
    for (std::int64_t i = 0; i < x.numel(); ++i) {
      const std::int64_t o = broadcast_offset(kept, s, unravel(i, s));
      grad[i] = kind == 0 ? G.data()[o] : kind == 1 ? G.data()[o] / count[o] : (best[o] == i ? G.data()[o] : 0.0);
    }
    const double n = static_cast<double>(x.numel());
    CHECK(within(y, ref, std::vector<double>(ref.size(), 4 * u * n * 4)));  // |x| < ~4 for these draws
    CHECK(within(x.grad(), grad, std::vector<double>(grad.size(), 4 * u * 4)));
  }
}

TEST_CASE(
    "property: scaled dot-product attention agrees with loops, in value and in the gradients of query, key and value, "
    "for 100 random shapes") {
  Generator g(104);
  for (int trial = 0; trial < 100; ++trial) {
    const std::int64_t B = g.randint(1, 3), L = g.randint(1, 6), S = g.randint(1, 6), E = g.randint(1, 5),
                       V = g.randint(1, 4);
    const Tensor q = randn({B, L, E}, g).requires_grad_(), k = randn({B, S, E}, g).requires_grad_(),
                 v = randn({B, S, V}, g).requires_grad_();
    const auto [out, w] = scaled_dot_product_attention(q, k, v);
    const Tensor G = randn(out.shape(), g);
    sum(out * G).backward();
    std::vector<double> rout(out.numel(), 0), rw(w.numel()), gq(q.numel(), 0), gk(k.numel(), 0), gv(v.numel(), 0);
    const double scale = std::sqrt(static_cast<double>(E));
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t i = 0; i < L; ++i) {
        std::vector<double> s(S), p(S), dp(S);
        double mx = -INFINITY, total = 0;
        for (std::int64_t j = 0; j < S; ++j) {
          s[j] = 0;
          for (std::int64_t e = 0; e < E; ++e) s[j] += q.at({b, i, e}) * k.at({b, j, e}) / scale;
          mx = std::max(mx, s[j]);
        }
        for (std::int64_t j = 0; j < S; ++j) total += std::exp(s[j] - mx);
        for (std::int64_t j = 0; j < S; ++j) p[j] = std::exp(s[j] - mx) / total, rw[(b * L + i) * S + j] = p[j];
        double dot = 0;
        for (std::int64_t j = 0; j < S; ++j) {
          dp[j] = 0;
          for (std::int64_t c = 0; c < V; ++c) {
            rout[(b * L + i) * V + c] += p[j] * v.at({b, j, c});
            dp[j] += G.at({b, i, c}) * v.at({b, j, c});
            gv[(b * S + j) * V + c] += p[j] * G.at({b, i, c});
          }
          dot += dp[j] * p[j];
        }
        for (std::int64_t j = 0; j < S; ++j) {
          const double ds = p[j] * (dp[j] - dot) / scale;  // through the softmax, then the scale
          for (std::int64_t e = 0; e < E; ++e) {
            gq[(b * L + i) * E + e] += ds * k.at({b, j, e});
            gk[(b * S + j) * E + e] += ds * q.at({b, i, e});
          }
        }
      }
    // Values of order 1, each from at most a few dozen operations; 1e-13 is about 900 u.
    CHECK(within(out, rout, std::vector<double>(rout.size(), 1e-13)));
    CHECK(within(w, rw, std::vector<double>(rw.size(), 1e-13)));
    CHECK(within(q.grad(), gq, std::vector<double>(gq.size(), 1e-12)));
    CHECK(within(k.grad(), gk, std::vector<double>(gk.size(), 1e-12)));
    CHECK(within(v.grad(), gv, std::vector<double>(gv.size(), 1e-12)));
  }
}
