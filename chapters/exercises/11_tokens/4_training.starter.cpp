// Exercise 11.4 · Training byte-pair encoding, merge for merge. This is your file:
// write train_bpe below, then run `tools/exercise check 11.4`.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <litgrad/litgrad.hpp>

using namespace litgrad;

using Merges = std::vector<std::pair<std::int64_t, std::int64_t>>;

// The merges training learns from `text` until there are `vocab_size` tokens (256
// bytes and vocab_size - 256 merges), or fewer if no pair is left: merge k joins
// (left, right) into the token 256 + k.
Merges train_bpe(std::string_view text, std::int64_t vocab_size) {
  (void)text, (void)vocab_size;
  return {};  // your training here
}
