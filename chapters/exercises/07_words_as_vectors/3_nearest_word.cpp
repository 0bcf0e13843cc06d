// Exercise 7.3 · The nearest word
// ===============================
//
// Write a search for the word most similar to a given one: for row :math:`i` of a table
// :math:`[V, D]`, return the index of the *other* row with the largest cosine
// similarity to it. Section 2 showed why the plain dot product will not do when the
// lengths differ: a long vector can outscore a well-aligned one. The tests use a small
// table where the dot product and the cosine disagree, and a table like section 4's
// trained one: four groups of five words, each a slightly noisy copy of its group's
// direction, with each group stretched to a different length.

// %% hint
// Scale every row to length 1 (divide by ``norm(table, 2, {1}, true)``), take the
// matrix of all dot products of the scaled rows, and search row :math:`i` of it for the
// largest entry outside column :math:`i`.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/07_words_as_vectors/3_nearest_word.cpp``:

std::int64_t nearest_word(const Tensor& table, std::int64_t word);

// %%
// The tests.

TEST_CASE("it picks the best aligned row, not the longest, and never the word itself") {
  // Row 1 points almost the same way as row 0; row 2 is long and only roughly aligned.
  const Tensor table = tensor({1, 0, 0.9, 0.1, 10, 8, 0, 1}, {4, 2});
  CHECK(nearest_word(table, 0) == 1);
  CHECK(nearest_word(table, 1) == 0);
  CHECK(nearest_word(table, 3) == 2);
}

TEST_CASE(
    "on groups of noisy copies of four directions, stretched by group, every word's "
    "nearest is a groupmate") {
  // Group g's direction is e_g + (0.5, ..., 0.5): two groups' directions have cosine
  // 3/4. Group g's words have length about 4^g, so that dot products favour group 3.
  Generator gen(8);
  std::vector<double> values(20 * 8);
  for (int w = 0; w < 20; ++w)
    for (int j = 0; j < 8; ++j)
      values[w * 8 + j] =
          std::pow(4.0, w / 5) * ((j == w / 5) + 0.5 + 0.05 * gen.normal());
  const Tensor table = tensor(values, {20, 8});
  for (std::int64_t w = 0; w < 20; ++w) CHECK(nearest_word(table, w) / 5 == w / 5);
}
