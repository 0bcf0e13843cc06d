// FlopCounter: the matrix products' operations, 2 n k m each, counted in both rooms alike.
#include <doctest/doctest.h>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

TEST_CASE("FlopCounter counts 2 n k m for an n x k by k x m product, and nothing for element-wise work") {
  Generator gen(1);
  const Tensor a = randn({8, 16}, gen), b = randn({16, 4}, gen);
  FlopCounter counter;
  const Tensor c = matmul(a, b);
  CHECK(counter.total_flops() == 2 * 8 * 16 * 4);
  counter.reset();
  const Tensor d = exp(a) + a * a;
  CHECK(counter.total_flops() == 0);
  const Tensor batched = matmul(randn({3, 5, 7}, gen), randn({3, 7, 2}, gen));
  CHECK(counter.total_flops() == 2 * 3 * 5 * 7 * 2);
}

TEST_CASE("FlopCounter counts a backward's products: matmul's two gradients cost twice its forward") {
  Generator gen(2);
  const Tensor a = randn({6, 9}, gen).requires_grad_(), b = randn({9, 5}, gen).requires_grad_();
  const Tensor c = matmul(a, b);
  FlopCounter counter;
  sum(c).backward();
  CHECK(counter.total_flops() == 2 * (2 * 6 * 9 * 5));
}

TEST_CASE("FlopCounter counts a linear layer and attention's scores and weighted sums, and counters nest") {
  Generator gen(3);
  nn::Linear linear(10, 3, true, gen);
  FlopCounter outer;
  linear(randn({4, 10}, gen));
  CHECK(outer.total_flops() == 2 * 4 * 10 * 3);
  FlopCounter inner;
  const Tensor q = randn({2, 5, 8}, gen), k = randn({2, 7, 8}, gen), v = randn({2, 7, 6}, gen);
  scaled_dot_product_attention(q, k, v);
  // the scores: 2 batches of 5 x 8 by 8 x 7; the weighted sum: 2 of 5 x 7 by 7 x 6
  CHECK(inner.total_flops() == 2 * (2 * 5 * 8 * 7 + 2 * 5 * 7 * 6));
  CHECK(outer.total_flops() == 2 * 4 * 10 * 3 + inner.total_flops());
}
