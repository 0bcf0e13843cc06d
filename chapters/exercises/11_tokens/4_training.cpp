// Exercise 11.4 · Training byte-pair encoding, merge for merge
// ============================================================
//
// Write the whole of byte-pair training, section 4's way, and make it learn exactly
// the merges :cpp:func:`litgrad::BPETokenizer::train` learns. ``train_bpe(text,
// vocab_size)`` returns the merges, in order: merge :math:`k` joins a pair of tokens
// ``(left, right)`` into the new token :math:`256 + k`.
//
// 1. Cut the text into pieces with :cpp:func:`litgrad::pretokenize`; keep each distinct
//    piece once, as its bytes (token ids 0 to 255), with the number of times it occurs.
// 2. Count every pair of neighbouring tokens within the pieces, each piece's pairs
//    weighted by its number of occurrences, by section 3's rule: a pair's count is the
//    number of occurrences a replacement from left to right would replace (in ``a a
//    a`` the pair ``(a, a)`` counts once).
// 3. Take the pair with the largest count; between equal counts, the one with the
//    smaller left id, then the smaller right id. Replace its occurrences in every
//    piece, left to right, by the next id, and record it.
// 4. Repeat until there are ``vocab_size - 256`` merges, or stop early when no piece
//    has a pair left.
//
// The tests compare your merges with the library's, merge for merge, on texts made to
// tell the rules apart, on accented words (UTF-8's bytes of 128 and more), and on
// 20,000 generated words of an invented language, and check that you stop when nothing
// is left to merge.

// %% hint
// Keep the pieces as a ``std::map`` from their bytes to their number of occurrences,
// then as a list of (tokens, weight). A ``std::map`` keyed by the pair visits pairs in
// order of (left, right), which is the tie rule if you keep the first of equal counts.
// Count within each piece, never across the end of one piece and the start of the next.

// %% fold: includes, the library's training, and the mistakes' own merges
#include <doctest/doctest.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

#include "exercise_checks.hpp"

using namespace litgrad;

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;
Merges train_bpe(std::string_view text, std::int64_t vocab_size);  // yours, below

namespace {
Merges library_merges(std::string_view text, std::int64_t vocab_size) {
  BPETokenizer tokenizer;
  tokenizer.train(text, vocab_size);
  return tokenizer.merges();
}

// Byte-pair training with the catalogued mistakes as switches.
struct Variant {
  bool overlaps = false;      // every adjacent pair counted, overlaps included
  bool last_tie = false;      // ties go to the larger ids
  bool across = false;        // the pieces joined into one text
  bool unweighted = false;    // each distinct piece counted once
  std::int64_t short_by = 0;  // merges left out at the end
};

Merges variant_merges(std::string_view text, std::int64_t vocab_size,
                      const Variant& v) {
  using Tokens = std::vector<std::int64_t>;
  std::map<std::string, std::int64_t> distinct;
  for (std::string_view piece : pretokenize(text)) ++distinct[std::string(piece)];
  std::vector<std::pair<Tokens, std::int64_t>> pieces;
  if (v.across) {
    pieces.push_back({Tokens(text.begin(), text.end()), 1});
    for (auto& t : pieces.back().first) t = static_cast<unsigned char>(t);
  } else {
    for (const auto& [bytes, n] : distinct) {
      Tokens t;
      for (unsigned char c : bytes) t.push_back(c);
      pieces.push_back({t, v.unweighted ? 1 : n});
    }
  }
  Merges merges;
  for (std::int64_t id = 256; id < vocab_size - v.short_by; ++id) {
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
    for (const auto& [t, n] : pieces)
      for (std::size_t i = 0; i + 1 < t.size(); ++i) {
        counts[{t[i], t[i + 1]}] += n;
        if (!v.overlaps && i + 2 < t.size() && t[i] == t[i + 1] && t[i + 1] == t[i + 2])
          ++i;
      }
    std::pair<std::int64_t, std::int64_t> best;
    std::int64_t most = 0;
    for (const auto& [pair, count] : counts)
      if (count > most || (v.last_tie && count == most && count > 0))
        best = pair, most = count;
    if (most == 0) break;
    merges.push_back(best);
    for (auto& [t, n] : pieces) {
      Tokens merged;
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (i + 1 < t.size() && t[i] == best.first && t[i + 1] == best.second) {
          merged.push_back(id);
          ++i;
        } else {
          merged.push_back(t[i]);
        }
      }
      t = merged;
    }
  }
  return merges;
}

// The texts and vocabulary sizes the tests train on (below).
struct Case {
  std::string text;
  std::int64_t vocab_size;
};
const std::vector<Case>& cases();

// The catalogued mistake whose merges yours are on every text the tests train on: a
// mistake is named only when it would have made all of your merges, not only this
// test's.
std::string mistake_behind() {
  std::vector<Merges> yours;
  for (const Case& c : cases()) yours.push_back(train_bpe(c.text, c.vocab_size));
  const auto is = [&](const Variant& v) {
    for (std::size_t k = 0; k < cases().size(); ++k)
      if (yours[k] != variant_merges(cases()[k].text, cases()[k].vocab_size, v))
        return false;
    return true;
  };
  Variant overlaps, last_tie, across, unweighted, short_by_one;
  overlaps.overlaps = true, last_tie.last_tie = true, across.across = true;
  unweighted.unweighted = true, short_by_one.short_by = 1;
  const std::vector<std::pair<Variant, std::string>> mistakes = {
      {overlaps, "overlapping pairs counted twice"},
      {last_tie, "ties given to the larger ids"},
      {across, "pairs counted across pieces"},
      {unweighted, "each distinct piece counted once"},
      {short_by_one, "one merge too few"}};
  const std::string name = exercise::the_mistake(mistakes, is);
  return name.empty() ? "" : "your merges are exactly those of " + name;
}

std::string shown(const std::pair<std::int64_t, std::int64_t>& p) {
  return "(" + std::to_string(p.first) + ", " + std::to_string(p.second) + ")";
}

// Your merges against the library's: the first that differs, with both, and the
// catalogued mistake whose merges yours are, if any.
void check_merges(std::string_view text, std::int64_t vocab_size) {
  const Merges yours = train_bpe(text, vocab_size);
  const Merges expected = library_merges(text, vocab_size);
  const std::string why = yours == expected ? "" : exercise::quietly(mistake_behind);
  std::string where;
  for (std::size_t k = 0; k < std::min(yours.size(), expected.size()); ++k)
    if (yours[k] != expected[k]) {
      where = "merge " + std::to_string(k) + " is " + shown(yours[k]) + " where " +
              shown(expected[k]) + " was expected";
      break;
    }
  if (where.empty() && yours.size() != expected.size())
    where = std::to_string(yours.size()) + " merges where " +
            std::to_string(expected.size()) + " were expected";
  INFO(why);
  const bool same_merges = yours == expected;  // (pairs print as {?}: `where` says it)
  CHECK_MESSAGE(same_merges, where);
}

// `n` words of an invented language: syllables of a consonant and a vowel, two to
// five of them, some words far more common than others, with spaces, commas and
// digits between.
std::string invented_text(std::int64_t n, std::uint64_t seed) {
  Generator gen(seed);
  const std::string consonants = "bdklmnprst", vowels = "aeiou";
  std::vector<std::string> lexicon;
  for (int w = 0; w < 300; ++w) {
    std::string word;
    for (std::int64_t s = 0, len = 2 + gen.randint(0, 4); s < len; ++s)
      word +=
          std::string(1, consonants[gen.randint(0, 10)]) + vowels[gen.randint(0, 5)];
    lexicon.push_back(word);
  }
  std::string text;
  for (std::int64_t i = 0; i < n; ++i) {
    // Word w with probability falling as 1/(w + 1): the square of a uniform index.
    const std::int64_t r = gen.randint(0, 300);
    text += (i ? " " : "") + lexicon[r * gen.randint(0, 300) / 300];
    if (gen.randint(0, 12) == 0) text += ",";
    if (gen.randint(0, 40) == 0) text += " " + std::to_string(gen.randint(0, 2000));
  }
  return text;
}
}  // namespace

// %%
// The function to write, in ``exercises/11_tokens/4_training.cpp``:

Merges train_bpe(std::string_view text, std::int64_t vocab_size);

// %%
// The tests.

namespace {
const std::vector<Case>& cases() {
  static const std::vector<Case> all = {
      {"aaa aaaa aaa baaab aaaab bc bc bc bc bc bc bc bc bc aab aab", 264},
      {"xy yz zx xy yz zx ab ba", 262},
      {"ab ab ab cd cd, cd cd cd cd... ef ef", 264},
      {"naïve café crème brûlée, naïve cafés", 270},
      {invented_text(20000, 5), 856},
      {"abc abc ab", 300}};
  return all;
}
}  // namespace

TEST_CASE(
    "runs of one byte: aaaa counts (a, a) twice and aaa once, as the library does") {
  check_merges(cases()[0].text, cases()[0].vocab_size);
}

TEST_CASE("ties go to the smaller left id, then the smaller right id") {
  check_merges(cases()[1].text, cases()[1].vocab_size);
}

TEST_CASE(
    "no pair is counted across two pieces, and each distinct piece counts as often "
    "as it occurs") {
  check_merges(cases()[2].text, cases()[2].vocab_size);
}

TEST_CASE("bytes of 128 and more, as UTF-8 makes them, are the tokens 128 to 255") {
  check_merges(cases()[3].text, cases()[3].vocab_size);
}

TEST_CASE("20,000 words of an invented language: the same 600 merges, in order") {
  check_merges(cases()[4].text, cases()[4].vocab_size);
}

TEST_CASE(
    "asked for more merges than the text allows, training stops when none is left") {
  check_merges(cases()[5].text, cases()[5].vocab_size);
}
