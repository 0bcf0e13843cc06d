// Exercise 11.2 · A character's bytes. This is your file: write utf8 below, then run
// `tools/exercise check 11.2`.
#include <string>

// The UTF-8 bytes of one code point (below 0x110000).
std::string utf8(char32_t code_point) {
  // One byte per character, as in Latin-1: fine for A, wrong for everything past 0x7F.
  return std::string(1, static_cast<char>(code_point));
}
