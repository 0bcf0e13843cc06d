// Exercise 11.3 · Encoding with the merges
// ========================================
//
// Training leaves a list of merges, in the order they were learned; merge :math:`k`
// joins a pair of ids ``(left, right)`` into the new id :math:`256 + k`. Encoding a new
// piece of text replays them: start from the piece's bytes (each byte's value is its
// id, from 0 to 255), then, for each merge in the order learned, replace every
// occurrence of its pair, from left to right, by its id. Write that encoder for one
// piece. The tests work small cases by hand where the order matters, and compare your
// ids with :cpp:func:`litgrad::BPETokenizer::encode` on every piece of a text, with a
// tokenizer trained on it.

// %% hint
// Two loops: the outer one over the merges, the inner one over the ids, building the
// next list of ids as section 3's ``merge`` does. Read each byte as an ``unsigned
// char``.

// %% fold: includes
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"  // vectors print as {a, b, c}

// %%
// The function to write, in ``exercises/11_tokens/3_encode.cpp``:

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::vector<std::int64_t> encode_piece(const std::string& piece, const Merges& merges);

// %%
// The tests.

using Ids = std::vector<std::int64_t>;

// %% fold: what a wrong encoding of abc, with (b, c) learned before (a, b), points to
namespace {
bool holds(const Ids& ids, std::int64_t id) {
  for (std::int64_t x : ids)
    if (x == id) return true;
  return false;
}
std::string what_is_wrong_with_abc(const Ids& ids) {
  if (holds(ids, 257))
    return "(a, b) was merged: this points to merges replayed from the last learned";
  if (holds(ids, 0) || holds(ids, 1))
    return "a merged pair has an id below 256, which belongs to a byte: this points "
           "to a merge's number taken for its id";
  if (ids.size() == 3 && holds(ids, 256))
    return "c is still there after (b, c) was replaced: this points to the replaced "
           "pair's right token read again";
  return "";
}
}  // namespace

// %%

TEST_CASE(
    "merges are replayed in the order they were learned, not in the order their "
    "pairs occur in the piece") {
  const Merges merges = {{'b', 'c'}, {'a', 'b'}};  // (b, c) is 256, (a, b) is 257
  const Ids abc = encode_piece("abc", merges);
  const std::string why = what_is_wrong_with_abc(abc);
  INFO(why);  // first: a later empty INFO would end doctest's report of the check
  INFO("(b, c) was learned first, so in abc it wins although (a, b) comes first");
  CHECK(abc == Ids{'a', 256});
  CHECK(encode_piece("abab", merges) == Ids{257, 257});
}

TEST_CASE(
    "every occurrence of a pair is replaced, and a replaced pair's right token "
    "is used up") {
  const Merges merges = {{'a', 'b'}, {'a', 'a'}};
  INFO("ababab holds (a, b) three times; in aaa only one (a, a) can be replaced");
  CHECK(encode_piece("ababab", merges) == Ids{256, 256, 256});
  CHECK(encode_piece("aaa", merges) == Ids{257, 'a'});
}

TEST_CASE(
    "a later merge builds on an earlier merge's token, whose id is 256 plus its "
    "number") {
  const Merges merges = {{'a', 'b'}, {256, 'c'}};  // ab is 256, abc is 257
  CHECK(encode_piece("abcab", merges) == Ids{257, 256});
  CHECK(encode_piece("c", merges) == Ids{'c'});
}

TEST_CASE(
    "bytes of 128 or more, the pieces of characters outside ASCII, are the ids "
    "128 to 255") {
  CHECK_MESSAGE((encode_piece("caf\xc3\xa9", {}) == Ids{'c', 'a', 'f', 0xC3, 0xA9}),
                "a negative id points to bytes read as signed char");
}

TEST_CASE(
    "on every piece of a text, the ids equal BPETokenizer::encode's, with a "
    "tokenizer trained on that text") {
  const std::string text =
      "the cat sat on the mat; the rat sat on the hat, and the cat ate the rat's hat.";
  litgrad::BPETokenizer tokenizer;
  tokenizer.train(text, 290);
  int differing = 0;
  for (std::string_view piece : litgrad::pretokenize(text)) {
    const auto mine = encode_piece(std::string(piece), tokenizer.merges());
    INFO("the piece '", std::string(piece), "'");
    CHECK(mine == tokenizer.encode(piece));
    differing += mine != tokenizer.encode(piece);
  }
  CHECK(differing == 0);
}
