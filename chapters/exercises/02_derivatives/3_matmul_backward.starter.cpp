// Exercise 2.3 · The backward of a matrix product. This is your file: write
// matmul_backward below, then run `tools/exercise check 02.3`.
#include <litgrad/litgrad.hpp>

using namespace litgrad;

struct MatmulGradients {
  Tensor a, b;  // shaped as A and B
};

// For C = A B and dL/dC = G: dL/dA and dL/dB.
MatmulGradients matmul_backward(const Tensor& A, const Tensor& B, const Tensor& G) {
  (void)G;  // not used yet
  return {zeros_like(A), zeros_like(B)};
}
