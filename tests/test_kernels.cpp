// The harness of the two rooms (lib/litgrad/kernels/room.hpp): every fast kernel is held to its
// plain twin, bit for bit, over random shapes, edge tiles and zero sizes included, and over the
// awkward numbers where a reordering would show (+0 and -0, products that cancel, inf, NaN).
// A NaN may differ from its twin only in which NaN it is: which of two NaNs an addition passes
// on depends on the order of its operands, which a compiler may swap.
// Only a build with the fast kernels (LITGRAD_FAST, the default) has two rooms to compare.

#if LITGRAD_FAST

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include <litgrad/kernels/attention.hpp>
#include <litgrad/kernels/broadcast.hpp>
#include <litgrad/kernels/lanes.hpp>
#include <litgrad/kernels/memory.hpp>
#include <litgrad/kernels/product.hpp>
#include <litgrad/kernels/reduce.hpp>
#include <litgrad/kernels/softmax.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
namespace plain = litgrad::kernels::plain;
namespace fast = litgrad::kernels::fast;

namespace {

using Numbers = std::vector<double>;

// The index of the first element whose bits differ (any NaN matching any NaN), or -1.
std::int64_t first_difference(const double* x, const double* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) {
    if (std::isnan(x[i]) && std::isnan(y[i])) continue;
    if (std::memcmp(x + i, y + i, sizeof(double)) != 0) return i;
  }
  return -1;
}
std::int64_t first_difference(const Numbers& x, const Numbers& y) {
  return x.size() != y.size() ? 0 : first_difference(x.data(), y.data(), static_cast<std::int64_t>(x.size()));
}

// Random normals, and with probability `odd` each replaced by +0, -0, 1 or -1 (whose products
// cancel to zeros of either sign); with `poison`, some by inf, -inf or NaN.
Numbers awkward(std::int64_t count, Generator& gen, bool poison = false, double odd = 0.2) {
  Numbers v(static_cast<std::size_t>(count));
  for (double& x : v) {
    x = gen.normal();
    if (gen.uniform() >= odd) continue;
    switch (gen.randint(0, poison ? 7 : 4)) {
      case 0: x = 0.0; break;
      case 1: x = -0.0; break;
      case 2: x = 1.0; break;
      case 3: x = -1.0; break;
      case 4: x = INFINITY; break;
      case 5: x = -INFINITY; break;
      default: x = NAN; break;
    }
  }
  return v;
}

}  // namespace

TEST_CASE("the fast matrix products give the plain products' bits, for every path, transpose and mode") {
  // Sizes reach every path of plan(): tiny products, short sums, few outputs (whose last m % 4
  // columns the fast room computes four rows to a register), Eigen's GEMM at and around its
  // tiles (24 x 4 here) and their edges, sums longer than one block of kDepthBlock terms, and
  // zero sizes. Zero terms in the shapes attention makes let the fast room leave terms out; the
  // columns a causal query needs let it leave columns out.
  Generator gen(20261201);
  const std::vector<std::int64_t> sizes = {0,  1,  2,  3,  4,  5,  7,  8,  9,  15,  16, 17,
                                           23, 24, 25, 31, 32, 33, 48, 63, 64, 100, 130};
  const std::vector<std::int64_t> sums = {16, 511, 512, 513, 1024, 1200};  // around kDepthBlock
  int compared = 0, gemm = 0, blocked = 0, partial = 0, narrow = 0;
  for (int trial = 0; trial < 900; ++trial) {
    auto pick = [&](const std::vector<std::int64_t>& from) {
      return from[static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(from.size())))];
    };
    const bool long_sum = trial % 9 == 0;  // past one block of terms, for GEMM's sizes
    // Long sums at GEMM's sizes, and (every other time) with a few rows or columns, which the
    // fast room sends through a padded GEMM.
    const std::int64_t wide = long_sum && trial % 18 == 0 ? 0 : 16;
    const std::int64_t n = long_sum ? wide + pick(sizes) : pick(sizes), m = long_sum ? wide + pick(sizes) : pick(sizes);
    const std::int64_t k = long_sum ? pick(sums) : pick(sizes);
    const bool ta = gen.randint(0, 2) == 1, tb = gen.randint(0, 2) == 1, overwrite = gen.randint(0, 2) == 1;
    const bool poison = gen.randint(0, 5) == 0, causal = trial % 4 == 0 && !ta;
    CAPTURE(trial);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    CAPTURE(ta);
    CAPTURE(tb);
    CAPTURE(overwrite);
    // op(A) is n x k; a causal one is zero after its diagonal, as attention's weights are.
    Numbers op_a = awkward(n * k, gen, poison), a(op_a.size());
    if (causal)
      for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t p = i + 1; p < k; ++p) op_a[static_cast<std::size_t>(i * k + p)] = 0.0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t p = 0; p < k; ++p)
        a[static_cast<std::size_t>(ta ? p * n + i : i * k + p)] = op_a[static_cast<std::size_t>(i * k + p)];
    const Numbers b = awkward(k * m, gen, poison), start = awkward(n * m, gen);
    const std::int64_t ar = ta ? k : n, ac = ta ? n : k, br = tb ? m : k, bc = tb ? k : m;
    Numbers fast_c = start, plain_c = start;
    fast::Product(n, k, m, overwrite).add(fast_c.data(), {a.data(), ar, ac, ta}, {b.data(), br, bc, tb});
    plain::Product(n, k, m, overwrite).add(plain_c.data(), {a.data(), ar, ac, ta}, {b.data(), br, bc, tb});
    CHECK(first_difference(fast_c, plain_c) == -1);
    // Only some columns of each row asked for (a causal query's keys, or at random): every
    // element written has the whole product's bits.
    if (overwrite && !ta) {
      std::vector<std::int64_t> asked(static_cast<std::size_t>(n)), columns;
      for (std::int64_t i = 0; i < n; ++i)
        asked[static_cast<std::size_t>(i)] = causal ? std::min(m, i + 1) : gen.randint(0, m + 1);
      columns = asked;
      Numbers part(static_cast<std::size_t>(n * m), NAN);
      fast::Product(n, k, m, true).add(part.data(), {a.data(), ar, ac, ta}, {b.data(), br, bc, tb}, columns.data());
      for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t c = columns[static_cast<std::size_t>(i)];
        CHECK(c >= asked[static_cast<std::size_t>(i)]);
        CHECK(c <= m);
        CHECK(first_difference(part.data() + i * m, plain_c.data() + i * m, c) == -1);
        partial += c < m;
      }
    }
    const kernels::ProductPlan plan = kernels::plan(n, k, m);
    gemm += plan.path == kernels::ProductPlan::Path::Gemm;
    blocked += k > plan.block;
    narrow += plan.path == kernels::ProductPlan::Path::Small && n >= 4 && m % 4 != 0 && (ta ? k > 0 : k >= 4);
    ++compared;
  }
  // Chapter 1 says its 70 x 40 by 40 x 50 product is large enough for Eigen's blocked kernels.
  CHECK(kernels::plan(70, 40, 50).path == kernels::ProductPlan::Path::Gemm);
  CHECK(compared == 900);
  CHECK(gemm >= 50);     // GEMM was exercised
  CHECK(blocked >= 30);  // and sums of several blocks
  // and rows left partly unwritten, where the fast room has its own products (kOwnProducts)
  CHECK(partial >= (fast::kOwnProducts ? 50 : 0));
  CHECK(narrow >= 100);  // and small products' last columns, four rows to a register
}

// The chain of kernels/product.hpp written out with std::fma (which IEEE 754 defines as
// rounding once, so every CPU and every build computes it alike), or with a product rounded
// before the sum when `fused` is false: C = A B for row-major A (n x k) and B (k x m).
Numbers chain_product(const Numbers& a, const Numbers& b, std::int64_t n, std::int64_t k, std::int64_t m, bool fused) {
  Numbers c(static_cast<std::size_t>(n * m));
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      double total = 0.0;
      for (std::int64_t p0 = 0; p0 < k; p0 += kernels::kDepthBlock) {
        double s = 0.0;
        for (std::int64_t p = p0; p < std::min(k, p0 + kernels::kDepthBlock); ++p) {
          const double x = a[static_cast<std::size_t>(i * k + p)], y = b[static_cast<std::size_t>(p * m + j)];
          s = fused ? std::fma(x, y, s) : s + x * y;
        }
        total = total + s;
      }
      c[static_cast<std::size_t>(i * m + j)] = total;
    }
  return c;
}

TEST_CASE("every step of a product's sums is a fused multiply-add, in both rooms, in a build for any CPU") {
  // A build for a CPU without FMA (LITGRAD_NATIVE=OFF) once rounded each product before its
  // sum, so the kept long run's bits (chapters/payoff/) depended on the CPU the build was for;
  // the rooms agreed with each other there, so only a reference of our own catches it. Sizes
  // reach small products, Eigen's GEMM, and sums of more than one block.
  Generator gen(20261206);
  const std::vector<std::array<std::int64_t, 3>> shapes = {{3, 5, 2},      {7, 40, 9},     {1, 100, 1},  {40, 64, 48},
                                                           {130, 100, 33}, {20, 1100, 30}, {64, 513, 64}};
  std::int64_t unfused_differs = 0;
  for (const auto& [n, k, m] : shapes) {
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    const Numbers a = awkward(n * k, gen, false, 0.0), b = awkward(k * m, gen, false, 0.0);
    const Numbers fused = chain_product(a, b, n, k, m, true), unfused = chain_product(a, b, n, k, m, false);
    Numbers fast_c(fused.size()), plain_c(fused.size());
    fast::Product(n, k, m, true).add(fast_c.data(), {a.data(), n, k}, {b.data(), k, m});
    plain::Product(n, k, m, true).add(plain_c.data(), {a.data(), n, k}, {b.data(), k, m});
    CHECK(first_difference(plain_c, fused) == -1);
    CHECK(first_difference(fast_c, fused) == -1);
    for (std::size_t e = 0; e < fused.size(); ++e) unfused_differs += fused[e] != unfused[e];
  }
  // The check can fail: on these inputs most sums of more than a few terms round differently
  // unfused.
  CHECK(unfused_differs >= 1000);
}

// Row i of op(A) op(B) (A n x k, not transposed) computed alone and among all n rows: the
// first element where the two differ, or -1.
template <class RoomProduct>
std::int64_t row_alone_against_among(const Numbers& a, const Numbers& b, std::int64_t n, std::int64_t k, std::int64_t m,
                                     bool tb, std::int64_t i) {
  const std::int64_t br = tb ? m : k, bc = tb ? k : m;
  Numbers all(static_cast<std::size_t>(n * m)), one(static_cast<std::size_t>(m));
  RoomProduct(n, k, m, true).add(all.data(), {a.data(), n, k}, {b.data(), br, bc, tb});
  RoomProduct(1, k, m, true).add(one.data(), {a.data() + i * k, 1, k}, {b.data(), br, bc, tb});
  return first_difference(one.data(), all.data() + i * m, m);
}

TEST_CASE("a row of a product has the same bits computed alone or among any number of rows, in both rooms") {
  // What a KV cache rests on: a decoder that feeds one new token through a layer computes a
  // 1 x k times k x m product, where recomputing the sequence computes n x k times k x m; the
  // plan's order depends on k alone, so the new row is the same bits either way.
  Generator gen(20261202);
  const std::vector<std::int64_t> sizes = {1, 2, 3, 7, 8, 9, 16, 17, 24, 25, 33, 64, 100, 513, 1100};
  int compared = 0;
  for (int trial = 0; trial < 300; ++trial) {
    auto pick = [&](const std::vector<std::int64_t>& from) {
      return from[static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(from.size())))];
    };
    const std::int64_t n = 1 + pick(sizes) % 70, k = pick(sizes), m = 1 + pick(sizes) % 130;
    const bool tb = gen.randint(0, 2) == 1;
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    CAPTURE(tb);
    const Numbers a = awkward(n * k, gen), b = awkward(k * m, gen);
    const std::int64_t i = gen.randint(0, n);
    CHECK(row_alone_against_among<fast::Product>(a, b, n, k, m, tb, i) == -1);
    CHECK(row_alone_against_among<plain::Product>(a, b, n, k, m, tb, i) == -1);
    ++compared;
  }
  CHECK(compared == 300);
}

TEST_CASE("a product's sum of products that are all -0 is +0 in both rooms, as a sum started at +0 is") {
  for (const std::int64_t k : {1, 2, 3, 6, 20})
    for (const bool ta : {false, true})
      for (const std::int64_t m : {1, 8, 40}) {
        const std::int64_t n = 100;
        const Numbers a(static_cast<std::size_t>(n * k), -0.0), b(static_cast<std::size_t>(k * m), 1.0);
        Numbers fast_c(static_cast<std::size_t>(n * m), 5.0), plain_c = fast_c;
        fast::Product(n, k, m, true).add(fast_c.data(), {a.data(), ta ? k : n, ta ? n : k, ta}, {b.data(), k, m});
        plain::Product(n, k, m, true).add(plain_c.data(), {a.data(), ta ? k : n, ta ? n : k, ta}, {b.data(), k, m});
        CAPTURE(k);
        CAPTURE(ta);
        CAPTURE(m);
        CHECK(first_difference(fast_c, plain_c) == -1);
        bool all_plus_zero = true;
        for (double v : plain_c) all_plus_zero = all_plus_zero && v == 0.0 && !std::signbit(v);
        CHECK(all_plus_zero);
      }
}

TEST_CASE("both rooms walk a broadcast in the same order, with the same offsets") {
  // Random shapes of up to five dimensions, operands that lack dimensions or have size 1 in
  // them (merged, or not, by the fast walk), rows of 2 to 4 (unrolled), and zero sizes.
  Generator gen(5);
  int walked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t rank = gen.randint(0, 6);
    Shape out(static_cast<std::size_t>(rank));
    for (auto& s : out) s = trial % 37 == 0 ? gen.randint(0, 3) : gen.randint(1, 6);
    auto operand = [&] {
      Shape s;
      for (std::int64_t d = gen.randint(0, rank + 1); d > 0; --d) {
        const std::int64_t size = out[static_cast<std::size_t>(rank - d)];
        s.push_back(gen.randint(0, 3) == 0 ? 1 : size);
      }
      return s;
    };
    const Shape a = operand(), b = operand(), c = operand();
    CAPTURE(trial);
    using Visit = std::vector<std::int64_t>;
    Visit fast_visits, plain_visits;
    fast::for_each_broadcast<3>(out, {&a, &b, &c}, [&](std::int64_t i, const auto& o) {
      fast_visits.insert(fast_visits.end(), {i, o[0], o[1], o[2]});
    });
    plain::for_each_broadcast<3>(out, {&a, &b, &c}, [&](std::int64_t i, const auto& o) {
      plain_visits.insert(plain_visits.end(), {i, o[0], o[1], o[2]});
    });
    CHECK(fast_visits == plain_visits);
    CHECK(static_cast<std::int64_t>(plain_visits.size()) == 4 * numel(out));
    walked += numel(out) > 0;
  }
  CHECK(walked > 300);
}

TEST_CASE("the fast eight-lane sum gives the plain one's bits for every length") {
  Generator gen(8);
  for (std::int64_t n = 0; n < 200; ++n) {
    const Numbers x = awkward(n, gen, n % 5 == 0);
    const double f = fast::lane_sum(n, [&](std::int64_t j) { return x[static_cast<std::size_t>(j)]; });
    const double p = plain::lane_sum(n, [&](std::int64_t j) { return x[static_cast<std::size_t>(j)]; });
    CAPTURE(n);
    CHECK(first_difference(&f, &p, 1) == -1);
  }
}

TEST_CASE("the fast sums over dimensions and their gradients give the plain ones' bits, in every layout") {
  // Summed dimensions at the end (rows), together in the middle (a block, of few or of many
  // results per row), or apart (scattered), with dimensions of size 1 and 0 around them.
  Generator gen(9);
  int layouts[3] = {0, 0, 0}, wide_blocks = 0;
  for (int trial = 0; trial < 600; ++trial) {
    // A quarter each: the last dimensions summed, a run in the middle, two runs apart, and
    // any dimensions at all; sizes from 1 to 8 (some 0).
    const int kind = trial % 4;
    const std::int64_t rank = kind == 2 ? gen.randint(3, 6) : gen.randint(kind == 3 ? 0 : 1, 6);
    Shape shape(static_cast<std::size_t>(rank));
    for (auto& s : shape) s = trial % 41 == 0 ? gen.randint(0, 3) : gen.randint(2, 9);
    std::vector<bool> reduced(static_cast<std::size_t>(rank));
    const std::int64_t first = rank == 0 ? 0 : gen.randint(0, rank);
    const std::int64_t last = rank == 0 ? 0 : gen.randint(first, rank);  // summed: [first, last]
    for (std::int64_t d = 0; d < rank; ++d) {
      if (kind == 0) reduced[d] = d >= first;
      if (kind == 1) reduced[d] = d >= first && d <= last;
      if (kind == 2) reduced[d] = d == 0 || d == rank - 1;  // apart: the first and the last
      if (kind == 3) reduced[d] = gen.randint(0, 2) == 1;
    }
    CAPTURE(trial);
    const kernels::SumLayout layout = kernels::sum_layout(shape, reduced);
    const Numbers x = awkward(numel(shape), gen, trial % 7 == 0);
    Numbers fast_y(static_cast<std::size_t>(numel(layout.kept)), 7.0), plain_y = fast_y;
    fast::sum(x.data(), layout, fast_y.data());
    plain::sum(x.data(), layout, plain_y.data());
    CHECK(first_difference(fast_y, plain_y) == -1);
    const Numbers g = awkward(numel(layout.kept), gen);
    Numbers fast_dx(x.size(), 7.0), plain_dx = fast_dx;
    fast::sum_backward(g.data(), layout, fast_dx.data());
    plain::sum_backward(g.data(), layout, plain_dx.data());
    CHECK(first_difference(fast_dx, plain_dx) == -1);
    ++layouts[static_cast<int>(layout.kind)];
    wide_blocks += layout.kind == kernels::SumLayout::Kind::Block && layout.inner >= 8;
  }
  CHECK(layouts[0] >= 100);  // each layout was exercised
  CHECK(layouts[1] >= 100);
  CHECK(layouts[2] >= 100);
  CHECK(wide_blocks >= 30);  // blocks whose results the fast room sums as rows stream by
}

namespace {

// A softmax-like kernel along slices, forward and backward, in each room.
using SliceForward = void (*)(const double*, double*, std::int64_t, std::int64_t, std::int64_t);
using SliceBackward = void (*)(const double*, const double*, double*, std::int64_t, std::int64_t, std::int64_t);
struct SliceKernels {
  SliceForward fast, plain;
  SliceBackward fast_backward, plain_backward;
};

// The fast kernels against the plain ones over 400 random layouts [outer, n, inner]: rows
// (inner = 1) and strided slices, lengths around the eight lanes, awkward values (NaN and +inf
// in every ninth), and the -inf that `add_minus_inf` puts in. The backward is fed the plain
// forward's output.
void check_slice_kernels(
    std::uint64_t seed, const SliceKernels& k,
    const std::function<void(Numbers&, std::int64_t, std::int64_t, std::int64_t, int, Generator&)>& add_minus_inf) {
  Generator gen(seed);
  for (int trial = 0; trial < 400; ++trial) {
    const std::int64_t outer = gen.randint(0, 40), n = gen.randint(0, 70), inner = trial % 2 ? 1 : gen.randint(1, 5);
    CAPTURE(trial);
    CAPTURE(outer);
    CAPTURE(n);
    CAPTURE(inner);
    Numbers x = awkward(outer * n * inner, gen, trial % 9 == 0);
    add_minus_inf(x, outer, n, inner, trial, gen);
    Numbers fast_y(x.size()), plain_y(x.size());
    k.fast(x.data(), fast_y.data(), outer, n, inner);
    k.plain(x.data(), plain_y.data(), outer, n, inner);
    CHECK(first_difference(fast_y, plain_y) == -1);
    const Numbers g = awkward(static_cast<std::int64_t>(x.size()), gen);
    Numbers fast_dx(x.size()), plain_dx(x.size());
    k.fast_backward(plain_y.data(), g.data(), fast_dx.data(), outer, n, inner);
    k.plain_backward(plain_y.data(), g.data(), plain_dx.data(), outer, n, inner);
    CHECK(first_difference(fast_dx, plain_dx) == -1);
  }
}

}  // namespace

TEST_CASE("the fast softmax and its gradient give the plain ones' bits, along rows and strided slices") {
  // Rows take a block of rows at a time in the fast room. Slices ending in -inf (which the fast
  // room does not exponentiate), and all -inf (NaN).
  check_slice_kernels(
      10, {fast::softmax, plain::softmax, fast::softmax_backward, plain::softmax_backward},
      [](Numbers& x, std::int64_t outer, std::int64_t n, std::int64_t inner, int trial, Generator& gen) {
        for (std::int64_t o = 0; o < outer; ++o)
          for (std::int64_t c = 0; c < inner; ++c) {
            const std::int64_t tail = trial % 3 == 0 ? gen.randint(0, n + 1) : 0;  // -inf from n - tail
            for (std::int64_t j = n - tail; j < n; ++j)
              x[static_cast<std::size_t>((o * n + j) * inner + c)] = -INFINITY;
          }
      });
}

TEST_CASE("the fast log_softmax and its gradient give the plain ones' bits, along rows and strided slices") {
  // Rows take the fast room's vectorised loops, strided slices the plain loops on a thread's
  // range of slices. -inf anywhere, and whole slices of it.
  check_slice_kernels(12,
                      {fast::log_softmax, plain::log_softmax, fast::log_softmax_backward, plain::log_softmax_backward},
                      [](Numbers& x, std::int64_t, std::int64_t, std::int64_t, int trial, Generator& gen) {
                        if (trial % 3 == 0)
                          for (double& v : x) v = gen.uniform() < 0.3 ? -INFINITY : v;
                      });
}

TEST_CASE("the fast attention weights and their gradients give the plain ones' bits, causal or not, with masks") {
  // Batches of zero to two dimensions, masks broadcast along every dimension (with -inf
  // entries), causal structure over several of the products' 32-row blocks (where the fast room
  // skips the hidden scores), and huge, infinite or NaN queries (where it must not).
  Generator gen(11);
  const std::vector<std::int64_t> lengths = {0, 1, 2, 3, 7, 16, 33, 64, 100}, widths = {1, 2, 5, 8, 16, 24};
  int causal_runs = 0;
  for (int trial = 0; trial < 250; ++trial) {
    auto pick = [&](const std::vector<std::int64_t>& from) {
      return from[static_cast<std::size_t>(gen.randint(0, static_cast<std::int64_t>(from.size())))];
    };
    kernels::AttentionShape shape;
    shape.L = pick(lengths);
    shape.S = pick(lengths);
    shape.E = pick(widths);
    for (int d = 0, dims = trial % 3; d < dims; ++d) shape.batch.push_back(1 + trial % (d + 3));
    const bool causal = trial % 2 == 0;
    causal_runs += causal;
    const std::int64_t count = numel(shape.batch);
    CAPTURE(trial);
    CAPTURE(shape.L);
    CAPTURE(shape.S);
    CAPTURE(shape.E);
    CAPTURE(causal);
    Numbers q = awkward(count * shape.L * shape.E, gen, trial % 11 == 0, 0.05);
    if (trial % 13 == 0 && !q.empty()) q[0] = 1e200;  // a product that may overflow
    const Numbers k = awkward(count * shape.S * shape.E, gen, false, 0.05);
    // The mask: none, [L, S], [S] (broadcast over queries), or per batch matrix.
    Shape mask_shape;
    const int kind = trial % 4;
    if (kind == 1) mask_shape = {shape.L, shape.S};
    if (kind == 2) mask_shape = {shape.S};
    if (kind == 3) {
      mask_shape = shape.batch;
      mask_shape.push_back(shape.L);
      mask_shape.push_back(shape.S);
    }
    Numbers mask_values = awkward(kind == 0 ? 0 : numel(mask_shape), gen, false, 0.0);
    for (double& v : mask_values) v = gen.randint(0, 5) == 0 ? -INFINITY : v;
    const kernels::AttentionMask mask =
        kernels::attention_mask(kind == 0 ? nullptr : mask_values.data(), mask_shape, shape.L, shape.S);
    Numbers fast_scaled(q.size()), plain_scaled(q.size());
    Numbers fast_w(static_cast<std::size_t>(count * shape.L * shape.S)), plain_w(fast_w.size());
    fast::attention_weights(q.data(), k.data(), mask, causal, shape, fast_scaled.data(), fast_w.data());
    plain::attention_weights(q.data(), k.data(), mask, causal, shape, plain_scaled.data(), plain_w.data());
    CHECK(first_difference(fast_scaled, plain_scaled) == -1);
    CHECK(first_difference(fast_w, plain_w) == -1);
    const Numbers g = awkward(static_cast<std::int64_t>(plain_w.size()), gen);
    Numbers fast_dq(q.size()), plain_dq(q.size()), fast_dk(k.size()), plain_dk(k.size());
    fast::attention_weights_backward(g.data(), plain_w.data(), plain_scaled.data(), k.data(), shape, fast_dq.data(),
                                     fast_dk.data());
    plain::attention_weights_backward(g.data(), plain_w.data(), plain_scaled.data(), k.data(), shape, plain_dq.data(),
                                      plain_dk.data());
    CHECK(first_difference(fast_dq, plain_dq) == -1);
    CHECK(first_difference(fast_dk, plain_dk) == -1);
  }
  CHECK(causal_runs == 125);
}

// The fast room's block cache (kernels/fast/memory.cpp). Under AddressSanitizer it keeps
// nothing, so that the sanitizer sees every block's lifetime.
#if !defined(__SANITIZE_ADDRESS__)
TEST_CASE("the fast room hands a freed large block to the next request of its size class, and to no other") {
  // 100,000 and 101,000 bytes share the class of 114,688 (7 · 2^14); 120,000 is in the next.
  auto* block = static_cast<unsigned char*>(fast::allocate(100000));
  std::memset(block, 1, 100000);
  fast::release(block, 100000);
  auto* again = static_cast<unsigned char*>(fast::allocate(101000));
  CHECK(again == block);
  std::memset(again, 2, 101000);  // the whole request fits the class's block
  void* next_class = fast::allocate(120000);
  CHECK(next_class != again);
  fast::release(next_class, 120000);
  fast::release(again, 101000);
}
#endif

#endif  // LITGRAD_FAST
