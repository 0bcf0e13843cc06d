// Exercise 2.2 · The backward of a matrix product
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
// :math:`a_{il}` appears in every :math:`c_{ij}` of row :math:`i`, multiplied by
// :math:`b_{lj}`: so :math:`\partial L / \partial a_{il} = \sum_j g_{ij} b_{lj}`, which
// is row :math:`i` of :math:`G` times column :math:`l` of :math:`B^T`. Do the same for
// :math:`B`.

// %% fold: includes
#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/02_derivatives/2_matmul_backward.cpp``:

struct MatmulGradients {
  Tensor a, b;  // shaped as A and B
};
MatmulGradients matmul_backward(const Tensor& A, const Tensor& B, const Tensor& G);

// %%
// The tests.

TEST_CASE("the gradients are litgrad's for A [3,4], B [4,2], to 1e-13") {
  Generator gen(1);
  const Tensor A = randn({3, 4}, gen).requires_grad_(),
               B = randn({4, 2}, gen).requires_grad_();
  const Tensor G = randn({3, 2}, gen);
  sum(matmul(A, B) * G).backward();
  const MatmulGradients mine = matmul_backward(A.detach(), B.detach(), G);
  REQUIRE(mine.a.shape() == A.shape());
  REQUIRE(mine.b.shape() == B.shape());
  CHECK(max(abs(mine.a - A.grad())).item() <= 1e-13);
  CHECK(max(abs(mine.b - B.grad())).item() <= 1e-13);
}

TEST_CASE(
    "for square matrices too, where a transpose forgotten still has the right shape") {
  Generator gen(2);
  const Tensor A = randn({3, 3}, gen).requires_grad_(),
               B = randn({3, 3}, gen).requires_grad_();
  const Tensor G = randn({3, 3}, gen);
  sum(matmul(A, B) * G).backward();
  const MatmulGradients mine = matmul_backward(A.detach(), B.detach(), G);
  REQUIRE(mine.a.shape() == A.shape());
  CHECK(max(abs(mine.a - A.grad())).item() <= 1e-13);
  CHECK(max(abs(mine.b - B.grad())).item() <= 1e-13);
}
