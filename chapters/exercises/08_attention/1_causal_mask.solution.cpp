// Exercise 8.1 · The causal mask, by hand: the reference solution.
#include <cmath>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

Tensor causal_mask(std::int64_t length) {
  const Tensor i = reshape(arange(length), {length, 1});  // [L, 1]: query positions
  const Tensor j = reshape(arange(length), {1, length});  // [1, L]: key positions
  return masked_fill(zeros({length, length}), gt(j, i), -INFINITY);  // j > i: masked
}
