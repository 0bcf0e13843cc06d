// Exercise 11.2 · A character's bytes
// ===================================
//
// Section 2 leans on UTF-8, which writes every Unicode character (a *code point*, a
// number below ``0x110000``) as one to four bytes, so that 256 byte tokens can spell
// any text. Write its encoder. A code point below ``0x80`` is one byte, itself.
// Otherwise the code point's bits are cut into groups of six from the right, each
// written as a *continuation* byte ``10xxxxxx``, after a *lead* byte that says how many
// bytes follow and holds the remaining high bits:
//
// ================  =====  ============================================
// code points       bytes  the bytes, bits of the code point as x
// ================  =====  ============================================
// 0x80 to 0x7FF     2      ``110xxxxx 10xxxxxx``
// 0x800 to 0xFFFF   3      ``1110xxxx 10xxxxxx 10xxxxxx``
// 0x10000 and up    4      ``11110xxx 10xxxxxx 10xxxxxx 10xxxxxx``
// ================  =====  ============================================
//
// The tests check characters the chapter uses, the code points where the length
// changes, and that every byte after the first is a continuation byte.

// %% hint
// The low six bits of a number are ``c & 0x3F``; the six above them
// ``(c >> 6) & 0x3F``. A continuation byte is ``0x80 | six_bits``; the lead bytes
// start ``0xC0``, ``0xE0`` and ``0xF0``.

// %% fold: includes
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "exercise_checks.hpp"  // vectors print as {a, b, c}

// %%
// The function to write, in ``exercises/11_tokens/2_utf8.cpp``:

std::string utf8(char32_t code_point);

// %%
// The tests.

namespace {
// U+XXXX, for messages.
std::string code(char32_t c) {
  char name[16];
  std::snprintf(name, sizeof name, "U+%04X", static_cast<unsigned>(c));
  return name;
}

// The bytes of a string as numbers, for readable failures.
std::vector<int> bytes(const std::string& s) {
  std::vector<int> out;
  for (char c : s) out.push_back(static_cast<unsigned char>(c));
  return out;
}
}  // namespace

TEST_CASE("A is the one byte 0x41, é (U+00E9) the two bytes C3 A9") {
  CHECK(bytes(utf8(0x41)) == std::vector<int>{0x41});
  INFO(
      "two bytes: a lead byte 110xxxxx, then a continuation byte 10xxxxxx; a second "
      "byte below 0x80 points to continuation bytes without their 10 marker");
  CHECK(bytes(utf8(0xE9)) == std::vector<int>{0xC3, 0xA9});
}

TEST_CASE("the dash — (U+2014) is E2 80 94 and 東 (U+6771) is E6 9D B1") {
  INFO(
      "three bytes: a lead byte 1110xxxx, then two continuation bytes 10xxxxxx; a "
      "lead byte 110xxxxx points to a three-byte character led by a two-byte lead");
  CHECK(bytes(utf8(0x2014)) == std::vector<int>{0xE2, 0x80, 0x94});
  CHECK(bytes(utf8(0x6771)) == std::vector<int>{0xE6, 0x9D, 0xB1});
}

TEST_CASE("the smile 🙂 (U+1F642) is F0 9F 99 82") {
  INFO("four bytes: a lead byte 11110xxx, then three continuation bytes 10xxxxxx");
  CHECK(bytes(utf8(0x1F642)) == std::vector<int>{0xF0, 0x9F, 0x99, 0x82});
}

TEST_CASE("the length changes at 0x80, 0x800 and 0x10000, and not before") {
  const std::pair<char32_t, std::size_t> edges[] = {
      {0x7F, 1},   {0x80, 2},    {0x7FF, 2},   {0x800, 3},
      {0xFFFF, 3}, {0x10000, 4}, {0x10FFFF, 4}};
  for (const auto& [c, length] : edges) {
    INFO("code point ", code(c));
    CHECK_MESSAGE(utf8(c).size() == length,
                  "three bytes at U+07FF point to the two-byte range ends one code "
                  "point early");
  }
}

TEST_CASE(
    "every byte after the first is a continuation byte 10xxxxxx, and the bytes "
    "carry the code point's bits") {
  for (char32_t c : {0xE9, 0x7FF, 0x2014, 0xFFFF, 0x1F642}) {
    const std::string s = utf8(c);
    INFO("code point ", code(c));
    REQUIRE(s.size() >= 2);
    char32_t decoded = static_cast<unsigned char>(s[0]) & (0x7F >> s.size());
    for (std::size_t i = 1; i < s.size(); ++i) {
      CHECK_MESSAGE((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80, "byte ", i,
                    " is not 10xxxxxx: a byte 11xxxxxx in the middle of "
                    "three points to the middle six bits not cut to six");
      decoded = decoded << 6 | (static_cast<unsigned char>(s[i]) & 0x3F);
    }
    CHECK(decoded == c);
  }
}
