// Exercise 7.2 · A sentence's vector
// ==================================
//
// Write the average of section 3: given an embedding table and a sentence's word ids,
// return the mean of the words' rows, a tensor of shape :math:`[D]`. The tests check it
// against the rows averaged by hand, that a word repeated counts twice, that every
// order of the words gives the same vector to :math:`2u \sum_i |x_i|`-sized rounding
// (we allow :math:`10^{-15}` on entries of size about 1), and that the gradient of its
// sum reaches each looked-up row as :math:`1/n` times how often the word occurs.

// %% hint
// Look the ids up with the table (an Int64 tensor of shape [n] gives [n, D]), then take
// ``mean`` over dimension 0. Make the ids with ``tensor(values, {n}, DType::Int64)``.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/07_words_as_vectors/2_sentence_vector.cpp``:

Tensor sentence_vector(const nn::Embedding& table,
                       const std::vector<std::int64_t>& words);

// %%
// The tests.

TEST_CASE("it is the mean of the words' rows, shape [D]") {
  Generator gen(5);
  nn::Embedding table(6, 4, std::nullopt, gen);
  const Tensor v = sentence_vector(table, {1, 4, 2});
  REQUIRE(v.shape() == Shape{4});
  for (std::int64_t j = 0; j < 4; ++j) {
    const double by_hand =
        (table.weight.at({1, j}) + table.weight.at({4, j}) + table.weight.at({2, j})) /
        3;
    CHECK(std::fabs(v.at({j}) - by_hand) < 1e-15);
  }
}

TEST_CASE("a repeated word counts twice, and the order does not matter") {
  Generator gen(6);
  nn::Embedding table(6, 4, std::nullopt, gen);
  const Tensor a = sentence_vector(table, {3, 0, 3}),
               b = sentence_vector(table, {0, 3, 3});
  for (std::int64_t j = 0; j < 4; ++j) {
    const double by_hand = (2 * table.weight.at({3, j}) + table.weight.at({0, j})) / 3;
    CHECK(std::fabs(a.at({j}) - by_hand) < 1e-15);
    CHECK(std::fabs(a.at({j}) - b.at({j})) < 1e-15);
  }
}

TEST_CASE("the gradient of its sum gives each row 1/n times the word's count") {
  Generator gen(7);
  nn::Embedding table(5, 3, std::nullopt, gen);
  sum(sentence_vector(table, {2, 4, 2, 1})).backward();
  const double expected[] = {0, 0.25, 0.5, 0, 0.25};
  for (std::int64_t row = 0; row < 5; ++row)
    for (std::int64_t j = 0; j < 3; ++j)
      CHECK(table.weight.grad().at({row, j}) == expected[row]);
}
