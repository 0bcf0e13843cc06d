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

#include <optional>
#include <string>

#include <exercise_checks.hpp>
#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/02_derivatives/2_matmul_backward.cpp``:

struct MatmulGradients {
  Tensor a, b;  // shaped as A and B
};
MatmulGradients matmul_backward(const Tensor& A, const Tensor& B, const Tensor& G);

// %% fold: your gradients, and what a wrong one points to
namespace {
// Your gradients for A, B and G, or nothing if your function threw (the message says
// what was thrown and what that points to).
std::optional<MatmulGradients> yours_for(const Tensor& A, const Tensor& B,
                                         const Tensor& G) {
  std::string threw;
  try {
    return matmul_backward(A, B, G);
  } catch (const std::exception& e) {
    threw = e.what();
  }
  const std::string why =
      threw.rfind("matmul", 0) == 0
          ? "; a product whose shapes do not fit points to a transpose forgotten"
          : "";
  FAIL_CHECK("your function threw: ", threw, why);
  return std::nullopt;
}

// What your gradients' shapes say, if they are wrong.
std::string shape_problem(const MatmulGradients& mine, const Tensor& A,
                          const Tensor& B) {
  if (mine.a.shape() == B.shape() && mine.b.shape() == A.shape() &&
      A.shape() != B.shape())
    return "the gradient for A has B's shape and the other way round: this points "
           "to the two gradients swapped";
  return "each gradient has the shape of what it is the gradient of: A " +
         to_string(A.shape()) + ", B " + to_string(B.shape());
}

// What wrong values of dL/dA point to, found by asking autograd for the gradients of
// two related losses: sum(AB), as if G were all ones, and sum((ABᵀ) * G).
std::string a_problem(const Tensor& yours, const Tensor& A, const Tensor& B,
                      const Tensor& G) {
  Tensor a = A.detach().requires_grad_();
  sum(matmul(a, B)).backward();
  if (exercise::agrees(yours, a.grad(), 1e-12))
    return "yours is the gradient of sum(AB), as if every entry of G were 1: this "
           "points to G ignored";
  if (B.size(0) == B.size(1)) {
    Tensor t = A.detach().requires_grad_();
    sum(matmul(t, transpose(B, 0, 1)) * G).backward();
    if (exercise::agrees(yours, t.grad(), 1e-12))
      return "yours is the gradient for the product with B's transpose: this points to "
             "a transpose forgotten";
  }
  return "";
}
}  // namespace

// %%
// The tests.

TEST_CASE("the gradients are litgrad's for A [3,4], B [4,2], to 1e-13") {
  Generator gen(1);
  const Tensor A = randn({3, 4}, gen).requires_grad_(),
               B = randn({4, 2}, gen).requires_grad_();
  const Tensor G = randn({3, 2}, gen);
  sum(matmul(A, B) * G).backward();
  const auto mine = yours_for(A.detach(), B.detach(), G);
  REQUIRE(mine);
  const std::string why = exercise::quietly(shape_problem, *mine, A, B);
  INFO(why);
  REQUIRE(mine->a.shape() == A.shape());
  REQUIRE(mine->b.shape() == B.shape());
  CHECK_MESSAGE(exercise::agrees(mine->a, A.grad(), 1e-13),
                "dL/dA: ", a_problem(mine->a, A.detach(), B.detach(), G));
  CHECK_MESSAGE(exercise::agrees(mine->b, B.grad(), 1e-13), "dL/dB");
}

TEST_CASE(
    "for square matrices too, where a transpose forgotten still has the right shape") {
  Generator gen(2);
  const Tensor A = randn({3, 3}, gen).requires_grad_(),
               B = randn({3, 3}, gen).requires_grad_();
  const Tensor G = randn({3, 3}, gen);
  sum(matmul(A, B) * G).backward();
  const auto mine = yours_for(A.detach(), B.detach(), G);
  REQUIRE(mine);
  REQUIRE(mine->a.shape() == A.shape());
  CHECK_MESSAGE(exercise::agrees(mine->a, A.grad(), 1e-13),
                "dL/dA: ", a_problem(mine->a, A.detach(), B.detach(), G));
  CHECK_MESSAGE(exercise::agrees(mine->b, B.grad(), 1e-13), "dL/dB");
}
