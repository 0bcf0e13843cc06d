// The values every operation computes, checked by hand, against plain loops or against what
// torch's documentation promises (ties, NaN, ignored rows, empty inputs), and the errors of
// misuse. Their values and gradients against torch itself are in test_torch_reference.cpp; their
// gradients against finite differences in test_gradcheck_ops.cpp.

#include <doctest/doctest.h>

#include <cmath>
#include <set>

#include <quadmath.h>

#include <litgrad/kernels/exp.hpp>
#include <litgrad/litgrad.hpp>

#include "helpers.hpp"

using namespace litgrad;

TEST_CASE("arithmetic broadcasts by torch's rule") {
  const Tensor a = tensor({1, 2}, {2, 1});
  const Tensor b = tensor({10, 20, 30});  // [3]
  CHECK(test::identical(a + b, tensor({{11, 21, 31}, {12, 22, 32}})));
  CHECK(test::identical(a * b, tensor({{10, 20, 30}, {20, 40, 60}})));
  CHECK(test::identical(b - a, tensor({{9, 19, 29}, {8, 18, 28}})));
  CHECK(test::identical(b / 10.0, tensor({1, 2, 3})));
  CHECK(test::identical(2.0 - b, tensor({-8, -18, -28})));
  CHECK(broadcast_shapes("add", {2, 1, 3}, {4, 1}) == Shape{2, 4, 3});
  CHECK_THROWS_WITH_AS(ones({2, 3}) + ones({4}),
                       "add: shapes [2,3] and [4] do not broadcast (sizes 3 and 4 at dimension 1)", ShapeError);
}

TEST_CASE("pow with a tensor exponent is std::pow elementwise, with torch's gradients where the formulas break") {
  Tensor a = tensor({2, 0, 0, 4}).requires_grad_(), b = tensor({3, 0, 2, 0.5}).requires_grad_();
  const Tensor y = pow(a, b);
  CHECK(test::identical(y.detach(), tensor({8, 1, 0, 2})));
  CHECK(y.grad_fn() == "pow_tensor");
  sum(y).backward();
  // Base: b a^(b-1), and 0 where b = 0 (the formula's 0 · 0^-1 would be NaN).
  CHECK(test::identical(a.grad(), tensor({12, 0, 0, 0.25})));
  // Exponent: a^b ln a, and 0 where a = 0 and b >= 0 (the formula's 0 · -inf would be NaN).
  CHECK(test::identical(b.grad(), tensor({8 * std::log(2.0), 0, 0, 2 * std::log(4.0)})));
  // Broadcasting, a negative base with a fractional power (NaN, as std::pow), and a number base.
  CHECK(pow(ones({2, 3}), arange(3)).shape() == Shape{2, 3});
  CHECK(std::isnan(pow(tensor({-8}), tensor({1.0 / 3})).item()));
  CHECK(test::identical(pow(2.0, tensor({-1, 0, 10})), tensor({0.5, 1, 1024})));
  CHECK(test::identical(tensor({3}).pow(tensor({2})), tensor({9})));
}

TEST_CASE("the elementwise functions compute what their names say") {
  const Tensor x = tensor({-1, 0, 2});
  CHECK(test::identical(relu(x), tensor({0, 0, 2})));
  CHECK(test::identical(abs(x), tensor({1, 0, 2})));
  CHECK(test::identical(pow(x, 2.0), tensor({1, 0, 4})));
  CHECK(test::identical(neg(x), tensor({1, -0.0, -2})));
  for (std::int64_t i = 0; i < 3; ++i) {
    const double v = x.data()[i];
    CHECK(exp(x).data()[i] == std::exp(v));
    CHECK(tanh(x).data()[i] == std::tanh(v));
    CHECK(sin(x).data()[i] == std::sin(v));
    CHECK(cos(x).data()[i] == std::cos(v));
    CHECK(sigmoid(x).data()[i] == doctest::Approx(1 / (1 + std::exp(-v))).epsilon(1e-15));
  }
  CHECK(log(tensor({0})).item() == -INFINITY);
  CHECK(std::isnan(log(tensor({-1})).item()));
}

TEST_CASE("comparisons give Bool tensors, and the logical operations combine them") {
  const Tensor a = tensor({1, 2, 3}), b = tensor({2, 2, 2});
  CHECK(test::identical(lt(a, b), tensor({1, 0, 0}, {3}, DType::Bool)));
  CHECK(test::identical(le(a, b), tensor({1, 1, 0}, {3}, DType::Bool)));
  CHECK(test::identical(gt(a, b), tensor({0, 0, 1}, {3}, DType::Bool)));
  CHECK(test::identical(ge(a, b), tensor({0, 1, 1}, {3}, DType::Bool)));
  CHECK(test::identical(eq(a, b), tensor({0, 1, 0}, {3}, DType::Bool)));
  CHECK(test::identical(ne(a, b), tensor({1, 0, 1}, {3}, DType::Bool)));
  CHECK(test::identical(logical_not(lt(a, b)), ge(a, b)));
  CHECK(test::identical(logical_and(le(a, b), ge(a, b)), eq(a, b)));
  CHECK(test::identical(logical_or(lt(a, b), gt(a, b)), ne(a, b)));
  CHECK_THROWS_WITH_AS(logical_not(a),
                       doctest::Contains("logical_not: the input must be a Bool tensor, got Float64 of shape [3]"),
                       ValueError);
}

TEST_CASE("where picks elementwise, and masked_fill writes its value where the mask is true") {
  const Tensor mask = tensor({1, 0, 1}, {3}, DType::Bool);
  CHECK(test::identical(where(mask, tensor({1, 2, 3}), scalar_tensor(0)), tensor({1, 0, 3})));
  const Tensor scores = tensor({{1, 2, 3}, {4, 5, 6}});
  const Tensor m = masked_fill(scores, mask, -INFINITY);
  CHECK(test::identical(m, tensor({{-INFINITY, 2, -INFINITY}, {-INFINITY, 5, -INFINITY}})));
  CHECK_THROWS_WITH_AS(masked_fill(scores, tensor({1, 0, 1}), 0.0),
                       doctest::Contains("masked_fill: the mask must be a Bool tensor, got Float64"), ValueError);
  CHECK_THROWS_WITH_AS(masked_fill(ones({3}), tensor({1, 0, 1, 1, 0, 1}, {2, 3}, DType::Bool), 0.0),
                       "masked_fill: mask of shape [2,3] does not broadcast to the input's shape [3]", ShapeError);
  CHECK_THROWS_WITH_AS(where(tensor({1.0}), ones({1}), ones({1})),
                       doctest::Contains("where: the condition must be a Bool tensor"), ValueError);
}

TEST_CASE(
    "where sends exactly zero gradient to the branch it did not pick, even where that branch is infinite or NaN") {
  Tensor a = tensor({1, 2}).requires_grad_(), b = tensor({INFINITY, NAN}).requires_grad_();
  sum(where(tensor({0, 1}, {2}, DType::Bool), a, b) * 3.0).backward();
  CHECK(test::identical(a.grad(), tensor({0, 3})));
  CHECK(test::identical(b.grad(), tensor({3, 0})));
}

TEST_CASE("matmul agrees with the triple loop, batched and broadcast") {
  Generator gen(11);
  const Tensor a = randn({3, 1, 4, 5}, gen), b = randn({2, 5, 6}, gen);
  const Tensor c = matmul(a, b);
  REQUIRE(c.shape() == Shape{3, 2, 4, 6});
  double worst = 0;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t s = 0; s < 6; ++s) {
          double ref = 0, scale = 0;
          for (std::int64_t k = 0; k < 5; ++k) {
            ref += a.at({i, 0, r, k}) * b.at({j, k, s});
            scale += std::fabs(a.at({i, 0, r, k}) * b.at({j, k, s}));
          }
          // Any summation order is within k * 2^-53 * sum |a b| of the exact result.
          worst = std::max(worst, std::fabs(c.at({i, j, r, s}) - ref) / (5 * 0x1p-52 * scale));
        }
  CHECK(worst <= 1.0);
}

TEST_CASE(
    "matmul computes each element from its own row and column only: equal rows or columns give bit-identical results "
    "wherever they sit") {
  // Attention's exact claims (equal tokens get equal weights, permuting tokens permutes the
  // output) need this of the product itself, whatever the sizes and wherever the rows fall.
  Generator gen(12);
  for (int trial = 0; trial < 300; ++trial) {
    const std::int64_t n = gen.randint(2, trial < 290 ? 60 : 400), k = gen.randint(1, trial < 290 ? 60 : 400),
                       m = gen.randint(2, trial < 290 ? 60 : 400);
    CAPTURE(n);
    CAPTURE(k);
    CAPTURE(m);
    Tensor a = randn({n, k}, gen), b = randn({k, m}, gen);
    const std::int64_t r0 = gen.randint(0, n), r1 = gen.randint(0, n), c0 = gen.randint(0, m), c1 = gen.randint(0, m);
    std::copy_n(a.data() + r0 * k, k, a.data() + r1 * k);                              // row r1 := row r0
    for (std::int64_t i = 0; i < k; ++i) b.data()[i * m + c1] = b.data()[i * m + c0];  // column c1 := column c0
    const Tensor c = matmul(a, b);
    CHECK(test::identical(select(c, 0, r0), select(c, 0, r1)));
    CHECK(test::identical(select(c, 1, c0), select(c, 1, c1)));
    // And a permutation of the rows of a permutes the rows of the product, bit for bit.
    const Tensor p = reshape(randperm(n, gen), {n, 1});
    auto rows_by = [&](std::int64_t width) {
      return to(p * ones({1, width}), DType::Int64);
    };  // [n, width]: row i picks row p[i]
    CHECK(test::identical(matmul(gather(a, 0, rows_by(k)), b), gather(c, 0, rows_by(m))));
    // Every column of B the same: every column of the product the same, whichever of GEMM's
    // tiles (or kernels) it falls in; likewise every row of A.
    const Tensor same_columns = matmul(a, reshape(select(b, 1, 0), {k, 1}) * ones({1, m}));
    CHECK(test::identical(same_columns, reshape(select(same_columns, 1, 0), {n, 1}) * ones({1, m})));
    const Tensor same_rows = matmul(reshape(select(a, 0, 0), {1, k}) * ones({n, 1}), b);
    CHECK(test::identical(same_rows, reshape(select(same_rows, 0, 0), {1, m}) * ones({n, 1})));
  }
}

TEST_CASE("matmul treats a 1-D operand as a row on the left and a column on the right, as torch") {
  const Tensor m = tensor({{1, 2}, {3, 4}}), v = tensor({1, 10});
  CHECK(test::identical(matmul(v, v), scalar_tensor(101)));
  CHECK(test::identical(matmul(v, m), tensor({31, 42})));
  CHECK(test::identical(matmul(m, v), tensor({21, 43})));
  CHECK(matmul(ones({2, 3, 2}), v).shape() == Shape{2, 3});
}

TEST_CASE("matmul of empty operands gives an empty or all-zero product, as torch") {
  CHECK(matmul(zeros({0, 3}), ones({3, 2})).shape() == Shape{0, 2});
  CHECK(test::identical(matmul(zeros({2, 0}), zeros({0, 3})), zeros({2, 3})));  // a sum of no terms
  Tensor a = zeros({2, 0}).requires_grad_();
  sum(matmul(a, zeros({0, 3}))).backward();
  CHECK(a.grad().shape() == Shape{2, 0});
}

TEST_CASE("matmul names both shapes when they do not fit") {
  CHECK_THROWS_WITH_AS(matmul(ones({2, 3}), ones({4, 5})), "matmul: [2,3] @ [4,5]: inner sizes 3 and 4 differ",
                       ShapeError);
  CHECK_THROWS_WITH_AS(matmul(ones({3}), ones({4})), "matmul: [3] @ [4]: inner sizes 3 and 4 differ", ShapeError);
  CHECK_THROWS_WITH_AS(matmul(ones({2, 2, 3}), ones({3, 3, 1})),
                       "matmul: [2,2,3] @ [3,3,1]: batch dimensions [2] and [3] do not broadcast", ShapeError);
  CHECK_THROWS_WITH_AS(matmul(scalar_tensor(1), ones({2})),
                       "matmul: [] @ [2]: both operands need at least one dimension", ShapeError);
}

TEST_CASE("sum and mean reduce the listed dimensions, keeping them as size 1 with keepdim") {
  const Tensor x = reshape(arange(24.0), {2, 3, 4});
  CHECK(sum(x).item() == 276);
  CHECK(sum(x, {0, 2}).shape() == Shape{3});
  CHECK(sum(x, {0, 2}, true).shape() == Shape{1, 3, 1});
  CHECK(test::identical(sum(x, {0, 2}), tensor({60, 92, 124})));
  CHECK(test::identical(mean(x, {-1}), tensor({{1.5, 5.5, 9.5}, {13.5, 17.5, 21.5}})));
  CHECK(std::isnan(mean(zeros({0})).item()));
  CHECK_THROWS_WITH_AS(
      sum(x, {3}),
      doctest::Contains("sum: dimension 3 is out of range for a tensor with 3 dimensions (expected [-3, 2])"),
      IndexError);
  CHECK_THROWS_WITH_AS(sum(x, {1, -2}), "sum: dimension -2 appears twice in the list", ShapeError);
}

TEST_CASE("max returns the values and the first position of each maximum, and a NaN always wins") {
  const auto r = max(tensor({{1, 5, 5}, {7, 2, 3}}), 1);
  CHECK(test::identical(r.values, tensor({5, 7})));
  CHECK(test::identical(r.indices, tensor({1, 0}, {2}, DType::Int64)));
  CHECK(max(ones({2, 3}), 0, true).values.shape() == Shape{1, 3});
  const auto n = max(tensor({1, NAN, 9}), 0);
  CHECK(std::isnan(n.values.item()));
  CHECK(n.indices.item() == 1);
  CHECK(max(tensor({{1, 5}, {7, 2}})).item() == 7);
  CHECK_THROWS_WITH_AS(max(zeros({2, 0}), 1), "max: cannot reduce over dimension 1 of size 0 (shape [2,0])",
                       ValueError);
  CHECK_THROWS_WITH_AS(max(zeros({0})), "max: cannot reduce an empty tensor of shape [0]", ValueError);
}

TEST_CASE("softmax's exponential is within one unit in the last place of the correctly rounded e^x, for every double") {
  // Derivation (kernels/exp.hpp has the method), in units of the last place (ulp) of the result
  // p = e^r in [0.707, 1.415] (u = 2^-53). r and r_err together hold x - k ln2 to 2^-75, and
  // the series left out adds under 0.04 ulp. a = r^2 q is below 0.07 and carries the rounding
  // of r^2, of q's Horner steps (q's last step, q r + 1/2, dominates: about 1.2u of q) and of
  // their product, under 4u of a: 0.28u, at most 0.28 ulp. Adding r_err rounds once in a's
  // last place (2^-57), and adding r once in that of r + a, at most 0.415 (2^-55 for a result
  // below 1, whose ulp is 2^-53; 2^-54 above it, whose ulp is 2^-52): 1/8 ulp. The last
  // addition, 1 + (...), rounds once: 0.5 ulp. Together under 0.95 ulp of e^x. Scaling by 2^k
  // is exact, or rounds once more to a subnormal, whose spacing dwarfs what came before. So the
  // result lies less than one ulp from e^x, and is the correctly rounded double or one of its
  // two neighbours. The reference is e^x in quadruple precision (113 bits, libquadmath), rounded
  // to double.
  auto ulps = [](double y, double x) {  // |y - e^x| in units of the last place of e^x rounded
    const __float128 e = expq(static_cast<__float128>(x));
    const double rounded = static_cast<double>(e);
    const double spacing = std::nextafter(rounded, INFINITY) - rounded;
    return static_cast<double>((static_cast<__float128>(y) - e) / spacing);
  };
  Generator gen(2026);
  double worst = 0, worst_subnormal = 0;
  for (int i = 0; i < 300000; ++i) {
    // Thirds: the whole range of finite nonzero results (subnormals below -708.4), softmax's own
    // range x - max <= 0, and small arguments.
    const double v = gen.uniform(), x = i % 3 == 0 ? -745 + 1454.7 * v : i % 3 == 1 ? -40 * v : -1 + 2 * v;
    const double err = std::fabs(ulps(kernels::vector_exp(x), x));
    (x < -708.4 ? worst_subnormal : worst) = std::max(x < -708.4 ? worst_subnormal : worst, err);
  }
  MESSAGE("worst normal result ", worst, " ulp, worst subnormal ", worst_subnormal, " ulp");
  CHECK(worst < 0.95);
  CHECK(worst_subnormal < 1.0);
  for (const double x : {0.0, -0.0, 709.78, 709.79, 1e300, -745.14, -745.13, -1e300})
    CHECK(kernels::vector_exp(x) == std::exp(x));  // 1, overflow to inf, underflow to 0
  CHECK(kernels::vector_exp(INFINITY) == INFINITY);
  CHECK(kernels::vector_exp(-INFINITY) == 0.0);  // a masked score's weight is exactly 0
  CHECK(std::isnan(kernels::vector_exp(NAN)));
}

TEST_CASE("softmax rows are probability distributions") {
  Generator gen(5);
  const Tensor w = softmax(randn({4, 7}, gen) * 10.0, -1);
  for (std::int64_t i = 0; i < 4; ++i) {
    double total = 0;
    for (std::int64_t j = 0; j < 7; ++j) {
      CHECK(w.at({i, j}) >= 0.0);
      total += w.at({i, j});
    }
    CHECK(total == doctest::Approx(1.0).epsilon(1e-15));  // 7 roundings of 2^-53 each
  }
}

TEST_CASE(
    "softmax along the last dimension, many rows at a time, gives the bits of softmax along a strided one, slice by "
    "slice") {
  // Contiguous rows take softmax_rows (a block's exponentials in one stream); strided slices
  // take softmax_slice (which also leaves out trailing -inf). Rows of 1 to 70 elements, more
  // than one block of 32 rows, with -inf tails (a causal mask), whole -inf rows, NaN and inf.
  Generator gen(70);
  for (const std::int64_t n : {1, 2, 7, 8, 9, 33, 70})
    for (const std::int64_t rows : {1, 5, 40, 77}) {
      Tensor x = randn({rows, n}, gen) * 3.0;
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t j = 0; j < n; ++j) {
          double& v = x.data()[r * n + j];
          if (r % 4 == 1 && j > r % n) v = -INFINITY;  // a causal row
          if (r % 9 == 2) v = -INFINITY;               // a row of only -inf
          if (r % 13 == 3 && j == r % n) v = NAN;
          if (r % 17 == 4 && j == r % n) v = INFINITY;
        }
      CAPTURE(n);
      CAPTURE(rows);
      const Tensor along_rows = softmax(x, -1);
      const Tensor along_columns = transpose(softmax(transpose(x, 0, 1), 0), 0, 1);
      CHECK(test::identical(along_rows, along_columns));
    }
}

TEST_CASE("softmax gives a -inf score weight exactly 0, and a row of only -inf gives NaN, as torch") {
  const Tensor w = softmax(tensor({{0, -INFINITY, 1}, {-INFINITY, -INFINITY, -INFINITY}}), 1);
  CHECK(w.at({0, 1}) == 0.0);
  CHECK(w.at({0, 0}) + w.at({0, 2}) == doctest::Approx(1.0).epsilon(1e-15));
  for (std::int64_t j = 0; j < 3; ++j) CHECK(std::isnan(w.at({1, j})));
  // Also where softmax skips the exponentials: -inf at the end of long rows (a causal mask),
  // both the plain softmax and the fused attention weights.
  const std::int64_t n = 40;
  const Tensor causal = generate_square_subsequent_mask(n);
  const Tensor scores = reshape(arange(n * n), {n, n}) * 0.01 + causal;
  Generator gen(4);
  const Tensor q = randn({1, n, 8}, gen), k = randn({1, n, 8}, gen);
  for (const Tensor& weights : {softmax(scores, -1), scaled_dot_product_attention(q, k, k, causal).weights}) {
    int zeros = 0;
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t j = i + 1; j < n; ++j) zeros += weights.data()[weights.numel() - n * n + i * n + j] == 0.0;
    CHECK(zeros == n * (n - 1) / 2);
  }
  const Tensor l = log_softmax(tensor({{0, -INFINITY}, {-INFINITY, -INFINITY}}), 1);
  CHECK(l.at({0, 0}) == 0.0);
  CHECK(l.at({0, 1}) == -INFINITY);
  CHECK(std::isnan(l.at({1, 0})));
}

TEST_CASE("softmax of an empty tensor is empty, along any dimension") {
  CHECK(softmax(zeros({0, 2}), 0).shape() == Shape{0, 2});
  CHECK(log_softmax(zeros({2, 0}), 1).shape() == Shape{2, 0});
}

TEST_CASE("softmax does not overflow on large scores and lets a NaN through") {
  const Tensor w = softmax(tensor({1000, 1000}), 0);
  CHECK(test::identical(w, tensor({0.5, 0.5})));
  const Tensor n = softmax(tensor({1, NAN, 2}), 0);
  for (std::int64_t j = 0; j < 3; ++j) CHECK(std::isnan(n.at({j})));
  // Also when -inf follows (softmax leaves trailing -inf out of its sum only beside a number).
  const Tensor t = softmax(tensor({NAN, -INFINITY, -INFINITY}), 0);
  for (std::int64_t j = 0; j < 3; ++j) CHECK(std::isnan(t.at({j})));
  // And in rows long enough for softmax to skip their trailing -inf (past eight elements): a
  // NaN or +inf makes the sum NaN, and each skipped weight is 0 / NaN, as torch gives. Along the
  // last dimension, along the first (strided), and in the fused attention weights, where a NaN
  // in a key makes one column of scores NaN beside the causal mask's -inf.
  auto all_nan = [](const Tensor& w) {
    bool all = true;
    for (std::int64_t i = 0; i < w.numel(); ++i) all = all && std::isnan(w.data()[i]);
    return all;
  };
  for (const double poison : {NAN, INFINITY}) {
    CAPTURE(poison);
    Tensor row = full({2, 40}, -INFINITY);
    row.data()[0] = row.data()[40] = poison;
    row.data()[1] = row.data()[41] = 1.0;
    CHECK(all_nan(softmax(row, -1)));
    CHECK(all_nan(softmax(transpose(row, 0, 1), 0)));
    Generator gen(9);
    if (std::isnan(poison)) {  // (an infinite key gives scores of either sign, and -inf is just a zero weight)
      const Tensor q = randn({1, 40, 8}, gen);
      Tensor k = randn({1, 40, 8}, gen);
      k.data()[0] = poison;
      CHECK(all_nan(scaled_dot_product_attention(q, k, k, generate_square_subsequent_mask(40)).weights));
    }
  }
}

TEST_CASE("log_softmax is log(softmax) where that is representable, and stays finite where softmax underflows") {
  const Tensor x = tensor({0, 1, 2});
  // Both are within a few roundings (u = 2^-53) of the truth: softmax's exp, sum and divide
  // give a relative error of about 3u, which log turns into 3u absolute, plus u * |value| for
  // each result's own rounding with |value| < 2.5. So they differ by at most about 11u < 2e-15.
  CHECK(test::max_abs_diff(log_softmax(x, 0), log(softmax(x, 0))) <= 2e-15);
  const Tensor far = tensor({0, -800});
  CHECK(log(softmax(far, 0)).at({1}) == -INFINITY);
  CHECK(log_softmax(far, 0).at({1}) == -800.0);
}

TEST_CASE("reshape keeps the row-major order, and infers one -1") {
  const Tensor x = arange(6.0);
  CHECK(test::identical(reshape(x, {2, -1}), tensor({{0, 1, 2}, {3, 4, 5}})));
  CHECK(unsqueeze(x, 0).shape() == Shape{1, 6});
  CHECK(unsqueeze(x, -1).shape() == Shape{6, 1});
  CHECK(squeeze(ones({2, 1}), 1).shape() == Shape{2});
  CHECK(squeeze(ones({2, 3}), 1).shape() == Shape{2, 3});
  CHECK_THROWS_WITH_AS(reshape(x, {4, -1}), "reshape: cannot reshape [6] (6 elements) into [4,-1]", ShapeError);
  CHECK_THROWS_WITH_AS(reshape(x, {5}), "reshape: cannot reshape [6] (6 elements) into [5] (5 elements)", ShapeError);
  CHECK_THROWS_WITH_AS(reshape(x, {-1, -1}), doctest::Contains("reshape: invalid shape [-1,-1]"), ShapeError);
}

TEST_CASE("permute and transpose move elements to their new index") {
  Generator gen(2);
  const Tensor x = randn({2, 3, 4}, gen);
  const Tensor p = permute(x, {2, 0, 1});
  REQUIRE(p.shape() == Shape{4, 2, 3});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 4; ++k) CHECK(p.at({k, i, j}) == x.at({i, j, k}));
  CHECK(test::identical(transpose(tensor({{1, 2, 3}}), 0, 1), tensor({1, 2, 3}, {3, 1})));
  CHECK_THROWS_WITH_AS(permute(x, {0, 0, 1}), "permute: dimension 0 appears twice in [0,0,1]", ShapeError);
  CHECK_THROWS_WITH_AS(permute(x, {0, 1}), "permute: 2 dimensions given for a tensor of shape [2,3,4]", ShapeError);
  CHECK_THROWS_WITH_AS(transpose(x, 0, 3), doctest::Contains("transpose: dimension 3 is out of range"), IndexError);
}

TEST_CASE("select and slice follow Python's indexing, negative positions included") {
  const Tensor x = reshape(arange(12.0), {3, 4});
  CHECK(test::identical(select(x, 0, -1), tensor({8, 9, 10, 11})));
  CHECK(test::identical(select(x, 1, 2), tensor({2, 6, 10})));
  CHECK(test::identical(slice(x, 1, 1, -1), tensor({{1, 2}, {5, 6}, {9, 10}})));
  CHECK(test::identical(slice(x, 1, 0, 100, 3), tensor({{0, 3}, {4, 7}, {8, 11}})));
  CHECK(slice(x, 0, 2, 1).shape() == Shape{0, 4});
  CHECK_THROWS_WITH_AS(select(x, 0, 3), "select: index 3 is out of range for dimension 0 of size 3 (shape [3,4])",
                       IndexError);
  CHECK_THROWS_WITH_AS(slice(x, 0, 0, 2, 0), "slice: step must be positive, got 0", ValueError);
}

TEST_CASE("gather picks along a dimension by Int64 indices, as torch.gather") {
  const Tensor x = tensor({{1, 2, 3}, {4, 5, 6}});
  CHECK(test::identical(gather(x, 1, tensor({2, 0, 1, 1}, {2, 2}, DType::Int64)), tensor({{3, 1}, {5, 5}})));
  CHECK(test::identical(gather(x, 0, tensor({1, 0, 1}, {1, 3}, DType::Int64)), tensor({{4, 2, 6}})));
  CHECK_THROWS_WITH_AS(gather(x, 1, tensor({3, 0}, {2, 1})), "gather: index must be an Int64 tensor, got Float64",
                       ValueError);
  CHECK_THROWS_WITH_AS(gather(x, 1, tensor({3, 0}, {2, 1}, DType::Int64)),
                       "gather: index 3 is out of range for dimension 1 of size 3", IndexError);
  CHECK_THROWS_WITH_AS(gather(x, 1, tensor({0, 0}, {2}, DType::Int64)),
                       "gather: index of shape [2] must have as many dimensions as the input [2,3]", ShapeError);
}

TEST_CASE("cat joins along an existing dimension and stack along a new one") {
  const Tensor a = tensor({{1, 2}}), b = tensor({{3, 4}, {5, 6}});
  CHECK(test::identical(cat({a, b}, 0), tensor({{1, 2}, {3, 4}, {5, 6}})));
  CHECK(test::identical(cat({b, b}, 1), tensor({{3, 4, 3, 4}, {5, 6, 5, 6}})));
  CHECK(test::identical(stack({tensor({1, 2}), tensor({3, 4})}, 1), tensor({{1, 3}, {2, 4}})));
  CHECK_THROWS_WITH_AS(cat({a, b}, 1), "cat: shapes [1,2] and [2,2] differ outside dimension 1", ShapeError);
  CHECK_THROWS_WITH_AS(cat({}, 0), "cat: expected at least one tensor", ShapeError);
  CHECK_THROWS_WITH_AS(stack({a, b}), "stack: all tensors must have one shape, got [1,2] and [2,2]", ShapeError);
}

TEST_CASE("mse_loss is the mean squared difference and refuses shapes that differ") {
  CHECK(mse_loss(tensor({1, 2}), tensor({0, 4})).item() == 2.5);  // (1 + 4) / 2
  CHECK(mse_loss(tensor({1, 2}), tensor({0, 4}), Reduction::Sum).item() == 5.0);
  CHECK(test::identical(mse_loss(tensor({1, 2}), tensor({0, 4}), Reduction::None), tensor({1, 4})));
  CHECK_THROWS_WITH_AS(mse_loss(ones({4, 1}), ones({4})),
                       "mse_loss: input of shape [4,1] and target of shape [4] differ", ShapeError);
}

TEST_CASE(
    "log_softmax and cross_entropy stay exact and finite for scores of +-1000: a shift of every score changes "
    "nothing") {
  // Row 0's target has the largest score: its loss is log(1 + e^-1 + e^-2000), which is
  // log(1 + e^-1) in double precision. Row 1's target is 0.5 below the row's best score, so
  // its loss is 0.5 + log(1 + e^-0.5 + e^-1.5). Computed without the max shift, e^1000
  // overflows to inf and the loss is NaN. Every score here and its shift by 1000 is exact in
  // double precision, so the shifted rows give the very same x - max, and the same bits.
  const Tensor scores = tensor({{1000, 999, -1000}, {-1000, -1001, -999.5}});
  const Tensor target = tensor({0, 0}, {2}, DType::Int64);
  const double row0 = std::log(1 + std::exp(-1.0));
  const double row1 = 0.5 + std::log(1 + std::exp(-0.5) + std::exp(-1.5));
  const Tensor per_row = cross_entropy(scores, target, Reduction::None);
  CHECK(per_row.at({0}) == doctest::Approx(row0).epsilon(1e-15));
  CHECK(per_row.at({1}) == doctest::Approx(row1).epsilon(1e-15));
  const Tensor shifted = scores - tensor({1000, -1000}, {2, 1});  // each row's scores near 0
  CHECK(test::identical(cross_entropy(shifted, target, Reduction::None), per_row));
  CHECK(test::identical(log_softmax(shifted, 1), log_softmax(scores, 1)));
  CHECK(test::identical(softmax(shifted, 1), softmax(scores, 1)));
}

TEST_CASE("cross_entropy is minus the log-probability of each row's target class") {
  const Tensor logits = tensor({{0, 0, std::log(2.0)}, {1, 1, 1}});
  // Row 0: p = (1, 1, 2) / 4, target 2 -> -log(1/2). Row 1: uniform over 3 -> -log(1/3).
  const Tensor target = tensor({2, 0}, {2}, DType::Int64);
  CHECK(cross_entropy(logits, target).item() == doctest::Approx((std::log(2.0) + std::log(3.0)) / 2).epsilon(1e-15));
  CHECK(cross_entropy(tensor({1, 1}), tensor({1}, {}, DType::Int64)).item() ==
        doctest::Approx(std::log(2.0)).epsilon(1e-15));
  CHECK_THROWS_WITH_AS(
      cross_entropy(logits, tensor({2, 0})),
      doctest::Contains("cross_entropy: input of shape [2,3] and probability target of shape [2] do not fit"),
      ShapeError);
  CHECK_THROWS_WITH_AS(cross_entropy(logits, tensor({3, 0}, {2}, DType::Int64)),
                       "cross_entropy: target class 3 is out of range for 3 classes", IndexError);
  CHECK_THROWS_WITH_AS(cross_entropy(logits, tensor({0}, {1}, DType::Int64)),
                       doctest::Contains("cross_entropy: input of shape [2,3] and target of shape [1] do not fit"),
                       ShapeError);
}

TEST_CASE("linspace hits both ends exactly and spaces the points as torch") {
  CHECK(test::identical(linspace(-1, 1, 5), tensor({-1, -0.5, 0, 0.5, 1})));
  const Tensor t = linspace(0, 1, 7);
  CHECK(t.at({0}) == 0.0);
  CHECK(t.at({6}) == 1.0);
  CHECK(t.numel() == 7);
  // Counted up from 0 alone, the last of 50 points would be 49 · (1/49) = 0.9999999999999999.
  CHECK(linspace(0, 1, 50).at({49}) == 1.0);
  CHECK(linspace(3, 5, 1).at({0}) == 3.0);
  CHECK(linspace(3, 5, 0).numel() == 0);
}

TEST_CASE("one_hot puts a 1 at each index, and one_hot(ids) @ weight is the embedding of ids, bit for bit") {
  const Tensor ids = tensor({2, 0, 2}, {3}, DType::Int64);
  const Tensor h = one_hot(ids, 4);
  CHECK(h.dtype() == DType::Int64);
  CHECK(test::identical(to(h, DType::Float64), tensor({{0, 0, 1, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}})));
  CHECK(one_hot(ids).shape() == Shape{3, 3});
  Generator gen(1);
  const Tensor w = randn({4, 5}, gen);
  // Each element of the product adds one 1·w and three 0·w: adding zeros changes nothing.
  CHECK(test::identical(matmul(to(h, DType::Float64), w), nn::embedding(ids, w)));
  CHECK_THROWS_WITH_AS(one_hot(ids, 2), "one_hot: index 2 is out of range for 2 classes", IndexError);
}

TEST_CASE("argmax, argmin, min and topk give the first of tied positions, and a NaN wins as in torch") {
  const Tensor x = tensor({{1, 3, 3, 0}, {2, 2, -1, -1}});
  CHECK(test::identical(argmax(x, 1), tensor({1, 0}, {2}, DType::Int64)));
  CHECK(test::identical(argmin(x, 1), tensor({3, 2}, {2}, DType::Int64)));
  CHECK(argmax(x).item() == 1);
  CHECK(min(x).item() == -1);
  CHECK(std::isnan(min(tensor({1, NAN, -5})).item()));
  const auto top = topk(tensor({4, NAN, 4, 1, 9}), 3);
  CHECK(std::isnan(top.values.at({0})));
  CHECK(test::identical(top.indices, tensor({1, 4, 0}, {3}, DType::Int64)));
  const auto low = topk(tensor({4, 2, 4, 1}), 2, 0, false);
  CHECK(test::identical(low.values, tensor({1, 2})));
  CHECK_THROWS_WITH_AS(topk(x, 5, 1), doctest::Contains("topk: k = 5 is out of range for dimension 1 of size 4"),
                       ValueError);
  // No elements, as torch: the shapes with k along dim, and nothing read (a fuzzer finding).
  CHECK(topk(zeros({2, 0, 3}), 0, 1).values.shape() == Shape{2, 0, 3});
  CHECK(topk(zeros({0, 3}), 2, 1).indices.shape() == Shape{0, 2});
  CHECK(topk(zeros({3, 2}), 0, 1).values.shape() == Shape{3, 0});
}

TEST_CASE(
    "var divides by N - correction as torch 1.13: correction 1 (unbiased, the default) or 0, and a bool means the "
    "same") {
  const Tensor x = tensor({1, 2, 3, 4});
  CHECK(var(x).item() == doctest::Approx(5.0 / 3).epsilon(1e-15));
  CHECK(var(x, {}, 0).item() == 1.25);
  CHECK(var(x, {}, false).item() == 1.25);
  CHECK(var(x, {}, true).item() == var(x).item());
  CHECK(litgrad::std(x, {}, 0).item() == std::sqrt(1.25));
  CHECK(std::isnan(var(tensor({7})).item()));  // N - 1 = 0, as torch
}

TEST_CASE("norm's gradient at the zero vector is 0, as torch's, not NaN") {
  const Tensor x = zeros({3}).requires_grad_();
  const Tensor n = norm(x);
  CHECK(n.item() == 0.0);
  n.backward();
  CHECK(test::identical(x.grad(), zeros({3})));
  CHECK(norm(tensor({3, -4})).item() == 5.0);
  CHECK(norm(tensor({3, -4}), 1).item() == 7.0);
  CHECK(norm(tensor({3, -4}), INFINITY).item() == 4.0);
}

TEST_CASE(
    "logsumexp, the losses and softmax stay exact and finite for scores of +-1000: shifting the scores changes "
    "nothing") {
  // Every score and shift below is a small integer or half-integer, exact in double precision,
  // so the shifted scores have the same differences from their maximum, and the same bits.
  const Tensor scores = tensor({{1000, 999, -1000}, {-999.5, -1000, -1001}});
  const Tensor shift = tensor({-1000, 1000}, {2, 1});
  const Tensor target = tensor({0, 2}, {2}, DType::Int64);
  CHECK(logsumexp(scores, 1).at({0}) == 1000 + std::log1p(std::exp(-1.0) + std::exp(-2000.0)));
  CHECK(test::identical(logsumexp(scores + shift, 1) - tensor({-1000, 1000}), logsumexp(scores, 1)));
  CHECK(test::identical(softmax(scores + shift, 1), softmax(scores, 1)));
  CrossEntropyOptions smooth;
  smooth.label_smoothing = 0.1, smooth.reduction = Reduction::None;
  CHECK(test::identical(cross_entropy(scores + shift, target, smooth), cross_entropy(scores, target, smooth)));
  const Tensor probs = tensor({{0.5, 0.25, 0.25}, {0, 0, 1}});
  CHECK(test::identical(cross_entropy(scores + shift, probs, Reduction::None),
                        cross_entropy(scores, probs, Reduction::None)));
  for (double v : cross_entropy(scores, target, smooth).to_vector()) CHECK(std::isfinite(v));
  CHECK(test::identical(nll_loss(log_softmax(scores, 1), target), nll_loss(log_softmax(scores + shift, 1), target)));
  // max(x, 0) - x t + log(1 + e^-|x|) at ±1000: e^-1000 is 0 in double, so the loss is exact.
  const Tensor bce = binary_cross_entropy_with_logits(tensor({1000, -1000, 1000}), tensor({1, 1, 0}), Reduction::None);
  CHECK(test::identical(bce, tensor({0, 1000, 1000})));
  CHECK(logsumexp(full({3}, -INFINITY), 0).item() == -INFINITY);
}

TEST_CASE("cross_entropy leaves ignored rows out of its mean, and is NaN when every row is ignored, as torch") {
  const Tensor scores = tensor({{1, 2, 3}, {0, 0, 0}, {3, 2, 1}});
  CrossEntropyOptions o;
  o.ignore_index = 1;
  const Tensor target = tensor({2, 1, 0}, {3}, DType::Int64);
  const double kept = cross_entropy(slice(scores, 0, 0, 1), tensor({2}, {1}, DType::Int64)).item();
  CHECK(cross_entropy(scores, target, o).item() == doctest::Approx(kept).epsilon(1e-15));
  o.reduction = Reduction::None;
  CHECK(cross_entropy(scores, target, o).at({1}) == 0.0);
  o.reduction = Reduction::Mean;
  CHECK(std::isnan(cross_entropy(scores, tensor({1, 1, 1}, {3}, DType::Int64), o).item()));
}

TEST_CASE(
    "multinomial draws the same indices from the same seed, never a zero weight, and without replacement never twice") {
  const Tensor w = tensor({0.1, 0, 0.6, 0.3});
  Generator a(5), b(5);
  const Tensor da = multinomial(w, 1000, true, a), db = multinomial(w, 1000, true, b);
  CHECK(test::identical(da, db));
  std::int64_t counts[4] = {0, 0, 0, 0};
  for (double v : da.to_vector()) ++counts[static_cast<int>(v)];
  CHECK(counts[1] == 0);
  // 600 expected for index 2, standard deviation sqrt(1000 · 0.6 · 0.4) ≈ 15.5: five of them.
  CHECK(std::abs(counts[2] - 600) < 78);
  Generator c(6);
  const Tensor once = multinomial(w, 3, false, c);
  CHECK(std::set<double>{once.at({0}), once.at({1}), once.at({2})}.size() == 3);
  CHECK_THROWS_WITH_AS(multinomial(w, 4, false, c),
                       "multinomial: cannot draw 4 samples without replacement from 3 categories with weight",
                       ValueError);
  CHECK(multinomial(tensor({{1, 0}, {0, 1}}), 2, true, c).shape() == Shape{2, 2});
}

TEST_CASE("chunk, split, tril, triu, clamp, expand and repeat do what torch's namesakes do") {
  const Tensor x = arange(7);
  const auto pieces = chunk(x, 3);
  REQUIRE(pieces.size() == 3);
  CHECK(pieces[0].numel() == 3);
  CHECK(pieces[2].numel() == 1);
  CHECK(split(x, 4).size() == 2);
  CHECK(split(x, std::vector<std::int64_t>{1, 6})[1].at({0}) == 1.0);
  CHECK_THROWS_AS(split(x, std::vector<std::int64_t>{1, 2}), ShapeError);
  const Tensor m = tensor({{NAN, NAN}, {NAN, NAN}});
  CHECK(tril(m).at({0, 1}) == 0.0);  // exactly 0 above the diagonal, whatever was there
  CHECK(std::isnan(tril(m).at({0, 0})));
  CHECK(triu(m).at({1, 0}) == 0.0);
  CHECK(test::identical(clamp(tensor({-2, 0.5, 3}), -1, 1), tensor({-1, 0.5, 1})));
  CHECK(std::isnan(clamp(tensor({NAN}), 0).at({0})));
  CHECK(test::identical(expand(tensor({1, 2}, {2, 1}), {2, 3}), tensor({{1, 1, 1}, {2, 2, 2}})));
  CHECK(test::identical(repeat(tensor({1, 2}), {2, 2}), tensor({{1, 2, 1, 2}, {1, 2, 1, 2}})));
  CHECK_THROWS_AS(expand(tensor({1, 2}), {3}), ShapeError);
}

TEST_CASE("the member forms are the free functions, bit for bit, and comparisons with numbers give Bool tensors") {
  Generator gen(7);
  const Tensor x = randn({3, 4}, gen), w = randn({4, 2}, gen);
  CHECK(test::identical(x.sum(), sum(x)));
  CHECK(test::identical(x.mean({1}, true), mean(x, {1}, true)));
  CHECK(test::identical(x.reshape({2, -1}), reshape(x, {2, -1})));
  CHECK(test::identical(x.transpose(0, 1), transpose(x, 0, 1)));
  CHECK(test::identical(x.matmul(w).softmax(-1), softmax(matmul(x, w), -1)));
  CHECK(test::identical(x.exp().log(), log(exp(x))));
  CHECK(test::identical(x.abs().sqrt(), sqrt(abs(x))));
  CHECK(x.argmax(1).dtype() == DType::Int64);
  const Tensor positive = x > 0.0;
  CHECK(positive.dtype() == DType::Bool);
  CHECK(test::identical(positive, gt(x, scalar_tensor(0))));
  CHECK(test::identical(x <= 0.5, le(x, scalar_tensor(0.5))));
  CHECK(test::identical(x == 0.0, eq(x, scalar_tensor(0))));
}
