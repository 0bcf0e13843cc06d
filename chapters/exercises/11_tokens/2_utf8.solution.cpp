// Exercise 11.2 · A character's bytes: the reference solution.
#include <string>

std::string utf8(char32_t c) {
  const auto byte = [](char32_t b) { return static_cast<char>(b); };
  if (c < 0x80) return std::string(1, byte(c));
  if (c < 0x800) return {byte(0xC0 | c >> 6), byte(0x80 | (c & 0x3F))};
  if (c < 0x10000)
    return {byte(0xE0 | c >> 12), byte(0x80 | ((c >> 6) & 0x3F)),
            byte(0x80 | (c & 0x3F))};
  return {byte(0xF0 | c >> 18), byte(0x80 | ((c >> 12) & 0x3F)),
          byte(0x80 | ((c >> 6) & 0x3F)), byte(0x80 | (c & 0x3F))};
}
