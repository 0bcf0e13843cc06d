// Chapter 1 · Tensors
// ===================
//
// Everything a model computes is held in tensors: arrays of numbers with a shape. At
// heart a litgrad tensor is two things, a shape such as ``[3, 4]`` and the numbers
// themselves in one row, one double after another (it also records what kind of numbers
// they are, and chapter 2 adds a record of how it was made). This chapter is about that
// arrangement and what every later chapter does with it: reading an element, picking
// out rows, columns and slices, telling a view of the same numbers from a copy,
// combining tensors of different shapes (broadcasting), adding up along a dimension
// (reductions), and multiplying matrices, which is what a layer of a network does. It
// ends with rounding: the order in which numbers are added changes the sum, and the
// single precision that torch uses by default rounds some five hundred million times
// more coarsely than the doubles used here.
//
// Each claim below is followed by the test that proves it, named as the claim, and the
// numbers on the page come from the run that built it. Run the chapter yourself with
// ``build/chapters/01_tensors``.

// %% about: What a tensor is (a shape and a row of doubles); indexing, slicing, and
// views against copies; how shapes broadcast; reductions; matrix products and the
// shapes of a layer; and how rounding, in double and in float32, depends on the order
// of a sum.
// %% assumes: reading C++

// %% fold: includes, and the names this file uses
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <litgrad/book/bits.hpp>
#include <litgrad/book/chapter.hpp>
#include <litgrad/book/figures.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;
using book::kU;  // u = 2^-53, double's unit roundoff
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
// ``[a, b, c]`` is at :math:`(i \cdot b + j) \cdot c + k`. The numbers skipped for one
// step along each dimension, :math:`(n, 1)` for ``[m, n]`` and :math:`(bc, c, 1)` for
// ``[a, b, c]``, are the tensor's *strides*.

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
  book::check("elements found where the formula says", matched,
              "of the 12 + 24 elements, how many sit at the position the formula gives",
              book::exactly(36));
}

// %% 2 · Picking parts: indexing and slicing
//
// Three operations pick parts of a tensor, each the C++ spelling of a piece of Python
// indexing. ``select(x, dim, i)`` takes position :math:`i` along one dimension and
// removes that dimension: ``select(x, 0, 1)`` is row 1 (``x[1]``), ``select(x, 1, 2)``
// is column 2 (``x[:, 2]``), and a negative position counts from the end, so
// ``select(x, 0, -1)`` is the last row. ``slice(x, dim, start, end, step)`` keeps
// positions ``start``, ``start + step``, ... below ``end`` (``x[:, 1:4:2]`` is
// ``slice(x, 1, 1, 4, 2)``): element :math:`(i, k)` of that slice is element
// :math:`(i, 1 + 2k)` of ``x``. ``index_select(x, dim, positions)`` takes any list of
// positions, in any order and with repeats (``x[[2, 0, 2]]``). On ``x = arange(12)``
// shaped ``[3, 4]`` every element holds its own position, so the picks can be read off
// directly. A position outside the dimension is refused, with the size it missed.

TEST_CASE(
    "select, slice and index_select pick exactly the elements their positions name, "
    "counting negative positions from the end") {
  const Tensor x = reshape(arange(12), {3, 4});
  const Tensor row = select(x, 0, 1), column = select(x, 1, 2), last = select(x, 0, -1);
  const Tensor odd = slice(x, 1, 1, 4, 2);
  const Tensor rows = index_select(x, 0, tensor({2, 0, 2}, {3}, DType::Int64));
  out() << "x[1] = " << row << "\nx[:, 1:4:2] =\n" << odd << "\n";
  CHECK(row.shape() == Shape{4});
  CHECK(column.shape() == Shape{3});
  CHECK(odd.shape() == Shape{3, 2});
  CHECK(rows.shape() == Shape{3, 4});
  int matched = 0;
  for (std::int64_t j = 0; j < 4; ++j) matched += row.at({j}) == x.at({1, j});
  for (std::int64_t i = 0; i < 3; ++i) matched += column.at({i}) == x.at({i, 2});
  for (std::int64_t j = 0; j < 4; ++j) matched += last.at({j}) == x.at({2, j});
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t k = 0; k < 2; ++k)
      matched += odd.at({i, k}) == x.at({i, 1 + 2 * k});
  const std::int64_t picked[3] = {2, 0, 2};
  for (std::int64_t r = 0; r < 3; ++r)
    for (std::int64_t j = 0; j < 4; ++j)
      matched += rows.at({r, j}) == x.at({picked[r], j});
  book::check(
      "elements where their formulas say", matched,
      "of the 4 + 3 + 4 + 6 + 12 picked elements, how many are the element of x "
      "the positions name",
      book::exactly(29));
  CHECK_THROWS_WITH_AS(select(x, 0, 3),
                       doctest::Contains("out of range for dimension 0 of size 3"),
                       IndexError);
}

// %% 3 · Views and copies
//
// Because the numbers are one row, a *reshape* changes only how the row is read: the
// reshaped tensor is a *view* of the original, sharing its numbers, so that writing
// into one changes the other. litgrad's ways of picking or rearranging elements make
// copies instead: a selected row, a slice, a transpose and an ``index_select`` each get
// a fresh row of numbers of their own, laid out row-major, and a write into them leaves
// the original alone.
//
// torch and NumPy go further. A tensor there carries its strides, and ``x[1]``,
// ``x[:, 1:4:2]`` and ``x.T`` are views too: the same numbers, read from another
// starting point with other strides (see the `torch documentation on tensor views
// <https://pytorch.org/docs/stable/tensor_view.html>`_); of these five only
// ``index_select``, which picks by a list of positions, copies. Writing into ``x[1]``
// in torch changes ``x``. The test writes through each of the five in litgrad and
// counts the writes that reach the original: only the reshape's.

TEST_CASE(
    "in litgrad a reshape is a view of the same numbers, while select, slice, "
    "transpose and index_select copy: a write reaches the original only through the "
    "reshape") {
  const auto reaches = [](const std::function<Tensor(const Tensor&)>& part) {
    const Tensor x = reshape(arange(12), {3, 4});
    Tensor p = part(x);
    p.data()[0] = -1;  // write into the part's first number
    return static_cast<double>(std::count(x.data(), x.data() + 12, -1.0));
  };
  const double through_reshape = reaches([](const Tensor& x) {
    return reshape(x, {2, 6});
  });
  const double through_copies =
      reaches([](const Tensor& x) { return select(x, 0, 1); }) +
      reaches([](const Tensor& x) { return slice(x, 1, 1, 4, 2); }) +
      reaches([](const Tensor& x) { return transpose(x, 0, 1); }) +
      reaches([](const Tensor& x) {
        return index_select(x, 0, tensor({2, 0}, {2}, DType::Int64));
      });
  book::check("writes through the reshape that reached x", through_reshape,
              "elements of x changed by writing into its reshape", book::exactly(1));
  book::check("writes through the four copies that reached x", through_copies,
              "elements of x changed by writing into select, slice, transpose and "
              "index_select",
              book::exactly(0));
}

// %%
// A view needs no new numbers because an element's position is a sum of index times
// stride, and the strides need not be the row-major ones. Read the twelve numbers of
// ``x`` ``[3, 4]`` with strides :math:`(1, 4)` as a ``[4, 3]`` tensor: element
// :math:`(j, i)` is number :math:`j + 4i`, which is element :math:`(i, j)` of ``x``,
// so this *is* the transpose, without a number moved. The slice ``x[:, 1:4:2]`` is the
// same numbers read from position 1 with strides :math:`(4, 2)`. That is torch's
// transpose and slice. litgrad's transpose holds the same elements in its own row, in
// row-major order of ``[4, 3]``: its number :math:`3j + i` is element :math:`(i, j)`
// of ``x``. The twelve numbers have been rearranged, in litgrad only.

double strided(const Tensor& x, std::int64_t start, std::int64_t stride0,
               std::int64_t stride1, std::int64_t i, std::int64_t j) {
  return x.data()[start + i * stride0 + j * stride1];  // the element a view would read
}

TEST_CASE(
    "x's own numbers read with strides (1, 4) are its transpose and from 1 with "
    "strides (4, 2) its slice [:, 1:4:2], while litgrad's transpose holds them "
    "rearranged in row-major order") {
  const Tensor x = reshape(arange(12), {3, 4});
  const Tensor t = transpose(x, 0, 1), s = slice(x, 1, 1, 4, 2);
  int matched = 0;
  for (std::int64_t j = 0; j < 4; ++j)
    for (std::int64_t i = 0; i < 3; ++i) {
      matched += strided(x, 0, 1, 4, j, i) == t.at({j, i});  // the view's reading
      matched += t.data()[j * 3 + i] == x.at({i, j});        // litgrad's own row
    }
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t k = 0; k < 2; ++k)
      matched += strided(x, 1, 4, 2, i, k) == s.at({i, k});
  book::check("elements read where the strides say", matched,
              "of 12 + 12 + 6, how many agree: the strided transpose, litgrad's "
              "rearranged transpose, the strided slice",
              book::exactly(30));
}

// %% 4 · Broadcasting
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
  book::check("elements equal to the loop's", exact,
              "of the 12, how many are bit for bit a_i + b_j", book::exactly(12));
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
  const Tensor sum = add(x, row);
  CHECK(sum.shape() == Shape{2, 3});
  int exact = 0;
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      exact += sum.at({i, j}) == x.at({i, j}) + row.at({j});
  book::check("elements equal to x_ij + row_j", exact,
              "of the 6, how many have the row added at their column",
              book::exactly(6));
  CHECK_THROWS_WITH_AS(add(x, tensor({1, 2})),
                       doctest::Contains("add: shapes [2,3] and [2] do not broadcast"),
                       ShapeError);
}

// %% 5 · Reductions
//
// A reduction adds up (or averages, or takes the largest) along a dimension. Summing an
// ``[m, n]`` tensor over dimension 1 adds each row's :math:`n` numbers and removes that
// dimension, leaving ``[m]``; with ``keepdim`` it is kept with size 1, ``[m, 1]``,
// which broadcasts against the original. That is the usual way to centre each row:
// subtract its mean, kept as a column, and each row then sums to zero.
//
// Forget ``keepdim`` and the means form a ``[m]`` row, which broadcasting lines up with
// the *columns*. On a ``[3, 4]`` tensor that is refused (3 against 4), but on a square
// ``[4, 4]`` it fits, silently: element :math:`(i, j)` becomes :math:`x_{ij} - m_j`,
// with :math:`m_j` the mean of row :math:`j`, and row :math:`i` sums to
// :math:`4 m_i - \sum_j m_j`, not to zero. On small whole numbers every step here is
// exact (sums of integers, divisions by 4, differences of quarters), so the test can
// hold both to exact values.

TEST_CASE(
    "a row minus its mean kept with keepdim sums to exactly zero, while without "
    "keepdim a square tensor's row i sums to 4·m_i - sum_j m_j, and [3,4] is "
    "refused") {
  Generator gen(7);
  const Tensor x = to(randint(-9, 10, {4, 4}, gen), DType::Float64);
  CHECK(sum(x, {1}).shape() == Shape{4});
  CHECK(sum(x, {1}, true).shape() == Shape{4, 1});
  const Tensor m = mean(x, {1});
  const Tensor right = sum(x - mean(x, {1}, true), {1});
  const Tensor wrong = sum(x - mean(x, {1}), {1});
  const double all_means = sum(m).item();
  int zero = 0, predicted = 0;
  for (std::int64_t i = 0; i < 4; ++i) {
    zero += right.at({i}) == 0.0;
    predicted += wrong.at({i}) == 4 * m.at({i}) - all_means;
  }
  out() << "row sums with keepdim: " << right << "\nwithout: " << wrong << "\n";
  book::check("rows summing to exactly 0 with keepdim", zero,
              "of the 4 centred rows, how many sum to 0", book::exactly(4));
  book::check("rows summing to 4 m_i - sum m without keepdim", predicted,
              "of the 4 rows centred by the wrong means, how many sum to the "
              "predicted value",
              book::exactly(4));
  book::measured("largest row sum without keepdim", max(abs(wrong)).item(),
                 "how far from zero the worst wrongly centred row sums");
  const Tensor three_rows = slice(x, 0, 0, 3);  // [3, 4]
  CHECK_THROWS_AS(three_rows - mean(three_rows, {1}), ShapeError);
}

// %%
// On numbers that are not small integers the means are rounded, and a centred row sums
// to zero only to rounding. Write :math:`M` for the row's largest magnitude and
// :math:`u = 2^{-53} \approx 1.1 \cdot 10^{-16}` for the *unit roundoff* of double
// precision, the most a single rounding can change a number, relatively. Three
// roundings add up (the fold below derives it): the centred row sums to within
// :math:`28 u M` of zero.

// %% fold: where 28u comes from
// Adding n numbers in any order is off by at most (n - 1) u times the sum of their
// sizes, to first order (Higham, Accuracy and Stability of Numerical Algorithms, §4.2).
// Three things are rounded in a centred row of four numbers, each at most M in size:
//  * the row's sum, off by at most 3u · 4M; the mean is that rounded sum divided by 4
//    (exactly), so the exact deviations add up not to 0 but to that rounding error;
//  * each deviation x_j - mean, rounded by u times its size; four numbers in [-M, M]
//    deviate from their mean by at most 4M in all, so this costs at most 4uM;
//  * the sum of the four deviations, at most 3u · 4M again.
// In all 12uM + 4uM + 12uM = 28uM.
double centring_bound(double largest) { return 28 * kU * largest; }

// %%
// The test centres three rows of random numbers of size about 10.

TEST_CASE(
    "on random numbers a row minus its kept mean sums to zero within 28u of its "
    "largest magnitude") {
  Generator gen(2);
  const Tensor x = randn({3, 4}, gen) * 10.0;
  const Tensor centred = x - mean(x, {1}, true);
  double worst = 0;  // the largest |row sum| relative to its bound
  for (std::int64_t i = 0; i < 3; ++i) {
    const double bound = centring_bound(max(abs(select(x, 0, i))).item());
    worst = std::max(worst, std::fabs(sum(select(centred, 0, i)).item()) / bound);
  }
  book::check(
      "largest |row sum| / bound", worst,
      "the worst centred row's sum as a fraction of 28u times its largest number",
      book::at_most(1.0));
}

// %% 6 · Matrix products and the shapes of a layer
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
  double worst = 0;
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = 0; j < n; ++j) {
      double dot = 0, magnitude = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        dot += A.at({i, l}) * B.at({l, j});
        magnitude += std::fabs(A.at({i, l}) * B.at({l, j}));
      }
      worst = std::max(worst, std::fabs(C.at({i, j}) - dot) / (2 * k * kU * magnitude));
    }
  book::check(
      "largest difference / bound", worst,
      "the worst element's gap from the loop as a fraction of its rounding bound",
      book::at_most(1.0));
}

// %%
// This product is what a layer of a network computes. A *batch* of inputs, one per row,
// ``X [batch, in]``, times a weight matrix ``W [in, out]``, plus a bias ``b [out]``
// broadcast to every row, gives ``Y = X W + b``, ``[batch, out]``: each input's
// :math:`in` numbers become :math:`out` numbers, with :math:`in \cdot out + out`
// parameters. Row :math:`r` of ``Y`` depends on row :math:`r` of ``X`` alone, so the
// batch is only many inputs at once: pushing one row through by itself gives the same
// row, and in litgrad bit for bit, since each element of a product is computed from its
// own row and column in the same order wherever they sit. torch's ``nn.Linear`` keeps
// its weight the other way round, ``[out, in]``, and computes :math:`X W^T + b`;
// litgrad's :cpp:class:`litgrad::nn::Linear` does the same, with the same bits as that
// product.

TEST_CASE(
    "a layer [batch, in] @ [in, out] + [out] gives [batch, out], each row the "
    "layer applied to that input alone, bit for bit, and nn::Linear is X W^T + b") {
  Generator gen(8);
  const std::int64_t batch = 5, in = 3, out_size = 2;
  const Tensor X = randn({batch, in}, gen), W = randn({in, out_size}, gen),
               b = randn({out_size}, gen);
  const Tensor Y = matmul(X, W) + b;
  CHECK(Y.shape() == Shape{batch, out_size});
  int same = 0;
  for (std::int64_t r = 0; r < batch; ++r) {
    const Tensor alone = matmul(slice(X, 0, r, r + 1), W) + b;  // [1, out]
    for (std::int64_t j = 0; j < out_size; ++j)
      same += alone.at({0, j}) == Y.at({r, j});
  }
  nn::Linear layer(in, out_size, true, gen);
  const Tensor by_layer = layer(X);
  const Tensor by_hand = matmul(X, transpose(layer.weight, 0, 1)) + layer.bias;
  for (std::int64_t i = 0; i < by_layer.numel(); ++i)
    same += by_layer.data()[i] == by_hand.data()[i];
  book::measured("parameters", static_cast<double>(W.numel() + b.numel()),
                 "the layer's weights and biases, in·out + out");
  book::check("elements identical", same,
              "of 10 rows-alone elements and 10 nn::Linear elements, how many match in "
              "every bit",
              book::exactly(20));
}

// %%
// The inner sizes must agree: a row of :math:`in` numbers can only be dotted with a
// column of :math:`in` numbers. The commonest way to break this is to take a weight
// stored as torch stores it, ``[out, in]``, and multiply by it untransposed: litgrad
// refuses, and the error names both shapes and the sizes that differ.

TEST_CASE(
    "a weight stored [out, in] must be transposed: X [5,3] @ W [2,3] is refused, "
    "naming both shapes") {
  CHECK_THROWS_WITH_AS(matmul(ones({5, 3}), ones({2, 3})),
                       "matmul: [5,3] @ [2,3]: inner sizes 3 and 2 differ", ShapeError);
  CHECK(matmul(ones({5, 3}), transpose(ones({2, 3}), 0, 1)).shape() == Shape{5, 2});
}

// %%
// A *batched* product multiplies many pairs at once: ``[b, m, k] @ [b, k, n]`` is
// ``[b, m, n]``, product number :math:`t` of the batch being ``A[t] @ B[t]``. litgrad
// computes each batch member exactly as it would alone, so the two agree bit for bit.

TEST_CASE(
    "a batched product equals the products of its members, bit for bit, for small "
    "members and large ones") {
  Generator gen(4);
  int identical = 0;
  for (const auto& [b, m, k, n] :
       {std::array<std::int64_t, 4>{3, 4, 6, 2}, {2, 40, 30, 20}}) {
    const Tensor A = randn({b, m, k}, gen), B = randn({b, k, n}, gen);
    const Tensor batched = matmul(A, B);
    for (std::int64_t t = 0; t < b; ++t) {
      const Tensor alone = matmul(select(A, 0, t), select(B, 0, t));
      const Tensor member = select(batched, 0, t);
      bool same = true;
      for (std::int64_t i = 0; i < alone.numel(); ++i)
        same = same && member.data()[i] == alone.data()[i];
      identical += same;
    }
  }
  book::check("members identical to their own product", identical,
              "of the 5 batch members, how many match their separate product in every "
              "bit",
              book::exactly(5));
}

// %%
// That promise, each element of a product from its own row and column, always in the
// same order, is stronger than it looks. Shuffle the rows of A, or the columns of B,
// and the product's are shuffled with the very same bits, for small products and for
// products large enough that litgrad hands them to Eigen's blocked kernels (the
// library's kernel tests check that the test's larger product, 70 by 40 by 50, takes
// that path); chapter 8's exact claims about attention rest on this.

TEST_CASE(
    "shuffling the rows of A, or the columns of B, shuffles the product's with the "
    "same bits, for a small product and one large enough for Eigen's blocks") {
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
  book::check("elements with other bits", static_cast<double>(differing),
              "of the " + std::to_string(compared) +
                  " elements of the shuffled products, how many differ from the "
                  "original's in any bit",
              book::exactly(0));
}

// %% 7 · Rounding: the order of a sum, in double and in float32
//
// A double has 53 significant bits, so most sums must be rounded, and rounding does not
// respect the grouping of a sum: :math:`(a + b) + c` and :math:`a + (b + c)` are two
// different roundings. The smallest example most people meet: :math:`0.1 + 0.2` is not
// :math:`0.3`, and adding :math:`0.1`, :math:`0.2` and :math:`0.3` in the two groupings
// gives two different doubles (the test adds them as litgrad tensors, prints both
// totals, and checks both differences). So the order of a sum matters: ask litgrad for
// the sum of 100,000 random numbers and for the sum of the same numbers in reverse
// order, and the two totals differ. They cannot differ by much: whatever order a sum
// takes, it makes :math:`n - 1` additions, each off by at most :math:`u` times a
// partial sum, so each total is within :math:`(n - 1)\,u \sum |x_i|` of the exact sum
// (to first order), and the two within twice that. That bound is for the worst case,
// where every rounding goes the same way, and it grows like :math:`n^2`: :math:`n - 1`
// additions, each allowed :math:`u \sum |x_i|`, itself :math:`n` times the mean
// :math:`|x_i|`. The errors a real sum makes are smaller on both counts. Each is
// :math:`u` times the partial sum where it happens, and a partial sum of :math:`k`
// numbers of random sign is about :math:`\sqrt{k}` of them, not :math:`k`; and the
// errors' signs are random too, so they add like the steps of a random walk: the
// square root of the sum of their squares, :math:`u \sqrt{\sum_k k} \approx u\, n /
// \sqrt{2}` in units of one number. So the gap should grow like :math:`n`, where the
// bound grows like :math:`n^2`. One gap is one draw of a random error, so the test
// takes 20 draws of 100,000 numbers and their root mean square gap at 1,000 terms and
// at 100,000, and claims that it grew by at most the bound's factor to the power
// :math:`3/4`, halfway on a log scale between the growth of :math:`n` and of
// :math:`n^2` (the account gives both factors).
//
// .. figure:: sum_order
//
//    The gap between summing forwards and backwards, against the number of terms, with
//    the rounding bound: the gap stays far under the bound and grows more slowly.

// litgrad's sum of the first n elements of x [N], taken in x's order (forward) or in
// reverse.
double sum_of_first(const Tensor& x, std::int64_t n, bool forward) {
  const Tensor head = slice(x, 0, 0, n);
  return forward ? sum(head).item()
                 : sum(index_select(head, 0, arange(n - 1, -1, -1))).item();
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
    "the bound 2(n-1)u·sum|x|, and their gap grows more slowly than the bound") {
  const Tensor a = scalar_tensor(0.1), b = scalar_tensor(0.2), c = scalar_tensor(0.3);
  const double left = ((a + b) + c).item(), right = (a + (b + c)).item();
  char text[128];
  std::snprintf(text, sizeof text,
                "(0.1 + 0.2) + 0.3 = %.17g\n0.1 + (0.2 + 0.3) = %.17g\n", left, right);
  out() << text;
  book::check("0.1 + 0.2 minus 0.3", ((a + b) - c).item(), "in doubles, not 0",
              book::above(0));
  book::check("(0.1 + 0.2) + 0.3 minus 0.1 + (0.2 + 0.3)", left - right,
              "the two groupings' doubles, not 0", book::above(0));
  Generator gen(5);
  const Tensor x = randn({100000}, gen);
  std::vector<double> ns, gaps, bounds;
  double worst = 0;
  for (std::int64_t n = 10; n <= x.numel(); n *= 10) {
    double magnitude = 0;  // sum |x_i|, in the same order every time
    for (std::int64_t i = 0; i < n; ++i) magnitude += std::fabs(x.at({i}));
    const double gap = std::fabs(sum_of_first(x, n, true) - sum_of_first(x, n, false));
    const double bound = 2 * static_cast<double>(n - 1) * kU * magnitude;
    ns.push_back(static_cast<double>(n)), gaps.push_back(gap), bounds.push_back(bound);
    worst = std::max(worst, gap / bound);
  }
  book::check("gap at n = 1,000", gaps[2],
              "how far apart the forward and backward totals of 1,000 numbers are",
              book::above(0));
  book::check("largest gap / bound", worst,
              "the worst n's gap as a fraction of its rounding bound",
              book::at_most(1.0).large_margin_because(book::kWorstCaseRounding));
  double squares_small = 0, squares_large = 0;  // over 20 draws of 100,000 numbers
  for (int draw = 0; draw < 20; ++draw) {
    const Tensor y = randn({100000}, gen);
    squares_small +=
        std::pow(sum_of_first(y, 1000, true) - sum_of_first(y, 1000, false), 2);
    squares_large +=
        std::pow(sum_of_first(y, 100000, true) - sum_of_first(y, 100000, false), 2);
  }
  const double gap_growth = std::sqrt(squares_large / squares_small),
               bound_growth = bounds[4] / bounds[2];
  out() << "from 1,000 terms to 100,000 the root mean square gap grew " << gap_growth
        << " times, the bound " << bound_growth << " times\n";
  book::check("the gap's growth", gap_growth,
              "from 1,000 terms to 100,000, over 20 draws",
              book::at_most(std::pow(bound_growth, 0.75)));
  draw_sum_order(ns, gaps, bounds);
}

// %%
// torch computes in ``float32`` unless told otherwise, and a float32 has 24 significant
// bits, not 53: its unit roundoff is :math:`2^{-24} \approx 6 \cdot 10^{-8}` against
// double's :math:`2^{-53} \approx 1.1 \cdot 10^{-16}`, about seven digits against
// sixteen. Every rounding bound in this book grows by the ratio, :math:`2^{29}`, some
// five hundred million, for a reader who carries it over to float32. One consequence is
// easy to remember. Whole numbers up to :math:`2^{24} = 16{,}777{,}216` are exact in
// float32, but above it they are two apart, and :math:`2^{24} + 1` lies exactly halfway
// between two of them; the tie goes to the one with an even last bit,
// :math:`2^{24}` itself. So a float32 total that counts by adding 1 stops at
// :math:`2^{24}` however long it runs: counting 20 million ones gives 16,777,216 (the
// test counts them in C++'s ``float``, since litgrad has no float32). A double counts
// on to :math:`2^{53}`, and every partial sum of whole numbers below that is exact, so
// litgrad's ``sum`` of twenty million ones is exactly 20,000,000, in whatever order
// it adds them.

TEST_CASE(
    "in float32, adding 1 twenty million times stops at 2^24 = 16,777,216, while "
    "litgrad's sum of twenty million ones is exactly 20,000,000") {
  const long ones = 20'000'000;
  float count32 = 0;
  for (long i = 0; i < ones; ++i) count32 += 1.0f;
  book::check("float32 count", count32, "the float32 total of 20 million ones",
              book::exactly(16'777'216));
  book::check("litgrad's sum", sum(litgrad::ones({ones})).item(),
              "litgrad's sum of a tensor of 20 million ones",
              book::exactly(20'000'000));
}

// %% fold: the end of the file's namespace
}  // namespace
