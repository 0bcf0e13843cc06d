// Chapter 1 · Tensors
// ===================
//
// Everything a model computes is held in tensors: arrays of numbers with a shape. At
// heart a litgrad tensor is two things, a shape such as ``[3, 4]`` and the numbers
// themselves in one row, one double after another (it also records what kind of numbers
// they are, and chapter 2 adds a record of how it was made). This chapter is about that
// arrangement and the four things every later chapter does with it: reading an element,
// combining tensors of different shapes (broadcasting), adding up along a dimension
// (reductions), and multiplying matrices. It ends with the one fact about floating
// point that the rest of the book keeps coming back to: the order in which numbers are
// added changes the sum.
//
// Each claim below is followed by the test that proves it, named as the claim, and the
// numbers on the page come from the run that built it. Run the chapter yourself with
// ``build/chapters/01_tensors``.

// %% about: What a tensor is (a shape and a row of doubles), how shapes broadcast, how
// reductions and matrix products combine elements, and why the order of a sum matters.
// %% assumes: reading C++

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::out;

namespace {

// %% 1 · A shape and a row of numbers
//
// A tensor of shape ``[3, 4]`` holds twelve doubles in one row of memory: first the
// four of row 0, then the four of row 1, then row 2. This is *row-major* order, the one
// C, NumPy and torch use. Element :math:`(i, j)` therefore sits at position
// :math:`i \cdot 4 + j`, and in general element :math:`(i, j)` of an ``[m, n]`` tensor
// sits at :math:`i \cdot n + j`: to step down a row you skip a whole row of :math:`n`
// numbers. A third dimension nests once more: element :math:`(i, j, k)` of
// ``[a, b, c]`` is at :math:`(i \cdot b + j) \cdot c + k`.

TEST_CASE(
    "element (i, j) of an [m, n] tensor is number i·n + j of its data, and "
    "(i, j, k) of [a, b, c] is number (i·b + j)·c + k") {
  const Tensor x = reshape(arange(12), {3, 4});
  out() << x << "\n";
  int matched = 0;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j) matched += x.at({i, j}) == x.data()[i * 4 + j];
  const Tensor y = reshape(arange(24), {2, 3, 4});
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 4; ++k)
        matched += y.at({i, j, k}) == y.data()[(i * 3 + j) * 4 + k];
  book::measured(
      "elements found where the formula says", matched,
      "of the 12 + 24 elements, how many sit at the position the formula gives",
      book::exactly(36));
  CHECK(matched == 36);
}

// %%
// Because the numbers are one row, a *reshape* changes only how the row is read: the
// numbers stay where they are, and the reshaped tensor shares them with the original
// (no copy is made). A *transpose* is different: it swaps two dimensions, so element
// :math:`(j, i)` of the transpose is element :math:`(i, j)` of the original, and the
// row of numbers has to be rearranged.

TEST_CASE(
    "a reshape shares the same row of numbers; a transpose moves element (i, j) to "
    "(j, i)") {
  const Tensor x = reshape(arange(12), {3, 4});
  const Tensor r = reshape(x, {2, 6});
  CHECK(r.data() == x.data());  // the very same memory
  const Tensor t = transpose(x, 0, 1);
  CHECK(t.shape() == Shape{4, 3});
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j) CHECK(t.at({j, i}) == x.at({i, j}));
  CHECK(t.data()[1] == x.at({1, 0}));  // the transpose's row of numbers is rearranged
}

// %% 2 · Broadcasting
//
// Adding a ``[3, 1]`` column to a ``[1, 4]`` row gives a ``[3, 4]`` table. The rule,
// torch's and NumPy's, compares the shapes from the right: two sizes fit when they are
// equal or when one of them is 1, and a size 1 *stretches* to the other size, its one
// element used again along that dimension. A dimension missing on the left counts as 1.
// So element :math:`(i, j)` of ``a + b`` is :math:`a_i + b_j`: each is a single
// addition of two doubles, and the result must equal a plain double loop exactly.
//
// .. figure:: broadcast
//
//    A column of three numbers plus a row of four: every cell of the result is its
//    row's number plus its column's.

// %% fold: drawing the broadcast
// Three heatmaps on one colour scale, each cell with its number.
void draw_broadcast(const Tensor& a, const Tensor& b, const Tensor& sum) {
  const auto rows = book::numbered(3, "i = "), cols = book::numbered(4, "j = ");
  const double low = std::min({min(a).item(), min(b).item(), min(sum).item()});
  const double high = std::max({max(a).item(), max(b).item(), max(sum).item()});
  const auto panel = [&](const Tensor& t, const std::vector<std::string>& r,
                         const std::vector<std::string>& c, const std::string& title) {
    return book::heatmap(t, r, c, "", "")
        .set("title", title)
        .set("numbers", book::Json::boolean(true))
        .set("colorbar", book::Json::boolean(false))
        .set("vmin", low)
        .set("vmax", high);
  };
  book::figure("broadcast",
               book::side_by_side({panel(a, rows, {"a"}, "a [3,1]"),
                                   panel(b, {"b"}, cols, "b [1,4]"),
                                   panel(sum, rows, cols, "a + b [3,4]")}));
}

// %%
// The test draws the two operands at random and compares every element with the loop.

TEST_CASE("[3,1] + [1,4] broadcasts to [3,4], element (i, j) exactly a_i + b_j") {
  Generator gen(1);
  const Tensor a = randn({3, 1}, gen), b = randn({1, 4}, gen);
  const Tensor c = a + b;
  REQUIRE(c.shape() == Shape{3, 4});
  int exact = 0;
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 4; ++j)
      exact += c.at({i, j}) == a.at({i, 0}) + b.at({0, j});
  book::measured("elements equal to the loop's", exact,
                 "of the 12, how many are bit for bit a_i + b_j", book::exactly(12));
  CHECK(exact == 12);
  draw_broadcast(a, b, c);
}

// %%
// Sizes that are neither equal nor 1 do not fit, and there is no sensible guess:
// litgrad refuses, and the error names the operation and both shapes, so the mistake
// can be found where it was made. A missing leading dimension is fine: ``[2, 3] + [3]``
// adds the row to each of the two rows.

TEST_CASE(
    "[2,3] + [3] adds the row to every row, while [2,3] + [2] is refused with both "
    "shapes named") {
  const Tensor x = reshape(arange(6), {2, 3});
  const Tensor row = tensor({10, 20, 30});
  CHECK(add(x, row).shape() == Shape{2, 3});
  CHECK(add(x, row).at({1, 2}) == 5 + 30);
  CHECK_THROWS_WITH_AS(add(x, tensor({1, 2})),
                       doctest::Contains("add: shapes [2,3] and [2] do not broadcast"),
                       ShapeError);
}

// %% 3 · Reductions
//
// A reduction adds up (or averages, or takes the largest) along a dimension. Summing an
// ``[3, 4]`` tensor over dimension 1 adds each row's four numbers and removes that
// dimension, leaving ``[3]``; with ``keepdim`` it is kept with size 1, ``[3, 1]``,
// which broadcasts against the original. That is the usual way to centre each row:
// subtract its mean, kept as a column.
//
// Each centred row should then sum to zero, and it does to rounding. Write :math:`M`
// for the row's largest magnitude and :math:`u = 2^{-53}` for the unit roundoff, the
// most a single rounding can change a number, relatively. Adding :math:`n` numbers in
// any order is off by at most :math:`(n - 1) u` times the sum of their sizes, to first
// order (Higham, *Accuracy and Stability of Numerical Algorithms*, §4.2). Three things
// are rounded here. The row's sum, off by at most :math:`3u \cdot 4M`; and since the
// mean is that rounded sum divided by 4 (exactly), the exact deviations add up not to 0
// but to that rounding error. Each deviation :math:`x_j - \bar x`, and four numbers in
// :math:`[-M, M]` deviate from their mean by at most :math:`4M` in all, so this costs
// at most :math:`4uM`. And the sum of the deviations, at most :math:`3u \cdot 4M`
// again. In all the centred row sums to within :math:`28 u M` of zero, which we check.

TEST_CASE(
    "sum over a dimension removes it, keepdim keeps it as size 1, and a row minus its "
    "kept mean sums to zero within 28u of its largest magnitude") {
  Generator gen(2);
  const Tensor x = randn({3, 4}, gen) * 10.0;
  CHECK(sum(x, {1}).shape() == Shape{3});
  CHECK(sum(x, {1}, true).shape() == Shape{3, 1});
  const Tensor centred = x - mean(x, {1}, true);
  const double u = std::ldexp(1.0, -53);
  double worst = 0;  // the largest |row sum| relative to its bound
  for (std::int64_t i = 0; i < 3; ++i) {
    const Tensor row = select(centred, 0, i);
    const double bound = 28 * u * max(abs(select(x, 0, i))).item();
    worst = std::max(worst, std::fabs(sum(row).item()) / bound);
  }
  book::measured(
      "largest |row sum| / bound", worst,
      "the worst centred row's sum as a fraction of 28u times its largest number",
      book::at_most(1.0));
  CHECK(worst <= 1.0);
}

// %% 4 · Matrix products
//
// The product of ``A [m, k]`` and ``B [k, n]`` is ``[m, n]``, and its element
// :math:`(i, j)` is the dot product of row :math:`i` of A with column :math:`j` of B,
// :math:`\sum_l a_{il} b_{lj}`. litgrad adds the :math:`k` products in an order of its
// own, chosen for speed, so it need not match a plain loop bit for bit. It must match
// to rounding: to first order, a dot product of :math:`k` terms is off by at most
// :math:`k u \sum_l |a_{il} b_{lj}|` whatever the order (Higham, §3.1), so the two are
// within :math:`2ku` times that sum.

TEST_CASE(
    "matmul's element (i, j) is row i of A dotted with column j of B, within the "
    "rounding bound 2ku·sum|a_il b_lj| of a plain loop") {
  Generator gen(3);
  const std::int64_t m = 4, k = 7, n = 5;
  const Tensor A = randn({m, k}, gen), B = randn({k, n}, gen);
  const Tensor C = matmul(A, B);
  REQUIRE(C.shape() == Shape{m, n});
  const double u = std::ldexp(1.0, -53);
  double worst = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double dot = 0, magnitude = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        dot += A.at({i, l}) * B.at({l, j});
        magnitude += std::fabs(A.at({i, l}) * B.at({l, j}));
      }
      worst = std::max(worst, std::fabs(C.at({i, j}) - dot) / (2 * k * u * magnitude));
    }
  book::measured(
      "largest difference / bound", worst,
      "the worst element's gap from the loop as a fraction of its rounding bound",
      book::at_most(1.0));
  CHECK(worst <= 1.0);
}

// %%
// A *batched* product multiplies many pairs at once: ``[b, m, k] @ [b, k, n]`` is
// ``[b, m, n]``, product number :math:`t` of the batch being ``A[t] @ B[t]``. litgrad
// computes each batch member exactly as it would alone, so the two agree bit for bit.

TEST_CASE(
    "a batched product equals the products of its members, bit for bit, for small "
    "members and large ones") {
  Generator gen(4);
  int identical = 0, members = 0;
  for (const auto& [b, m, k, n] :
       {std::array<std::int64_t, 4>{3, 4, 6, 2}, {2, 40, 30, 20}}) {
    const Tensor A = randn({b, m, k}, gen), B = randn({b, k, n}, gen);
    const Tensor batched = matmul(A, B);
    for (std::int64_t t = 0; t < b; ++t, ++members) {
      const Tensor alone = matmul(select(A, 0, t), select(B, 0, t));
      const Tensor member = select(batched, 0, t);
      bool same = true;
      for (std::int64_t i = 0; i < alone.numel(); ++i)
        same = same && member.data()[i] == alone.data()[i];
      identical += same;
    }
  }
  book::measured(
      "members identical to their own product", identical,
      "of the 5 batch members, how many match their separate product in every bit",
      book::exactly(5));
  CHECK(identical == members);
  CHECK(members == 5);
}

// %%
// The inner sizes must agree: ``[2, 3] @ [4, 5]`` has rows of three numbers and columns
// of four, and no dot product between them. The error names both shapes and the sizes
// that differ.

TEST_CASE("matmul refuses inner sizes that differ, naming both shapes") {
  CHECK_THROWS_WITH_AS(matmul(ones({2, 3}), ones({4, 5})),
                       "matmul: [2,3] @ [4,5]: inner sizes 3 and 4 differ", ShapeError);
}

// %% 5 · The order of a sum
//
// A double has 53 significant bits, so most sums must be rounded, and rounding does not
// respect the grouping of a sum: :math:`(a + b) + c` and :math:`a + (b + c)` are two
// different roundings. The smallest example most people meet: :math:`0.1 + 0.2` is not
// :math:`0.3`, and adding :math:`0.1`, :math:`0.2` and :math:`0.3` in the two groupings
// gives two different doubles.

TEST_CASE(
    "addition of doubles is not associative: (0.1 + 0.2) + 0.3 differs from "
    "0.1 + (0.2 + 0.3)") {
  const double left = (0.1 + 0.2) + 0.3, right = 0.1 + (0.2 + 0.3);
  char text[128];
  std::snprintf(text, sizeof text,
                "(0.1 + 0.2) + 0.3 = %.17g\n0.1 + (0.2 + 0.3) = %.17g\n", left, right);
  out() << text;
  CHECK(left != right);
  CHECK(0.1 + 0.2 != 0.3);
}

// %%
// So the order of a sum matters. Add 1,000 random numbers first to last and last to
// first: the two totals differ. They cannot differ by much: each of the :math:`n - 1`
// additions is off by at most :math:`u` times the partial sum, so each total is within
// :math:`(n - 1)\,u \sum |x_i|` of the exact sum (to first order), and the two within
// twice that.
//
// .. figure:: sum_order
//
//    The gap between summing forwards and backwards, against the number of terms, with
//    the rounding bound: the gap stays far under the bound.

// The sum of x[0..n) added first to last (forward) or last to first.
double ordered_sum(const std::vector<double>& x, std::size_t n, bool forward) {
  double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += x[forward ? i : n - 1 - i];
  return total;
}

// %% fold: drawing the gap against n
void draw_sum_order(const std::vector<double>& ns, const std::vector<double>& gaps,
                    const std::vector<double>& bounds) {
  book::figure("sum_order",
               book::line_plot("number of terms n", "|forward sum - backward sum|",
                               {book::series("measured gap", ns, gaps),
                                book::series("bound 2(n-1)u sum|x|", ns, bounds)},
                               true)
                   .set("log_x", book::Json::boolean(true))
                   .set("log_x_base", 10));
}

// %%
// The test measures the gap for 10 to 100,000 terms.

TEST_CASE(
    "summing the same numbers forwards and backwards gives different totals, within "
    "the bound 2(n-1)u·sum|x|") {
  Generator gen(5);
  const Tensor draws = randn({100000}, gen);
  const std::vector<double> x = draws.to_vector();
  const double u = std::ldexp(1.0, -53);
  std::vector<double> ns, gaps, bounds;
  double worst = 0;
  for (std::size_t n = 10; n <= x.size(); n *= 10) {
    double magnitude = 0;
    for (std::size_t i = 0; i < n; ++i) magnitude += std::fabs(x[i]);
    const double gap = std::fabs(ordered_sum(x, n, true) - ordered_sum(x, n, false));
    const double bound = 2 * static_cast<double>(n - 1) * u * magnitude;
    ns.push_back(static_cast<double>(n)), gaps.push_back(gap), bounds.push_back(bound);
    worst = std::max(worst, gap / bound);
  }
  const double gap_1000 = gaps[2];
  book::measured("gap at n = 1,000", gap_1000,
                 "how far apart the forward and backward totals of 1,000 numbers are",
                 book::above(0));
  book::measured("largest gap / bound", worst,
                 "the worst n's gap as a fraction of its rounding bound",
                 book::at_most(1.0));
  CHECK(gap_1000 > 0.0);
  CHECK(worst <= 1.0);
  draw_sum_order(ns, gaps, bounds);
}

// %%
// This is why the book can promise some results bit for bit and others only to
// rounding. litgrad computes each element of a product from its own row and column,
// always in the same order, wherever that row and column sit. Shuffle the rows of A, or
// the columns of B, and the product's are shuffled with the very same bits, for small
// products and for products large enough that litgrad hands them to Eigen's blocked
// kernels; chapter 8's exact claims about attention rest on this.

TEST_CASE(
    "shuffling the rows of A, or the columns of B, shuffles the product's with the "
    "same "
    "bits, for a small product and one large enough for Eigen's blocks") {
  Generator gen(6);
  std::int64_t differing = 0, compared = 0;
  for (const auto& [m, k, n] : {std::array<std::int64_t, 3>{6, 5, 3}, {70, 40, 50}}) {
    const Tensor A = randn({m, k}, gen), B = randn({k, n}, gen);
    const Tensor rows = randperm(m, gen), columns = randperm(n, gen);
    const Tensor product = matmul(A, B);
    const Tensor by_rows = matmul(index_select(A, 0, rows), B);
    const Tensor by_columns = matmul(A, index_select(B, 1, columns));
    for (std::int64_t i = 0; i < m; ++i)
      for (std::int64_t j = 0; j < n; ++j) {
        const auto r = static_cast<std::int64_t>(rows.at({i}));
        const auto c = static_cast<std::int64_t>(columns.at({j}));
        differing += by_rows.at({i, j}) != product.at({r, j});
        differing += by_columns.at({i, j}) != product.at({i, c});
        compared += 2;
      }
  }
  book::measured("elements with other bits", static_cast<double>(differing),
                 "of the " + std::to_string(compared) +
                     " elements of the shuffled products, how many differ from the "
                     "original's in any bit",
                 book::exactly(0));
  CHECK(differing == 0);
}

// %% fold: the end of the file's namespace
}  // namespace
