// Exercise 11.3 · Encoding with the merges: the reference solution.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;

std::vector<std::int64_t> encode_piece(const std::string& piece, const Merges& merges) {
  std::vector<std::int64_t> ids;
  for (unsigned char byte : piece) ids.push_back(byte);
  for (std::size_t k = 0; k < merges.size(); ++k) {
    std::vector<std::int64_t> merged;
    for (std::size_t i = 0; i < ids.size(); ++i) {
      const bool pair_here = i + 1 < ids.size() && ids[i] == merges[k].first &&
                             ids[i + 1] == merges[k].second;
      if (pair_here) {
        merged.push_back(256 + static_cast<std::int64_t>(k));
        ++i;  // the pair's right token is used up
      } else {
        merged.push_back(ids[i]);
      }
    }
    ids = merged;
  }
  return ids;
}
