// Exercise 9.3 · The induction rule
// =================================
//
// Write the rule section 4's models must learn, as a plain function: given a sequence
// whose last token also appears earlier, return the token that followed the earlier
// copy (the latest earlier copy, should there be several). Return -1 when the last
// token does not appear earlier, or when its only earlier copy is the token just before
// it, with nothing between to follow it. The tests check the chapter's example, random
// sequences built as the chapter builds them, and the two cases with no answer.

// %% hint
// Search backwards from the second-to-last position for the last token; the answer is
// the token one place after the match.

// %% fold: includes
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

// %%
// The function to write, in ``exercises/09_transformer/3_induction_answer.cpp``:

std::int64_t induction_answer(const std::vector<std::int64_t>& sequence);

// %%
// The tests.

TEST_CASE("a b c d e f g h i j k d gives e") {
  CHECK(induction_answer({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 3}) == 4);
}

TEST_CASE(
    "on 1,000 sequences built as the chapter builds them, it gives their answers") {
  Generator gen(11);
  for (int trial = 0; trial < 1000; ++trial) {
    const Tensor order = randperm(16, gen);
    std::vector<std::int64_t> sequence;
    for (std::int64_t t = 0; t < 11; ++t)
      sequence.push_back(std::llround(order.at({t})));
    const std::int64_t copy_at = gen.randint(0, 10);
    sequence.push_back(sequence[copy_at]);
    CHECK(induction_answer(sequence) == sequence[copy_at + 1]);
  }
}

TEST_CASE("with no earlier copy, or only the one just before, the answer is -1") {
  CHECK(induction_answer({0, 1, 2, 3}) == -1);
  CHECK(induction_answer({0, 1, 2, 2}) == -1);
}
