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
// A cosine is a dot product that no longer cares how long the vectors are: what would
// you do to every row first, so that plain dot products between rows become cosines?
// And among all rows, which one always has the largest cosine with row :math:`i`?

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/07_words_as_vectors/3_nearest_word.cpp``:

std::int64_t nearest_word(const Tensor& table, std::int64_t word);

// %% fold: a small table, and what your answer for it points to
namespace {
// Row 1 points almost the same way as row 0; row 2 is long and only roughly aligned;
// row 3 is at right angles to row 0.
std::string probe() {
  const std::int64_t yours =
      nearest_word(tensor({1, 0, 0.9, 0.1, 10, 8, 0, 1}, {4, 2}), 0);
  const std::string s = "for row 0 of the small table yours is row " +
                        std::to_string(yours) + " (row 1 is right)";
  if (yours == 0)
    return s +
           ": every word is most similar to itself; this points to the word found "
           "as its own nearest";
  if (yours == 2)
    return s +
           ": the longest row, not the best aligned, so the rows were not each "
           "scaled to length 1; this points to the raw dot product, not the cosine, "
           "or to vectors scaled along the wrong dimension";
  if (yours == 3)
    return s +
           ": the row at right angles, whose cosine is 0; this points to the least "
           "similar word";
  return s;
}
}  // namespace

// %%
// The tests.

TEST_CASE("it picks the best aligned row, not the longest, and never the word itself") {
  INFO(probe());
  // Row 1 points almost the same way as row 0; row 2 is long and only roughly aligned.
  const Tensor table = tensor({1, 0, 0.9, 0.1, 10, 8, 0, 1}, {4, 2});
  CHECK(nearest_word(table, 0) == 1);
  CHECK(nearest_word(table, 1) == 0);
  CHECK(nearest_word(table, 3) == 2);
}

TEST_CASE(
    "on groups of noisy copies of four directions, stretched by group, every word's "
    "nearest is a groupmate") {
  INFO(probe());
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
