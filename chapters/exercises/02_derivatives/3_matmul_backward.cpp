// Exercise 2.3 · The backward of a matrix product
// ===============================================
//
// For :math:`C = A B`, with :math:`A` ``[m, k]`` and :math:`B` ``[k, n]``, suppose the
// gradient of the loss with respect to :math:`C` is :math:`G` (``[m, n]``). Work out
// the gradients with respect to :math:`A` and :math:`B`, element by element from
// :math:`c_{ij} = \sum_l a_{il} b_{lj}`, then as matrix products, and write them. The
// tests compare with litgrad's backward of ``sum(matmul(A, B) * G)``, whose gradient
// with respect to :math:`C` is exactly :math:`G`; products of :math:`k` terms agree to
// :math:`2ku \sum |\cdot|`, well within :math:`10^{-13}` here.

// %% hint
// Take one element :math:`a_{il}` and list the elements :math:`c_{ij}` it appears in,
// and with which factor. The chain rule then gives :math:`\partial L / \partial
// a_{il}` as a sum over :math:`j`; read that sum as an element of a product of two
// matrices you have, one of them turned on its side.

// %% fold: includes, and which wrong product an answer is
#include <doctest/doctest.h>

#include <string>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

namespace {
bool same(const Tensor& x, const Tensor& y) {
  return x.shape() == y.shape() && max(abs(x - y)).item() <= 1e-13;
}
// Which of the usual wrong products an answer for dL/dA [n, n] is, in words.
std::string which_product(const Tensor& a, const Tensor& A, const Tensor& B,
                          const Tensor& G) {
  if (same(a, matmul(G, B))) return "yours is G B: this points to B not transposed";
  if (same(a, matmul(transpose(B, 0, 1), G)))
    return "yours is B^T G: this points to the factors in the wrong order";
  if (same(a, matmul(transpose(A, 0, 1), G)))
    return "yours is A^T G, which belongs to B: this points to the two gradients "
           "swapped";
  return "";
}
}  // namespace

// %%
// The function to write, in ``exercises/02_derivatives/3_matmul_backward.cpp``:

struct MatmulGradients {
  Tensor a, b;  // shaped as A and B
};
MatmulGradients matmul_backward(const Tensor& A, const Tensor& B, const Tensor& G);

// %%
// The tests.

TEST_CASE(
    "for square matrices too, where a transpose forgotten still has the right shape") {
  Generator gen(2);
  const Tensor A = randn({3, 3}, gen).requires_grad_(),
               B = randn({3, 3}, gen).requires_grad_();
  const Tensor G = randn({3, 3}, gen);
  sum(matmul(A, B) * G).backward();
  const MatmulGradients mine = matmul_backward(A.detach(), B.detach(), G);
  REQUIRE(mine.a.shape() == A.shape());
  REQUIRE(mine.b.shape() == B.shape());
  const std::string why = exercise::quietly(which_product, mine.a, A, B, G);
  INFO(why);
  CHECK_MESSAGE(max(abs(mine.a - A.grad())).item() <= 1e-13,
                "with square matrices every product has the right shape, so only the "
                "values tell G B^T from G B or B^T G");
  CHECK_MESSAGE(max(abs(mine.b - B.grad())).item() <= 1e-13,
                "and A^T G from A G or G A^T");
}

TEST_CASE("the gradients are litgrad's for A [3,4], B [4,2], to 1e-13") {
  Generator gen(1);
  const Tensor A = randn({3, 4}, gen).requires_grad_(),
               B = randn({4, 2}, gen).requires_grad_();
  const Tensor G = randn({3, 2}, gen);
  sum(matmul(A, B) * G).backward();
  const MatmulGradients mine = matmul_backward(A.detach(), B.detach(), G);
  REQUIRE_MESSAGE(
      mine.a.shape() == A.shape(),
      "dL/dA has A's shape [3,4]: a product of G [3,2] with B turned on its "
      "side, in that order");
  REQUIRE_MESSAGE(mine.b.shape() == B.shape(),
                  "dL/dB has B's shape [4,2]: A turned on its side, times G");
  CHECK_MESSAGE(max(abs(mine.a - A.grad())).item() <= 1e-13,
                "dL/da_il = sum_j g_ij b_lj: row i of G against row l of B");
  CHECK_MESSAGE(max(abs(mine.b - B.grad())).item() <= 1e-13,
                "dL/db_lj = sum_i a_il g_ij: column l of A against column j of G");
}
