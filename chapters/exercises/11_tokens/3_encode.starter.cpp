// Exercise 11.3 · Encoding with the merges. This is your file: write encode_piece
// below, then run `tools/exercise check 11.3`.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;

// The ids of one piece: its bytes, then every merge in the order learned, each
// replacing every occurrence of its pair, left to right, by 256 + its number.
std::vector<std::int64_t> encode_piece(const std::string& piece, const Merges& merges) {
  std::vector<std::int64_t> ids;
  for (char byte : piece) ids.push_back(byte);
  (void)merges;  // TODO: replay the merges
  return ids;
}
