// Exercise 11.1 · One merge. This is your file: write merge_step below, then run
// `tools/exercise check 11.1`.
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

struct Merge {
  std::int64_t left, right, count;  // the pair merged, and how often it occurred
};

// Counts the pairs of adjacent tokens, takes the most frequent (ties: smaller left id,
// then smaller right id), replaces it left to right by new_id; returns it and its
// count.
Merge merge_step(std::vector<std::int64_t>& tokens, std::int64_t new_id) {
  std::map<std::pair<std::int64_t, std::int64_t>, std::int64_t> counts;
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
    ++counts[{tokens[i], tokens[i + 1]}];  // every position, overlapping or not
  Merge best{0, 0, 0};
  for (const auto& [pair, count] : counts)
    if (count >= best.count) best = {pair.first, pair.second, count};
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
    if (tokens[i] == best.left && tokens[i + 1] == best.right) tokens[i] = new_id;
  return best;  // TODO: the replaced pairs' right tokens are still there
}
