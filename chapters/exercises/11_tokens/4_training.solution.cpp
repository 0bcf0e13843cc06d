// Exercise 11.4 · Training byte-pair encoding, merge for merge: the reference solution.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;

Merges train_bpe(std::string_view text, std::int64_t vocab_size) {
  using Tokens = std::vector<std::int64_t>;
  // 1. Each distinct piece once, as its bytes, with how often it occurs.
  std::map<std::string, std::int64_t> distinct;
  for (std::string_view piece : pretokenize(text)) ++distinct[std::string(piece)];
  std::vector<std::pair<Tokens, std::int64_t>> pieces;
  for (const auto& [bytes, occurrences] : distinct) {
    Tokens tokens;
    for (unsigned char c : bytes) tokens.push_back(c);
    pieces.push_back({tokens, occurrences});
  }
  Merges merges;
  for (std::int64_t id = 256; id < vocab_size; ++id) {
    // 2. Count the pairs within each piece, weighted; in a run a a a, once.
    std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
    for (const auto& [t, occurrences] : pieces)
      for (std::size_t i = 0; i + 1 < t.size(); ++i) {
        counts[{t[i], t[i + 1]}] += occurrences;
        if (i + 2 < t.size() && t[i] == t[i + 1] && t[i + 1] == t[i + 2]) ++i;
      }
    // 3. The most frequent; std::map's order of (left, right) is the tie rule.
    std::pair<std::int64_t, std::int64_t> best;
    std::int64_t most = 0;
    for (const auto& [pair, count] : counts)
      if (count > most) best = pair, most = count;
    if (most == 0) break;  // 4. nothing left to merge
    merges.push_back(best);
    for (auto& [t, occurrences] : pieces) {
      Tokens merged;
      for (std::size_t i = 0; i < t.size(); ++i) {
        if (i + 1 < t.size() && t[i] == best.first && t[i + 1] == best.second) {
          merged.push_back(id);
          ++i;  // the pair's right token is used up
        } else {
          merged.push_back(t[i]);
        }
      }
      t = merged;
    }
  }
  return merges;
}
