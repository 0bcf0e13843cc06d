// Exercise 11.1 · One merge
// =========================
//
// Write one step of byte-pair encoding's training, the step section 3 takes by hand, on
// one sequence of token ids:
//
// 1. count every pair of adjacent tokens. A pair's count is the number of its
//    occurrences that a replacement from left to right would replace: in ``a a a`` the
//    two occurrences of ``(a, a)`` overlap, only one can become a token, so it counts
//    once; in ``a a a a`` twice. (This is the book's rule, section 3 says why; the
//    common trainers, minbpe's among them, count overlaps, and the tests hold you to
//    the book's.)
// 2. choose the pair with the largest count; between equal counts, the one with the
//    smaller left id, and then the smaller right id.
// 3. replace its occurrences, from left to right, by ``new_id``.
//
// Return the pair and its count. The sequence holds at least two tokens. The tests
// check the count in runs of one token, the tie rule, and that the sequence shortens by
// exactly the count, keeping every token that is not part of a replaced pair.

// %% hint
// A ``std::map`` keyed by the pair visits pairs in order of (left, right), which is the
// tie rule, if you keep the first of equal counts. For the counting, ask at each
// position whether the pair there could still be replaced if the one before it was.

// %% fold: includes
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "exercise_checks.hpp"  // vectors print as {a, b, c}

// %%
// The function to write, in ``exercises/11_tokens/1_merge_step.cpp``:

struct Merge {
  std::int64_t left, right, count;  // the pair merged, and how often it occurred
};

Merge merge_step(std::vector<std::int64_t>& tokens, std::int64_t new_id);

// %%
// The tests.

namespace {
std::vector<std::int64_t> bytes_of(const std::string& text) {
  return std::vector<std::int64_t>(text.begin(), text.end());
}
}  // namespace

TEST_CASE(
    "overlapping pairs count once: in aaabaaacaaad the pair aa counts 3, "
    "one per run of three a's, not 6") {
  std::vector<std::int64_t> tokens = bytes_of("aaabaaacaaad");
  const Merge m = merge_step(tokens, 256);
  CHECK(m.left == 'a');
  CHECK(m.right == 'a');
  INFO(
      "counted with overlaps, each run of three a's would give aa twice: 6 points "
      "to overlapping pairs counted twice in 'aaa' (the common trainers' rule, not "
      "the book's rule this exercise asks for)");
  CHECK(m.count == 3);
}

TEST_CASE("ties go to the pair with the smaller left id, then the smaller right id") {
  std::vector<std::int64_t> first = {5, 6, 7, 5, 6, 7};  // (5,6) and (6,7) both twice
  const Merge a = merge_step(first, 100);
  INFO(
      "of (5,6) and (6,7), each counted twice, the smaller left id is 5: (6,7) "
      "points to ties go to the last pair seen");
  CHECK(a.left == 5);
  CHECK(a.right == 6);
  // (3,9), (9,3) and (3,4) twice each:
  std::vector<std::int64_t> second = {3, 9, 3, 4, 3, 9, 3, 4};
  const Merge b = merge_step(second, 100);
  INFO("of (3,4), (3,9) and (9,3), each counted twice, (3,4) has the smallest ids");
  CHECK(b.left == 3);
  CHECK(b.right == 4);
}

TEST_CASE(
    "every occurrence is replaced left to right, so the sequence shortens by "
    "exactly the count") {
  std::vector<std::int64_t> run = {1, 1, 1, 1};
  const Merge a = merge_step(run, 9);
  CHECK(a.count == 2);
  CHECK_MESSAGE((run == std::vector<std::int64_t>{9, 9}),
                "a longer result points to the merged pair's right token read again");
  std::vector<std::int64_t> text = bytes_of("aaabaaacaaad");
  const Merge b = merge_step(text, 256);
  INFO("the merged pair's right token is used up: it cannot start another pair");
  CHECK_MESSAGE(text.size() == 12 - b.count,
                "one token short points to the last token dropped");
  CHECK(text == std::vector<std::int64_t>{256, 'a', 'b', 256, 'a', 'c', 256, 'a', 'd'});
}

TEST_CASE("tokens outside the replaced pairs are kept, the last one included") {
  std::vector<std::int64_t> tokens = {1, 2, 3, 1, 2, 4};
  const Merge m = merge_step(tokens, 7);
  CHECK(m.count == 2);
  CHECK(tokens == std::vector<std::int64_t>{7, 3, 7, 4});
}
