// Exercise 8.1 · One head of self-attention
// =========================================
//
// This is the first piece of your own GPT: the head of section 3, written by you. Write
// ``attention_head(x, head, mask)``. Its input ``x`` is a sentence of :math:`L` tokens
// of :math:`E` features, ``[L, E]``, or a batch of sentences, ``[B, L, E]``. ``head``
// holds the three projections: a token :math:`x` (a row) becomes the query
// :math:`q = x W_q + b_q`, the key :math:`k = x W_k + b_k` and the value
// :math:`v = x W_v + b_v`, each of :math:`d` features (``W_q`` is ``[E, d]``, ``b_q``
// is ``[d]``). Token :math:`i` scores token :math:`j` by :math:`q_i \cdot k_j /
// \sqrt{d}`; ``mask``, when it is defined, is an ``[L, L]`` matrix added to the scores
// (0 lets query :math:`i` see key :math:`j`, :math:`-\infty` forbids it, as section 6's
// causal mask); a softmax along each row turns the scores into weights; and token
// :math:`i`'s output is the weighted average of the values. The output is ``[L, d]``,
// or ``[B, L, d]`` for a batch, each sentence attending only to itself.
//
// Write every step yourself, with :cpp:func:`litgrad::matmul`,
// :cpp:func:`litgrad::transpose`, :cpp:func:`litgrad::softmax` and the arithmetic
// operators; the tests compare your answer with the library's
// :cpp:func:`litgrad::scaled_dot_product_attention`. They do not ask for its bits: a
// right answer may divide by :math:`\sqrt d` after the product instead of before, or
// add its sums in another order. They ask for its numbers to within what rounding can
// explain, derived element by element in ``chapters/exercises/rounding_allowance.hpp``
// (a failing check prints it beside the difference). Exercise 8.2 builds several heads
// from yours.

// %% hint
// Work one shape at a time, for one sentence first: the queries of all :math:`L` tokens
// are one product, ``[L, E]`` times ``[E, d]``; all the scores are one product of the
// queries with the keys, and its result should be ``[L, L]``, row :math:`i` for query
// :math:`i`. Which dimension of the keys has to be turned, and which of a batch ``[B,
// L, d]``'s dimensions are those two? Along which dimension does each query's
// distribution of weight run? A score a mask forbids must end with weight exactly 0:
// where in the chain must the mask go for that to happen, and for the allowed weights
// to still sum to 1?

// %% fold: includes, and the library's head and the mistakes' own outputs
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "rounding_allowance.hpp"
#include "exercise_checks.hpp"
#include "your_gpt.hpp"

using namespace litgrad;

namespace {
// Random projections E -> d, the weights of the size nn::Linear starts them at times
// `scale`, the biases N(0, 1/4).
HeadProjections random_head(std::int64_t E, std::int64_t d, Generator& gen,
                            double scale = 1.0) {
  const auto W = [&] { return randn({E, d}, gen) * (scale / std::sqrt(E)); };
  const auto b = [&] { return randn({d}, gen) * 0.5; };
  HeadProjections p;
  p.W_q = W(), p.W_k = W(), p.W_v = W(), p.b_q = b(), p.b_k = b(), p.b_v = b();
  return p;
}

// The library's head: x [.., L, E] -> [.., L, d].
Tensor library_head(const Tensor& x, const HeadProjections& p, const Tensor& mask) {
  return scaled_dot_product_attention(matmul(x, p.W_q) + p.b_q,
                                      matmul(x, p.W_k) + p.b_k,
                                      matmul(x, p.W_v) + p.b_v, mask)
      .output;
}

// A head from its queries, keys and values [.., L, d]: the scores divided by `root`,
// the mask added when there is one, the softmax along `dim`.
Tensor attend(const Tensor& Q, const Tensor& K, const Tensor& V, double root,
              const Tensor& mask, std::int64_t dim = -1) {
  Tensor scores = matmul(Q, transpose(K, -2, -1)) / root;
  if (mask.defined()) scores = scores + mask;
  return matmul(softmax(scores, dim), V);
}

// What each catalogued mistake computes, to name it when an answer's output is its
// output on the test's input (NaN matching NaN).
std::string mistake_behind(const Tensor& x, const HeadProjections& p,
                           const Tensor& mask, const Tensor& yours) {
  const Tensor Q0 = matmul(x, p.W_q), K0 = matmul(x, p.W_k);
  const Tensor V0 = matmul(x, p.W_v);
  const Tensor Q = Q0 + p.b_q, K = K0 + p.b_k, V = V0 + p.b_v;
  const double d = std::sqrt(static_cast<double>(p.W_q.size(-1)));  // √d
  const double E = std::sqrt(static_cast<double>(x.size(-1)));      // √E
  const Tensor scores = matmul(Q, transpose(K, -2, -1)) / d;
  const auto after_softmax = [&] {  // the mask's zeros applied to the weights
    if (!mask.defined()) throw ValueError("no mask");
    return matmul(softmax(scores, -1) * (mask == 0.0).to(DType::Float64), V);
  };
  const auto unshifted = [&] {  // e^s / Σ e^s
    const Tensor e = exp(mask.defined() ? scores + mask : scores);
    return matmul(e / sum(e, {-1}, true), V);
  };
  const std::vector<std::pair<std::function<Tensor()>, std::string>> mistakes = {
      {[&] { return attend(Q, K, V, 1.0, mask); },
       "the scores not divided by the square root of d"},
      {[&] { return attend(Q, K, V, E, mask); },
       "the scores divided by the square root of E, not of d: d is the width of a "
       "query, not of a token"},
      {[&] { return attend(Q, K, V, d, mask, -2); }, "softmax along the queries"},
      {[&] { return attend(Q, K, K, d, mask); }, "the keys used as values"},
      {[&] { return attend(K, Q, V, d, mask); }, "queries and keys swapped"},
      {[&] { return attend(Q0, K0, V0, d, mask); }, "a bias left out (all three)"},
      {[&] { return attend(Q, K, V0, d, mask); }, "a bias left out (the value's)"},
      {[&] { return attend(Q0, K, V, d, mask); }, "a bias left out (the query's)"},
      {after_softmax, "the mask applied after the softmax"},
      {unshifted,
       "a softmax without the max shift: e^s overflows to inf once a score passes "
       "709"}};
  const std::string name = exercise::the_mistake(mistakes, [&](const auto& f) {
    return bool(exercise::agrees(yours, f(), 1e-9));
  });
  return name.empty() ? "" : "your output is the output of " + name + " (to 1e-9)";
}

// Your head on x: run with copies of what it is handed kept, so that a head that
// changes its inputs in place is told so (rather than compared with a reference
// computed from the changed inputs), then checked against the library's; the message
// says where they differ and, when your output is a catalogued mistake's, which.
Tensor check_head(const Tensor& x, const HeadProjections& p, const Tensor& mask) {
  const exercise::Untouched inputs({{"x", x},
                                    {"W_q", p.W_q},
                                    {"W_k", p.W_k},
                                    {"W_v", p.W_v},
                                    {"b_q", p.b_q},
                                    {"b_k", p.b_k},
                                    {"b_v", p.b_v},
                                    {"mask", mask}});
  const Tensor yours = attention_head(x, p, mask);
  const std::string changed = inputs.changed();
  REQUIRE_MESSAGE(changed.empty(), changed);
  REQUIRE_MESSAGE(yours.defined(), "your head returned an undefined Tensor");
  const Tensor expected = library_head(x, p, mask);
  const Tensor allowed = 2 * exercise::head_allowance(x, p, mask).allowance;
  const std::string why = exercise::quietly(mistake_behind, x, p, mask, yours);
  INFO(why);
  CHECK(exercise::within(yours, expected, allowed));
  return yours;
}
}  // namespace

// %%
// The function to write, in ``exercises/08_attention/1_attention_head.cpp``
// (``HeadProjections`` is in ``chapters/exercises/your_gpt.hpp``, which your file
// includes):

Tensor attention_head(const Tensor& x, const HeadProjections& head, const Tensor& mask);

// %%
// The tests.

TEST_CASE("one sentence, no mask: your head gives the library's head's output") {
  Generator gen(11);
  const Tensor x = randn({6, 8}, gen);  // 6 tokens of 8 features
  check_head(x, random_head(8, 4, gen), Tensor());
}

TEST_CASE(
    "with the causal mask, your head gives the library's causal head's output, and an "
    "earlier token's output does not move when a later token changes") {
  Generator gen(12);
  const Tensor x = randn({6, 8}, gen);
  const HeadProjections p = random_head(8, 4, gen);
  const Tensor mask = generate_square_subsequent_mask(6);
  const Tensor yours = check_head(x, p, mask);
  REQUIRE(yours.shape() == Shape{6, 4});
  // The last token changed: the first five outputs must not see it (beyond rounding,
  // which an answer that subtracts one largest score for the whole map may move).
  const Tensor changed = cat({slice(x, 0, 0, 5), randn({1, 8}, gen)}, 0);
  const Tensor earlier = slice(attention_head(changed, p, mask), 0, 0, 5);
  const Tensor allowed = 2 * exercise::head_allowance(x, p, mask).allowance;
  CHECK_MESSAGE(
      exercise::within(earlier, slice(yours, 0, 0, 5), slice(allowed, 0, 0, 5)),
      "the first five tokens' outputs changed when only the sixth token did");
}

TEST_CASE(
    "a batch of three sentences [3, 5, 8]: each sentence attends only to itself, as "
    "the library's head does") {
  Generator gen(13);
  const Tensor x = randn({3, 5, 8}, gen);
  const HeadProjections p = random_head(8, 4, gen);
  check_head(x, p, Tensor());
  check_head(x, p, generate_square_subsequent_mask(5));
}

// %%
// Scores in the thousands are where a softmax written as :math:`e^{s_j} / \sum_k
// e^{s_k}` breaks: :math:`e^{710}` is already beyond the largest double. The library's
// softmax, and yours if you used it, subtracts each row's largest score first.

TEST_CASE("scores in the thousands: your head's outputs are finite and the library's") {
  Generator gen(14);
  const Tensor x = randn({5, 8}, gen) * 6;
  const HeadProjections p = random_head(8, 4, gen, 12.0);
  const Tensor Q = matmul(x, p.W_q) + p.b_q, K = matmul(x, p.W_k) + p.b_k;
  const double largest = max(abs(matmul(Q, transpose(K, 0, 1)) / 2.0)).item();
  REQUIRE(largest > 1000);  // the test's own premise
  INFO("the largest score here is ", largest);
  check_head(x, p, Tensor());
}

TEST_CASE(
    "your head leaves the caller's x, projections and mask exactly as they were, and "
    "gives one output of d features per token") {
  Generator gen(15);
  const Tensor x = randn({2, 4, 6}, gen);
  const HeadProjections p = random_head(6, 3, gen);
  const Tensor mask = generate_square_subsequent_mask(4);
  const Tensor yours = check_head(x, p, mask);
  CHECK(yours.shape() == Shape{2, 4, 3});
}
