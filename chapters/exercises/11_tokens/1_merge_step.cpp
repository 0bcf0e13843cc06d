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
#include <map>
#include <string>
#include <utility>
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

// The merge step with the catalogued mistakes as switches: overlapping pairs counted,
// ties to the larger ids, the merged pair's right token read again, the last token
// dropped.
struct Variant {
  bool overlaps = false, last_tie = false, reread = false, drop_last = false;
};

Merge variant_step(std::vector<std::int64_t>& tokens, std::int64_t new_id,
                   const Variant& v) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    ++counts[{tokens[i], tokens[i + 1]}];
    if (!v.overlaps && i + 2 < tokens.size() && tokens[i] == tokens[i + 1] &&
        tokens[i + 1] == tokens[i + 2])
      ++i;
  }
  Merge best{0, 0, 0};
  for (const auto& [pair, count] : counts)
    if (count > best.count || (v.last_tie && count == best.count))
      best = {pair.first, pair.second, count};
  std::vector<std::int64_t> out;
  const std::size_t end = v.drop_last ? tokens.size() - 1 : tokens.size();
  for (std::size_t i = 0; i < end; ++i) {
    if (i + 1 < tokens.size() && tokens[i] == best.left &&
        tokens[i + 1] == best.right) {
      out.push_back(new_id);
      if (!v.reread) ++i;
    } else {
      out.push_back(tokens[i]);
    }
  }
  tokens = out;
  return best;
}

std::string shown(const Merge& m) {
  return "(" + std::to_string(m.left) + ", " + std::to_string(m.right) + ") counted " +
         std::to_string(m.count);
}

// Your step on `tokens` against the right one: what differs, and the catalogued mistake
// whose merge and sequence yours are, if any.
void check_step(const std::vector<std::int64_t>& tokens, std::int64_t new_id) {
  std::vector<std::int64_t> yours = tokens, expected = tokens;
  const Merge m = merge_step(yours, new_id), e = variant_step(expected, new_id, {});
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {{true, false, false, false}, "overlapping pairs counted twice in 'aaa'"},
      {{false, true, false, false}, "ties go to the last pair seen"},
      {{false, false, true, false}, "the merged pair's right token read again"},
      {{false, false, false, true}, "the last token dropped"}};
  const std::string name = exercise::the_mistake(mistakes, [&](const Variant& v) {
    std::vector<std::int64_t> theirs = tokens;
    const Merge t = variant_step(theirs, new_id, v);
    return t.left == m.left && t.right == m.right && t.count == m.count &&
           theirs == yours;
  });
  const std::string why =
      name.empty() ? "" : "your merge and sequence are exactly those of " + name;
  INFO(why);
  INFO("on ", exercise::number(static_cast<double>(tokens.size())),
       " tokens: your merge is ", shown(m), ", the right one ", shown(e));
  CHECK((m.left == e.left && m.right == e.right && m.count == e.count));
  CHECK(yours == expected);
}
}  // namespace

TEST_CASE(
    "overlapping pairs count once: in aaabaaacaaad the pair aa counts 3, "
    "one per run of three a's, not 6") {
  check_step(bytes_of("aaabaaacaaad"), 256);
}

TEST_CASE("ties go to the pair with the smaller left id, then the smaller right id") {
  check_step({5, 6, 7, 5, 6, 7}, 100);        // (5,6) and (6,7) twice each
  check_step({3, 9, 3, 4, 3, 9, 3, 4}, 100);  // (3,4), (3,9) and (9,3) twice each
}

TEST_CASE(
    "every occurrence is replaced left to right, so the sequence shortens by "
    "exactly the count") {
  check_step({1, 1, 1, 1}, 9);
  check_step(bytes_of("aaabaaacaaad"), 256);
}

TEST_CASE("tokens outside the replaced pairs are kept, the last one included") {
  check_step({1, 2, 3, 1, 2, 4}, 7);
}
