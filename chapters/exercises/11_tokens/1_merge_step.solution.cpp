// Exercise 11.1 · One merge: the reference solution.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

struct Merge {
  std::int64_t left, right, count;  // the pair merged, and how often it occurred
};

Merge merge_step(std::vector<std::int64_t>& tokens, std::int64_t new_id) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i) {
    ++counts[{tokens[i], tokens[i + 1]}];
    // In a run a a a the next pair overlaps this one: only one can be replaced.
    if (i + 2 < tokens.size() && tokens[i] == tokens[i + 1] &&
        tokens[i + 1] == tokens[i + 2])
      ++i;
  }
  // std::map visits the pairs in order of (left, right): keeping the first of equal
  // counts is the tie rule.
  Merge best{0, 0, 0};
  for (const auto& [pair, count] : counts)
    if (count > best.count) best = {pair.first, pair.second, count};
  std::vector<std::int64_t> merged;
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    const bool pair_here =
        i + 1 < tokens.size() && tokens[i] == best.left && tokens[i + 1] == best.right;
    if (pair_here) {
      merged.push_back(new_id);
      ++i;  // the pair's right token is used up
    } else {
      merged.push_back(tokens[i]);
    }
  }
  tokens = merged;
  return best;
}
