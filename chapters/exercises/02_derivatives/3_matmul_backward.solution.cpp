// Exercise 2.3 · The backward of a matrix product: the reference solution.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct MatmulGradients {
  Tensor a, b;
};

// dL/da_il = sum_j g_ij b_lj = (G Bᵀ)_il;  dL/db_lj = sum_i a_il g_ij = (Aᵀ G)_lj.
MatmulGradients matmul_backward(const Tensor& A, const Tensor& B, const Tensor& G) {
  return {matmul(G, transpose(B, 0, 1)), matmul(transpose(A, 0, 1), G)};
}
